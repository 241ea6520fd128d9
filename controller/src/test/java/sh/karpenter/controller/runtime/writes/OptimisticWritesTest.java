package sh.karpenter.controller.runtime.writes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class OptimisticWritesTest {
  private static KubernetesClientException status(int code) {
    return new KubernetesClientException("status " + code, code, null);
  }

  @Test
  void aConflictIsRetriedOnTheObjectReadAgain() {
    List<String> seen = new ArrayList<>();
    AtomicInteger reads = new AtomicInteger();
    String result = OptimisticWrites.retryOnConflict("v1", current -> {
      seen.add(current);
      if (seen.size() < 3) {
        throw status(409);
      }
      return "written " + current;
    }, () -> "v" + (reads.incrementAndGet() + 1));

    assertThat(seen).containsExactly("v1", "v2", "v3");
    assertThat(result).isEqualTo("written v3");
  }

  @Test
  void theConflictPropagatesAfterTheLastAttempt() {
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> OptimisticWrites.retryOnConflict(() -> {
      attempts.incrementAndGet();
      throw status(409);
    })).satisfies(e -> assertThat(OptimisticWrites.isConflict(e)).isTrue());
    assertThat(attempts).hasValue(OptimisticWrites.ATTEMPTS);
  }

  @Test
  void anyOtherFailurePropagatesAtOnce() {
    AtomicInteger attempts = new AtomicInteger();
    assertThatThrownBy(() -> OptimisticWrites.retryOnConflict(() -> {
      attempts.incrementAndGet();
      throw status(500);
    })).isInstanceOf(KubernetesClientException.class);
    assertThat(attempts).hasValue(1);
  }
}
