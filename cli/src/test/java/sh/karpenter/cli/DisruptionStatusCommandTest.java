package sh.karpenter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code karpenter disruption status} against bad input: one line on stderr, no stack trace. Against a cluster: DisruptionStatusIT. */
class DisruptionStatusCommandTest {
  @TempDir Path dir;

  record Run(int exit, String out, String err) {}

  static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    return new Run(cli.execute(args), out.toString(), err.toString());
  }

  @Test
  void aMissingKubeconfigIsOneLineAndExitCode2() {
    Run run = run("disruption", "status", "--kubeconfig", dir.resolve("absent").toString());

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("error: --kubeconfig " + dir.resolve("absent") + ": no such file" + System.lineSeparator());
    assertThat(run.out()).isEmpty();
  }

  @Test
  void anUnreachableApiServerIsOneLineAndExitCode1() throws IOException {
    Path kubeconfig = dir.resolve("config");
    Files.writeString(kubeconfig, """
        apiVersion: v1
        kind: Config
        clusters:
        - name: local
          cluster: {server: "https://127.0.0.1:1", insecure-skip-tls-verify: true}
        users:
        - name: admin
          user: {token: not-a-real-token}
        contexts:
        - name: local
          context: {cluster: local, user: admin}
        current-context: local
        """);

    Run run = run("disruption", "status", "--kubeconfig", kubeconfig.toString());

    assertThat(run.exit()).isEqualTo(1);
    assertThat(run.err().lines()).singleElement().asString()
        .startsWith("error: cannot list NodeClaims from the API server at https://127.0.0.1:1/")
        .contains("kubeconfig " + kubeconfig + ", context local");
    assertThat(run.err()).doesNotContain("\tat ", "Exception");
  }

  @Test
  void anUnknownOutputFormatIsBadInput() {
    Run run = run("disruption", "status", "-o", "yaml");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).isEqualTo("error: --output: unknown format \"yaml\" (supported: text, json)" + System.lineSeparator());
  }
}
