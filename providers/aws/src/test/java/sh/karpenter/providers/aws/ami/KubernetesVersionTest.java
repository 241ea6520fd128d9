package sh.karpenter.providers.aws.ami;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

import org.junit.jupiter.api.Test;

class KubernetesVersionTest {

  @Test
  void eksPlusSignIsDropped() {
    assertThat(KubernetesVersion.format("1", "31+")).isEqualTo("1.31");
    assertThat(KubernetesVersion.format("1", "34")).isEqualTo("1.34");
  }

  @Test
  void supportedRangeIsUpstreams() {
    assertThat(KubernetesVersion.validated("1.26")).isEqualTo("1.26");
    assertThat(KubernetesVersion.validated("1.37")).isEqualTo("1.37");
    assertThatIllegalStateException().isThrownBy(() -> KubernetesVersion.validated("1.25"))
        .withMessage("validating kubernetes version, karpenter is not compatible with kubernetes version (version=1.25)");
    assertThatIllegalStateException().isThrownBy(() -> KubernetesVersion.validated("1.38"));
    assertThatIllegalStateException().isThrownBy(() -> KubernetesVersion.validated("1.x")).withMessageContaining("cannot read version \"1.x\"");
  }
}
