package sh.karpenter.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import org.junit.jupiter.api.Test;

class ErrorsTest {
  @Test
  void theCausesFollowTheMessageWithoutRepeats() {
    IOException root = new IOException("too many concurrent streams");
    RuntimeException wrapped = new RuntimeException("An error has occurred.", new IOException("too many concurrent streams", root));
    assertThat(Errors.describe(wrapped)).isEqualTo("An error has occurred.: too many concurrent streams");
    assertThat(Errors.describe(new IllegalStateException())).isEqualTo("IllegalStateException");
  }
}
