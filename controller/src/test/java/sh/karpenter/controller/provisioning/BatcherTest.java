package sh.karpenter.controller.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;

class BatcherTest {
  private final TestingClock clock = new TestingClock();
  private final Batcher batcher = new Batcher(clock, Duration.ofSeconds(1), Duration.ofSeconds(10));

  @Test
  void returnsFalseWhenNoWindowOpens() throws Exception {
    assertThat(batcher.waitForBatch()).isFalse();
  }

  @Test
  void returnsTheBatchOnceTheWindowIsDue() throws Exception {
    batcher.trigger("a");
    clock.step(Duration.ofSeconds(1));

    assertThat(batcher.waitForBatch()).isTrue();
    assertThat(batcher.waitForBatch()).as("the window was taken").isFalse();
  }

  @Test
  void waitsForTheClockWhileTheWindowIsOpen() throws Exception {
    batcher.trigger("a");
    CompletableFuture<Boolean> waiting = CompletableFuture.supplyAsync(() -> {
      try {
        return batcher.waitForBatch();
      } catch (InterruptedException e) {
        throw new IllegalStateException(e);
      }
    });
    Thread.sleep(300); // the waiter is blocked: the testing clock has not moved
    assertThat(waiting).isNotDone();

    clock.step(Duration.ofSeconds(1));

    assertThat(waiting.get(30, TimeUnit.SECONDS)).isTrue();
  }
}
