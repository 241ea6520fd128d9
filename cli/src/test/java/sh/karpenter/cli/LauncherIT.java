package sh.karpenter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/karpenter}'s start-up cache, run on the jar this build packaged: the first {@code plan}
 * trains an AOT cache (JDK 25+) in the cache directory while printing exactly what a run without one
 * prints, later runs use it, and a damaged cache, the JDK 21-24 archive ({@code
 * KARPENTER_STARTUP_CACHE=cds}) and {@code KARPENTER_STARTUP_CACHE=off} change nothing a user sees.
 * The JVM never adds a line to stdout or stderr.
 */
class LauncherIT {
  private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
  private static final Duration RUN_LIMIT = Duration.ofMinutes(5);

  @TempDir Path cache;
  private static Path root;
  private static JsonNode expected;

  @BeforeAll
  static void planWithoutCache(@TempDir Path none) throws Exception {
    root = Path.of("").toAbsolutePath();
    while (!Files.isExecutable(root.resolve("bin/karpenter"))) {
      root = root.getParent();
    }
    assertThat(root.resolve("cli/target/karpenter.jar")).as("packaged before integration tests").exists();
    Run run = plan(none, "off");
    expected = json(run);
    try (Stream<Path> files = Files.list(none)) {
      assertThat(files).as("KARPENTER_STARTUP_CACHE=off writes nothing").isEmpty();
    }
  }

  @Test
  void firstPlanTrainsTheCacheAndLaterRunsUseIt() throws Exception {
    Run first = plan(cache, null);
    assertThat(json(first)).isEqualTo(expected);

    Path aot = awaitFile(cache, ".aot");
    assertThat(list(cache)).as("training files are removed").containsExactly(aot);

    Run second = plan(cache, null);
    assertThat(json(second)).isEqualTo(expected);
    assertThat(list(cache)).containsExactly(aot);

    // A damaged cache is ignored without a word (the JVM checks it; the launcher does not).
    Files.write(aot, new byte[] {1, 2, 3});
    Run damaged = plan(cache, null);
    assertThat(json(damaged)).isEqualTo(expected);

    Run version = run(cache, null, List.of("version"));
    assertThat(version.exit()).isZero();
    assertThat(version.err()).isEmpty();
    assertThat(version.out()).startsWith("karpenter ");
  }

  /**
   * A plan of more than 256 KiB of manifests runs with tiered compilation (C1 alone below that) and
   * trains a cache of its own: the small plans' one stays.
   */
  @Test
  void largePlansRunWithTheirOwnOptionsAndCache(@TempDir Path input) throws Exception {
    copyExamples(input);
    // The same objects in more bytes: a comment of 300 KiB.
    Files.writeString(input.resolve("nodepools.yaml"), ("# " + "x".repeat(98) + "\n").repeat(3 * 1024), StandardOpenOption.APPEND);

    assertThat(json(plan(cache, null))).isEqualTo(expected);
    Path small = awaitFile(cache, ".aot");

    Run large = run(cache, null, List.of("plan", "-f", input.toString(), "-o", "json"));
    assertThat(json(large)).isEqualTo(expected);
    awaitSecondCache(small);
  }

  /** So does a small file whose workloads ask for more than 10,000 replicas: the examples with one Deployment scaled up. */
  @Test
  void manyReplicasRunWithTheLargePlansOptions(@TempDir Path input) throws Exception {
    copyExamples(input);
    Path web = input.resolve("web.yaml");
    Files.writeString(web, Files.readString(web).replaceFirst("replicas: \\d+", "replicas: 10001"));

    assertThat(json(plan(cache, null))).isEqualTo(expected);
    Path small = awaitFile(cache, ".aot");

    Run many = run(cache, null, List.of("plan", "-f", input.toString(), "-o", "json"));
    assertThat(json(many).at("/summary/pendingPods").asInt()).isGreaterThan(10000);
    awaitSecondCache(small);
  }

  /**
   * The AWS SDK is not in karpenter.jar but in karpenter-aws.jar beside it, on its Class-Path: a plan
   * that reads a live EC2 endpoint (here a closed loopback port) gets the SDK's connection error, not
   * a missing class.
   */
  @Test
  void theAwsSdkComesFromTheSecondJar() throws Exception {
    assertThat(root.resolve("cli/target/karpenter-aws.jar")).exists();
    int closed;
    try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      closed = socket.getLocalPort();
    }
    Map<String, String> credentials =
        Map.of("AWS_ACCESS_KEY_ID", "testing", "AWS_SECRET_ACCESS_KEY", "testing", "AWS_EC2_METADATA_DISABLED", "true");

    Run run =
        run(cache, null, List.of("plan", "-f", "examples/", "--aws-endpoint", "http://127.0.0.1:" + closed, "--aws-region", "us-east-1"), credentials);

    assertThat(run.exit()).as(run.err()).isEqualTo(2);
    assertThat(run.err()).contains("cannot read instance types").doesNotContain("NoClassDefFoundError").doesNotContain("ClassNotFoundException");
  }

  private static void copyExamples(Path into) throws IOException {
    try (Stream<Path> examples = Files.list(root.resolve("examples"))) {
      for (Path file : examples.filter(f -> f.toString().endsWith(".yaml")).toList()) {
        Files.copy(file, into.resolve(file.getFileName()));
      }
    }
  }

  /** Waits until the background JVM has moved a second cache in beside {@code first} and removed its training file. */
  private void awaitSecondCache(Path first) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + RUN_LIMIT.toNanos();
    while (!(list(cache).size() == 2 && list(cache).stream().allMatch(f -> f.toString().endsWith(".aot"))) && System.nanoTime() < deadline) {
      Thread.sleep(500);
    }
    assertThat(list(cache)).as("a cache each").hasSize(2).contains(first).allMatch(f -> f.toString().endsWith(".aot"));
  }

  @Test
  void dynamicArchiveForOlderJdks() throws Exception {
    Run first = plan(cache, "cds");
    assertThat(json(first)).isEqualTo(expected);
    Path jsa = awaitFile(cache, ".jsa");
    Run second = plan(cache, "cds");
    assertThat(json(second)).isEqualTo(expected);
    assertThat(list(cache)).containsExactly(jsa);

    // A new archive for the same jar path (the jar was rebuilt) replaces the older one.
    String name = jsa.getFileName().toString();
    Path stale = cache.resolve(name.substring(0, name.indexOf('-')) + "-1.jsa");
    Files.move(jsa, stale);
    Run third = plan(cache, "cds");
    assertThat(json(third)).isEqualTo(expected);
    awaitFile(cache, ".jsa");
    assertThat(list(cache)).containsExactly(jsa);
  }

  @Test
  void badInputEndsTheSameWithAndWithoutTraining() throws Exception {
    Path bad = cache.resolveSibling(cache.getFileName() + "-bad.yaml");
    Files.writeString(bad, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, image: x, bogus: 1}]}\n");
    try {
      Run run = run(cache, null, List.of("plan", "-f", bad.toString()));
      assertThat(run.exit()).isEqualTo(PlanCommand.BAD_INPUT);
      assertThat(run.out()).isEmpty();
      assertThat(run.err()).startsWith("error: " + bad).contains("unknown field").doesNotContain("AOT", "aot");
      assertThat(list(cache)).as("no cache from a failed run").isEmpty();
    } finally {
      Files.deleteIfExists(bad);
    }
  }

  private record Run(int exit, String out, String err) {}

  private static Run plan(Path cacheDir, String mode) throws Exception {
    return run(cacheDir, mode, List.of("plan", "-f", "examples/", "-o", "json"));
  }

  private static Run run(Path cacheDir, String mode, List<String> args) throws IOException, InterruptedException {
    return run(cacheDir, mode, args, Map.of());
  }

  private static Run run(Path cacheDir, String mode, List<String> args, Map<String, String> extraEnv) throws IOException, InterruptedException {
    List<String> command = new ArrayList<>();
    command.add(root.resolve("bin/karpenter").toString());
    command.addAll(args);
    Path out = Files.createTempFile("launcher", ".out");
    Path err = Files.createTempFile("launcher", ".err");
    try {
      ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile());
      Map<String, String> env = builder.environment();
      env.put("KARPENTER_CACHE_DIR", cacheDir.toString());
      env.remove("KARPENTER_JAVA_OPTS");
      env.remove("JAVA_TOOL_OPTIONS");
      if (mode == null) {
        env.remove("KARPENTER_STARTUP_CACHE");
      } else {
        env.put("KARPENTER_STARTUP_CACHE", mode);
      }
      env.putAll(extraEnv);
      Process process = builder.start();
      if (!process.waitFor(RUN_LIMIT.toSeconds(), TimeUnit.SECONDS)) {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
        throw new AssertionError("bin/karpenter " + String.join(" ", args) + " did not end within " + RUN_LIMIT);
      }
      return new Run(process.exitValue(), Files.readString(out), Files.readString(err));
    } finally {
      Files.deleteIfExists(out);
      Files.deleteIfExists(err);
    }
  }

  /** The plan's JSON without its timing, after checking the run printed nothing else. */
  private static JsonNode json(Run run) throws IOException {
    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.err()).as("stderr").isEmpty();
    JsonNode plan = JSON.readTree(run.out()); // stdout is the plan alone: no leading or trailing line
    ((ObjectNode) plan.get("summary")).remove("solveMillis");
    return plan;
  }

  /** Waits for the launcher's background work to leave exactly one file with this suffix. */
  private static Path awaitFile(Path dir, String suffix) throws IOException, InterruptedException {
    long deadline = System.nanoTime() + RUN_LIMIT.toNanos();
    while (System.nanoTime() < deadline) {
      List<Path> files = list(dir);
      if (files.size() == 1 && files.getFirst().toString().endsWith(suffix)) {
        return files.getFirst();
      }
      Thread.sleep(500);
    }
    throw new AssertionError("no single *" + suffix + " in " + dir + " after " + RUN_LIMIT + ": " + list(dir));
  }

  private static List<Path> list(Path dir) throws IOException {
    try (Stream<Path> files = Files.list(dir)) {
      return files.toList();
    }
  }
}
