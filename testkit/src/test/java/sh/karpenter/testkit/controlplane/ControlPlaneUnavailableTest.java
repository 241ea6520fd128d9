package sh.karpenter.testkit.controlplane;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;
import org.opentest4j.TestAbortedException;

/** Without a control plane, integration tests skip on a developer's machine and fail under CI. */
class ControlPlaneUnavailableTest {

  @Test
  void withoutCiTheTestIsSkipped() {
    assertThat(ControlPlane.unavailable("binaries are not built", Map.of()))
        .isInstanceOf(TestAbortedException.class)
        .hasMessageContaining("skipping")
        .hasMessageContaining("binaries are not built");
    assertThat(ControlPlane.unavailable("binaries are not built", Map.of("CI", "false")))
        .isInstanceOf(TestAbortedException.class);
  }

  @Test
  void underCiTheTestFails() {
    assertThat(ControlPlane.unavailable("binaries are not built", Map.of("CI", "true")))
        .isInstanceOf(IllegalStateException.class)
        .isNotInstanceOf(TestAbortedException.class)
        .hasMessageContaining("CI=true")
        .hasMessageContaining("binaries are not built");
  }
}
