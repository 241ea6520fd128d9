package sh.karpenter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code karpenter plan} on hostile input: each case runs the CLI in a child JVM with a small heap
 * and a wall-clock limit (a bound against hangs and runaway work, not a performance assertion), and
 * expects an exit code and message fragments: exit 2 with one line naming file, document and field,
 * or a plan with a clearly printed warning where kube-apiserver would accept the input; never a
 * stack trace. Large inputs are generated into a temporary directory.
 */
class HostilePlanInputTest {
  /** The heap most cases run in: input limits, not the heap, must stop them. */
  private static final String SMALL_HEAP = "64m";

  private static final Duration LIMIT = Duration.ofMinutes(2);

  @TempDir Path dir;

  /**
   * One hostile input.
   *
   * @param name what the case is
   * @param input writes the files into a directory and returns the arguments after {@code plan}
   * @param exit the expected exit code
   * @param fragments text the output (stdout and stderr) must contain
   * @param heap the child's maximum heap
   * @param limit how long the child may run before it counts as hung
   */
  record Case(String name, Input input, int exit, List<String> fragments, String heap, Duration limit) {
    Case(String name, Input input, int exit, String... fragments) {
      this(name, input, exit, List.of(fragments), SMALL_HEAP, LIMIT);
    }

    @Override
    public String toString() {
      return name;
    }
  }

  @FunctionalInterface
  interface Input {
    List<String> write(Path dir) throws IOException;
  }

  private static final String POOL = """
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: default}
      spec:
        template:
          spec:
            nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
            requirements:
              - {key: kubernetes.io/arch, operator: In, values: [amd64]}
              - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      """;

  private static String pod(String name, String resources) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + "}\nspec: {containers: [{name: c, image: x, resources: {" + resources + "}}]}\n";
  }

  private static String deployment(String name, String replicas, String cpu) {
    return """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: %s, namespace: shop, uid: 0a0a0a0a-0000-0000-0000-%012d}
        spec:
          replicas: %s
          selector: {matchLabels: {app: %s}}
          template:
            metadata: {labels: {app: %s}}
            spec: {containers: [{name: c, image: x, resources: {requests: {cpu: %s, memory: 256Mi}}}]}
        """.formatted(name, Math.abs(name.hashCode()), replicas, name, name, cpu);
  }

  /** The pool plus files with these contents, named {@code 1.yaml}, {@code 2.yaml}, ...; returns {@code -f} arguments. */
  private static Input withPool(String... files) {
    return dir -> {
      List<String> args = new ArrayList<>(List.of("-f", write(dir, "pool.yaml", POOL)));
      for (int i = 0; i < files.length; i++) {
        args.addAll(List.of("-f", write(dir, (i + 1) + ".yaml", files[i])));
      }
      return args;
    };
  }

  private static Input files(String... contents) {
    return dir -> {
      List<String> args = new ArrayList<>();
      for (int i = 0; i < contents.length; i++) {
        args.addAll(List.of("-f", write(dir, (i + 1) + ".yaml", contents[i])));
      }
      return args;
    };
  }

  private static String write(Path dir, String name, String content) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    return file.toString();
  }

  /** A file of {@code bytes} zero bytes that takes no disk space: its size alone must stop the plan. */
  private static String sparse(Path dir, String name, long bytes) throws IOException {
    Path file = dir.resolve(name);
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
      raf.setLength(bytes);
    }
    return file.toString();
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("NodePool requirements written as a map", files("""
            apiVersion: karpenter.sh/v1
            kind: NodePool
            metadata: {name: default}
            spec:
              template:
                spec:
                  nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
                  requirements: {key: kubernetes.io/arch, operator: In, values: [amd64]}
            """), 2, "1.yaml, document 1: spec.template.spec.requirements", "must be of type array"),
        new Case("a 200 MiB file", dir -> List.of("-f", sparse(dir, "big.yaml", 200L << 20)), 2,
            "big.yaml: the file is 200.0 MiB, more than the limit of 64.0 MiB per file", "--max-file-size"),
        new Case("files of 300 MiB in all", dir -> {
          List<String> args = new ArrayList<>();
          for (int i = 0; i < 5; i++) {
            args.addAll(List.of("-f", sparse(dir, "part-" + i + ".yaml", 60L << 20)));
          }
          return args;
        }, 2, "part-4.yaml: the input reaches 300.0 MiB with this file, more than the limit of 256.0 MiB in all", "--max-input-size"),
        new Case("a single 20 MiB scalar", dir -> {
          Path file = dir.resolve("scalar.yaml");
          try (Writer out = Files.newBufferedWriter(file)) {
            out.write(pod("p", "requests: {cpu: 100m}"));
            out.write("---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: blob}\ndata:\n  blob: ");
            for (int i = 0; i < 20 << 10; i++) {
              out.write("x".repeat(1024));
            }
            out.write("\n");
          }
          return List.of("-f", file.toString());
        }, 2, "scalar.yaml, document 2: line 10 is longer than 1.5 MiB"),
        new Case("a YAML alias", withPool(pod("p", "requests: &r {cpu: 100m}, limits: *r")), 2,
            "1.yaml, document 1: invalid YAML: aliases (*r) are not supported"),
        new Case("a Deployment of a billion replicas", withPool(deployment("web", "1000000000", "100m")), 2,
            "1.yaml, document 1: spec.replicas: Deployment web would take the pods expanded from workloads to 1,000,000,000,"
                + " more than the limit of 150,000 (--max-expanded-pods)"),
        new Case("negative replicas", withPool(deployment("web", "-3", "100m")), 2,
            "1.yaml, document 1: spec.replicas: Invalid value: -3: must be greater than or equal to 0"),
        new Case("a Deployment exported with its ReplicaSet", withPool(deployment("web", "2", "100m") + """
            ---
            apiVersion: apps/v1
            kind: ReplicaSet
            metadata:
              name: web-5d8f7c9b4
              namespace: shop
              labels: {app: web, pod-template-hash: 5d8f7c9b4}
              ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, controller: true}]
            spec:
              replicas: 2
              selector: {matchLabels: {app: web, pod-template-hash: 5d8f7c9b4}}
              template:
                metadata: {labels: {app: web, pod-template-hash: 5d8f7c9b4}}
                spec: {containers: [{name: c, image: x, resources: {requests: {cpu: 100m, memory: 256Mi}}}]}
            """), 0, "Plan: 2 pending pods, 2 scheduled"),
        new Case("100,000 pending pods of 100 shapes", dir -> {
          StringBuilder yaml = new StringBuilder();
          for (int i = 0; i < 100; i++) {
            yaml.append(deployment("app-" + i, "1000", (100 + 37 * i) + "m").replace("memory: 256Mi", "memory: " + (128 + 61 * i) + "Mi")).append("---\n");
          }
          return withPool(yaml.toString()).write(dir);
        }, 0, List.of("Plan: 100000 pending pods, 100000 scheduled", "Lower bound: "), "1g", Duration.ofMinutes(15)),
        new Case("20,000 pending pods of distinct shapes", dir -> {
          StringBuilder yaml = new StringBuilder();
          for (int i = 0; i < 20_000; i++) {
            yaml.append(pod("p-" + i, "requests: {cpu: " + (50 + (i * 7919L) % 3950) + "m, memory: " + (64 + (i * 104729L) % 16320) + "Mi}"))
                .append("---\n");
          }
          return withPool(yaml.toString()).write(dir);
        }, 0, List.of("Plan: 20000 pending pods, 20000 scheduled", "Cost post-pass: stopped at its step budget for nodepool default"),
            "1g", Duration.ofMinutes(10)),
        new Case("duplicate pod names", withPool(pod("p", "requests: {cpu: 100m}"), pod("p", "requests: {cpu: 200m}")), 2,
            "2.yaml, document 1: metadata.name: Duplicate value: Pod \"default/p\" is also in ", "1.yaml, document 1"),
        new Case("duplicate NodePool names", withPool(POOL), 2,
            "1.yaml, document 1: metadata.name: Duplicate value: NodePool \"default\" is also in ", "pool.yaml, document 1"),
        new Case("a negative cpu request", withPool(pod("p", "requests: {cpu: \"-1\"}")), 2,
            "1.yaml, document 1: spec.containers[0].resources.requests.cpu: Invalid value: \"-1\": must be greater than or equal to 0"),
        new Case("a negative cpu limit", withPool(pod("p", "limits: {cpu: \"-10\"}")), 2,
            "1.yaml, document 1: spec.containers[0].resources.limits.cpu: Invalid value: \"-10\": must be greater than or equal to 0"),
        new Case("a request of 1e30 cpu", withPool(pod("p", "requests: {cpu: \"1e30\"}")), 0,
            "warning: ", "1.yaml, document 1: spec.containers[0].resources.requests.cpu: \"1e30\" is more than 9223372036854775807m",
            "default/p"),
        new Case("a pod bound to a node outside the snapshot",
            withPool("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: ghost, containers: [{name: c, image: x}]}\n"), 0,
            "warning: ", "spec.nodeName: pod default/p is bound to node \"ghost\", which is not in the snapshot"),
        new Case("an empty --zones", dir -> List.of("-f", write(dir, "pool.yaml", POOL), "--zones", ""), 2,
            "--zones: expected zone names separated by commas"),
        new Case("an empty file", files(""), 2, "error: nothing to plan: ", "1.yaml: no Kubernetes objects (the file is empty or holds only comments)"),
        new Case("a file of comments", files("# nothing\n---\n# here either\n"), 2, "error: nothing to plan: ", "1.yaml: no Kubernetes objects"),
        new Case("a directory without YAML", dir -> {
          write(dir, "d/readme.txt", "not yaml");
          return List.of("-f", dir.resolve("d").toString());
        }, 2, "error: nothing to plan: ", "d: no *.yaml or *.yml files in the directory"),
        new Case("an empty file among others", withPool(""), 0,
            "warning: ", "1.yaml: no Kubernetes objects (the file is empty or holds only comments); skipped", "Plan: 0 pending pods"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void hostileInputEndsCleanlyInBoundedTimeAndMemory(Case c) throws Exception {
    List<String> args = new ArrayList<>(List.of("plan"));
    args.addAll(c.input().write(dir));

    ChildCli.Run run = ChildCli.run(dir, c.heap(), c.limit(), Map.of(), List.of(), args);

    assertThat(run.killed()).as("%s: still running after %s; output so far:%n%s", c.name(), c.limit(), run.output()).isFalse();
    assertThat(run.exit()).as("%s: exit code; output:%n%s", c.name(), run.output()).isEqualTo(c.exit());
    assertThat(run.output()).as(c.name()).contains(c.fragments());
    assertThat(run.err()).as("%s: no stack trace", c.name()).doesNotContain("\tat ", "Exception in thread", "internal error");
    if (c.exit() == 2) {
      assertThat(run.out()).as("%s: no plan on bad input", c.name()).isEmpty();
    }
  }
}
