package sh.karpenter.controller.runtime;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;

class SingletonLoopTest {
  private final TestingClock clock = new TestingClock();

  @Test
  void triggerWakesAWaitingLoop() {
    AtomicInteger calls = new AtomicInteger();
    try (SingletonLoop loop = new SingletonLoop("trigger", () -> {
      calls.incrementAndGet();
      return Result.requeueAfter(Duration.ofHours(1));
    }, clock, ReconcileObserver.NOOP)) {
      loop.start();
      await().atMost(10, SECONDS).until(() -> loop.runs() == 1);
      assertThat(loop.lastDelay()).isEqualTo(Duration.ofHours(1));

      loop.trigger();
      await().atMost(10, SECONDS).until(() -> loop.runs() == 2);
      assertThat(calls).hasValue(2);
    }
  }

  @Test
  void aTriggerDuringARunMakesTheNextRunStartAtOnce() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicInteger calls = new AtomicInteger();
    try (SingletonLoop loop = new SingletonLoop("trigger-during-run", () -> {
      if (calls.incrementAndGet() == 1) {
        entered.countDown();
        release.await();
      }
      return Result.requeueAfter(Duration.ofHours(1));
    }, clock, ReconcileObserver.NOOP)) {
      loop.start();
      entered.await();
      loop.trigger();
      release.countDown();
      await().atMost(10, SECONDS).until(() -> calls.get() == 2);
    }
  }

  @Test
  void failuresBackOffExponentiallyAndASuccessResetsTheBackoff() {
    record Seen(int failures, Duration delay) {}
    List<Seen> seen = new CopyOnWriteArrayList<>();
    AtomicReference<SingletonLoop> self = new AtomicReference<>();
    List<Throwable> errors = new CopyOnWriteArrayList<>();
    ReconcileObserver observer = new ReconcileObserver() {
      @Override
      public void reconciled(String controller, Duration took, Throwable errorOrNull) {
        if (errorOrNull != null) {
          errors.add(errorOrNull);
        }
      }
    };
    try (SingletonLoop loop = new SingletonLoop("backoff", () -> {
      SingletonLoop me = self.get();
      seen.add(new Seen(me.consecutiveFailures(), me.lastDelay()));
      if (seen.size() <= 3) {
        throw new IllegalStateException("boom");
      }
      return Result.requeueAfter(Duration.ofHours(1));
    }, clock, observer)) {
      self.set(loop);
      loop.start();
      await().atMost(10, SECONDS).until(() -> loop.runs() == 4);

      assertThat(seen).containsExactly(
          new Seen(0, Duration.ZERO),
          new Seen(1, Duration.ofMillis(5)),
          new Seen(2, Duration.ofMillis(10)),
          new Seen(3, Duration.ofMillis(20)));
      assertThat(loop.consecutiveFailures()).isZero();
      assertThat(loop.lastDelay()).isEqualTo(Duration.ofHours(1));
      await().atMost(10, SECONDS).until(() -> errors.size() == 3);
    }
  }

  @Test
  void aDoneResultRunsAgainAtOnceButWithinTheTokenBucket() {
    List<Duration> delaysSeen = new CopyOnWriteArrayList<>();
    AtomicReference<SingletonLoop> self = new AtomicReference<>();
    SingletonLoop loop = new SingletonLoop("done", () -> {
      delaysSeen.add(self.get().lastDelay());
      return Result.done();
    }, clock, ReconcileObserver.NOOP,
        new ExponentialFailureRateLimiter<>(RateLimiter.DEFAULT_BASE_DELAY, RateLimiter.DEFAULT_MAX_DELAY),
        new TokenBucket(10, 3, clock), Duration.ofSeconds(10));
    try (loop) {
      self.set(loop);
      loop.start();
      await().atMost(10, SECONDS).until(() -> delaysSeen.size() >= 5);
    }
    // three runs use the burst; the fourth reserves a token 100 ms ahead at 10 per second
    assertThat(delaysSeen.subList(0, 5)).containsExactly(
        Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ZERO, Duration.ofMillis(100));
  }

  @Test
  void closeStopsAWaitingLoop() {
    AtomicInteger calls = new AtomicInteger();
    SingletonLoop loop = new SingletonLoop("close", () -> {
      calls.incrementAndGet();
      return Result.requeueAfter(Duration.ofHours(1));
    }, clock, ReconcileObserver.NOOP);
    loop.start();
    await().atMost(10, SECONDS).until(() -> calls.get() == 1);
    loop.close();
    loop.trigger();
    loop.start();
    assertThat(calls).hasValue(1);
  }
}
