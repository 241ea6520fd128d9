package sh.karpenter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code karpenter controller} started with bad flags or a bad kubeconfig: each case runs in a child
 * JVM and must end with exit code 2 and one line naming the flag or file, never a stack trace; with
 * an API server that cannot be reached, the log must name the address it tries.
 */
class HostileControllerStartupTest {
  private static final Duration LIMIT = Duration.ofMinutes(2);
  /** Flags that keep the child off the host's ports and out of leader election. */
  private static final List<String> QUIET = List.of("--disable-leader-election", "--metrics-port=-1", "--health-probe-port=-1");

  @TempDir Path dir;

  /**
   * One bad start.
   *
   * @param kubeconfig writes the kubeconfig (or not) and returns the {@code --kubeconfig} value, or
   *     null to pass none
   * @param flags further flags
   * @param fragments what the single error line must contain
   */
  record Case(String name, Kubeconfig kubeconfig, List<String> flags, List<String> fragments) {
    @Override
    public String toString() {
      return name;
    }
  }

  @FunctionalInterface
  interface Kubeconfig {
    String write(Path dir) throws IOException;
  }

  private static String kubeconfig(String server, String currentContext, String user) {
    return """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster: {server: "%s", insecure-skip-tls-verify: true}
        users:
        - name: admin
          user: {token: not-a-real-token}
        contexts:
        - name: local
          context: {cluster: local, user: %s}
        current-context: %s
        """.formatted(server, user, currentContext);
  }

  private static Kubeconfig file(String name, String content) {
    return dir -> {
      Path file = dir.resolve(name);
      Files.writeString(file, content);
      return file.toString();
    };
  }

  static Stream<Case> cases() {
    return Stream.of(
        new Case("a kubeconfig that does not exist", dir -> dir.resolve("absent").toString(), List.of(), List.of("--kubeconfig ", "absent: no such file")),
        new Case("an empty kubeconfig", file("empty", ""), List.of(), List.of("--kubeconfig ", "empty: empty")),
        new Case("a directory as kubeconfig", dir -> {
          Files.createDirectories(dir.resolve("kube"));
          return dir.resolve("kube").toString();
        }, List.of(), List.of("kube: a directory, not a kubeconfig file")),
        new Case("random bytes as kubeconfig", dir -> {
          byte[] bytes = new byte[4096];
          new Random(7).nextBytes(bytes);
          Path file = dir.resolve("random");
          Files.write(file, bytes);
          return file.toString();
        }, List.of(), List.of("random: not a kubeconfig: not UTF-8 text")),
        new Case("malformed YAML", file("malformed", "apiVersion: v1\nclusters: [oops\n"), List.of(),
            List.of("malformed: not valid YAML: ", "at line ")),
        new Case("YAML that is not a kubeconfig", file("list", "- a\n- b\n"), List.of(), List.of("list: not a kubeconfig: expected a mapping")),
        new Case("a missing current context", file("no-context", kubeconfig("https://127.0.0.1:6443", "elsewhere", "admin")), List.of(),
            List.of("no-context: current-context \"elsewhere\" is not one of its contexts (local)")),
        new Case("a context without its user", file("no-user", kubeconfig("https://127.0.0.1:6443", "local", "nobody")), List.of(),
            List.of("no-user: context \"local\" names user \"nobody\", which is not in the file")),
        new Case("no kubeconfig at all", dir -> null, List.of(),
            List.of("--kubeconfig: no kubeconfig: pass --kubeconfig or set KUBECONFIG", ".kube/config does not exist")),
        new Case("a bad log level", file("ok", kubeconfig("https://127.0.0.1:6443", "local", "admin")), List.of("--log-level", "loud"),
            List.of("--log-level: expected debug, info or error, got \"loud\"")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("cases")
  void aBadStartIsOneLineNamingTheFlagOrFile(Case c) throws Exception {
    List<String> args = new ArrayList<>(List.of("controller"));
    args.addAll(QUIET);
    String kubeconfig = c.kubeconfig().write(dir);
    if (kubeconfig != null) {
      args.addAll(List.of("--kubeconfig", kubeconfig));
    }
    args.addAll(c.flags());

    ChildCli.Run run = ChildCli.run(dir, "128m", LIMIT, environment(), List.of("-Duser.home=" + dir), args);

    assertThat(run.killed()).as("%s: still running after %s; output:%n%s", c.name(), LIMIT, run.output()).isFalse();
    assertThat(run.exit()).as("%s; output:%n%s", c.name(), run.output()).isEqualTo(2);
    assertThat(run.err().strip()).as(c.name()).startsWith("error: ").doesNotContain("\n").contains(c.fragments());
    assertThat(run.output()).as(c.name()).doesNotContain("\tat ", "Exception in thread", "internal error");
  }

  @Test
  void anUnreachableApiServerIsLoggedWithItsAddress() throws Exception {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // free once closed: nothing listens there
    }
    Path file = dir.resolve("unreachable");
    Files.writeString(file, kubeconfig("https://127.0.0.1:" + port, "local", "admin"));
    List<String> args = new ArrayList<>(List.of("controller", "--kubeconfig", file.toString()));
    args.addAll(QUIET);
    String address = "127.0.0.1:" + port;

    ChildCli.Run run = ChildCli.run(dir, "256m", LIMIT, environment(), List.of(), args,
        output -> output.contains("cannot reach the API server") && output.contains(address));

    String log = run.output().replace("\\/", "/"); // JSON lines escape slashes
    assertThat(log)
        .as("output:%n%s", log)
        .contains("cannot reach the API server at https://" + address)
        .contains("(kubeconfig " + file + ", context local)")
        .contains("connection refused or unreachable")
        .doesNotContain("\tat ", "Exception in thread");
  }

  /** The child's environment: no kubeconfig or in-cluster hints from the machine running the tests. */
  private static Map<String, String> environment() {
    Map<String, String> env = new HashMap<>();
    for (String name : List.of("KUBECONFIG", "KUBERNETES_SERVICE_HOST", "KUBERNETES_SERVICE_PORT", "LOG_LEVEL", "CLOUD_PROVIDER")) {
      env.put(name, null);
    }
    return env;
  }
}
