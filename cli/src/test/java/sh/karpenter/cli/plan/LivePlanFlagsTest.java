package sh.karpenter.cli.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code --aws-endpoint} and {@code --aws-region} errors: exit code 2 and one line naming the flag. */
class LivePlanFlagsTest {
  private static final String EXAMPLES = Path.of("..", "examples").toString();

  @Test
  void anUnreachableEndpointIsOneLineNamingTheFlag() throws IOException {
    int port;
    try (ServerSocket socket = new ServerSocket(0)) {
      port = socket.getLocalPort(); // closed again: nothing listens there
    }
    System.setProperty("aws.accessKeyId", "testing");
    System.setProperty("aws.secretAccessKey", "testing");
    PlanContractTest.Run run = PlanContractTest.plan("-f", EXAMPLES, "--aws-endpoint", "http://127.0.0.1:" + port, "--aws-region", "us-west-2");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err().strip()).startsWith("error: --aws-endpoint http://127.0.0.1:" + port + " (region us-west-2): cannot read instance types and prices")
        .doesNotContain("\n").doesNotContain("\tat ");
    assertThat(run.out()).isEmpty();
  }

  @Test
  void anEndpointThatIsNoUrlIsAUsageError() {
    PlanContractTest.Run run = PlanContractTest.plan("-f", EXAMPLES, "--aws-endpoint", "not-a-url");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("--aws-endpoint: expected a URL");
  }

  @Test
  void aRegionWithoutAnEndpointIsAUsageError() {
    PlanContractTest.Run run = PlanContractTest.plan("-f", EXAMPLES, "--aws-region", "us-west-2");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).contains("--aws-region: only used with --aws-endpoint");
  }
}
