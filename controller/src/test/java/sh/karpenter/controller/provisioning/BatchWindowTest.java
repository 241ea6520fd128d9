package sh.karpenter.controller.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;

class BatchWindowTest {
  private final TestingClock clock = new TestingClock();
  private final BatchWindow window = new BatchWindow(Duration.ofSeconds(1), Duration.ofSeconds(10));

  private Instant now() {
    return clock.instant();
  }

  @Test
  void isClosedUntilTheFirstTrigger() {
    assertThat(window.isOpen()).isFalse();
    assertThat(window.closesAt()).isNull();
    assertThat(window.isDue(now())).isFalse();

    assertThat(window.trigger("a", now())).isTrue();

    assertThat(window.isOpen()).isTrue();
    assertThat(window.trigger("b", now())).isFalse();
  }

  @Test
  void closesAfterTheIdleDurationWithoutNewPods() {
    window.trigger("a", now());

    clock.step(Duration.ofMillis(999));
    assertThat(window.isDue(now())).isFalse();
    clock.step(Duration.ofMillis(1));
    assertThat(window.isDue(now())).isTrue();
  }

  @Test
  void eachNewPodExtendsTheIdleWait() {
    window.trigger("a", now());
    clock.step(Duration.ofMillis(800));
    window.trigger("b", now());
    clock.step(Duration.ofMillis(800));

    assertThat(window.isDue(now())).isFalse();
    assertThat(window.closesAt()).isEqualTo(now().plusMillis(200));
  }

  @Test
  void aPodSeenAgainDoesNotKeepTheWindowOpen() {
    window.trigger("a", now());
    clock.step(Duration.ofMillis(800));
    window.trigger("a", now());
    clock.step(Duration.ofMillis(200));

    assertThat(window.isDue(now())).isTrue();
    assertThat(window.size()).isEqualTo(1);
  }

  @Test
  void closesAtTheMaximumDurationHoweverBusy() {
    window.trigger("pod-0", now());
    for (int i = 1; i < 20; i++) {
      clock.step(Duration.ofMillis(500));
      window.trigger("pod-" + i, now());
      assertThat(window.isDue(now())).as("after %d ms", i * 500).isFalse();
    }
    clock.step(Duration.ofMillis(500)); // 10 s after opening, 500 ms after the last new pod
    assertThat(window.isDue(now())).isTrue();
    assertThat(window.size()).isEqualTo(20);
  }

  @Test
  void resetClosesTheWindowAndForgetsItsPods() {
    window.trigger("a", now());
    window.reset();

    assertThat(window.isOpen()).isFalse();
    assertThat(window.size()).isZero();
    assertThat(window.trigger("a", now())).isTrue();
  }
}
