package sh.karpenter.testkit.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** Without moto installed, emulator tests skip on a developer's machine and fail under CI. */
class AwsEmulatorUnavailableTest {

  @Test
  void withoutCiTheTestIsSkipped() {
    assertThat(AwsEmulator.unavailable("moto is not installed", Map.of()))
        .isInstanceOf(TestAbortedException.class)
        .hasMessage("AWS emulator (moto) unavailable, skipping (with CI=true this fails instead): moto is not installed");
  }

  @Test
  void underCiTheTestFails() {
    assertThat(AwsEmulator.unavailable("moto is not installed", Map.of("CI", "true")))
        .isInstanceOf(IllegalStateException.class)
        .isNotInstanceOf(TestAbortedException.class)
        .hasMessage("AWS emulator (moto) unavailable, and CI=true, so this test fails instead of skipping: moto is not installed");
  }

  @Test
  void theEndpointIsReadFromTheEnvFile() {
    String env = "export AWS_ENDPOINT_URL=http://127.0.0.1:20526\nexport AWS_REGION=us-west-2\n";
    assertThat(AwsEmulator.endpoint(env)).isEqualTo(URI.create("http://127.0.0.1:20526"));
    assertThatThrownBy(() -> AwsEmulator.endpoint("export AWS_REGION=us-west-2\n")).hasMessageContaining("no AWS_ENDPOINT_URL line");
  }
}
