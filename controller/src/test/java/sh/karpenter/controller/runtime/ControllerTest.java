package sh.karpenter.controller.runtime;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;

class ControllerTest {
  private final TestingClock clock = new TestingClock();
  private final RecordingObserver observer = new RecordingObserver();

  /** Remembers what the controller reported. */
  static final class RecordingObserver implements ReconcileObserver {
    final List<Throwable> errors = new CopyOnWriteArrayList<>();
    final AtomicInteger reconciles = new AtomicInteger();
    final List<Integer> depths = new CopyOnWriteArrayList<>();

    @Override
    public void reconciled(String controller, Duration took, Throwable errorOrNull) {
      if (errorOrNull != null) {
        errors.add(errorOrNull);
      }
      reconciles.incrementAndGet();
    }

    @Override
    public void queueDepth(String controller, int depth) {
      depths.add(depth);
    }
  }

  @Test
  void requeueAfterParksTheKeyAndResetsItsBackoff() {
    AtomicInteger calls = new AtomicInteger();
    try (Controller<String> controller = new Controller<>("requeue", key -> {
      calls.incrementAndGet();
      return Result.requeueAfter(Duration.ofMinutes(1));
    }, 1, clock, observer)) {
      controller.queue().addRateLimited("a"); // some backoff history to be forgotten
      controller.start();
      clock.step(Duration.ofMillis(5));
      controller.queue().promoteDue();

      await().atMost(10, SECONDS).until(() -> controller.queue().readyAt("a").isPresent());
      assertThat(calls).hasValue(1);
      assertThat(controller.queue().numRequeues("a")).isZero();
      assertThat(controller.queue().readyAt("a")).contains(clock.instant().plus(Duration.ofMinutes(1)));

      clock.step(Duration.ofMinutes(1));
      controller.queue().promoteDue();
      await().atMost(10, SECONDS).until(() -> calls.get() == 2);
    }
  }

  @Test
  void anExceptionRetriesTheKeyWithGrowingBackoffUntilItSucceeds() {
    AtomicInteger calls = new AtomicInteger();
    try (Controller<String> controller = new Controller<>("retry", key -> {
      if (calls.incrementAndGet() <= 2) {
        throw new IllegalStateException("boom " + calls.get());
      }
      return Result.done();
    }, 1, clock, observer)) {
      WorkQueue<String> queue = controller.queue();
      controller.start();
      controller.enqueue("a");

      await().atMost(10, SECONDS).until(() -> queue.readyAt("a").isPresent());
      assertThat(queue.numRequeues("a")).isEqualTo(1);
      assertThat(queue.readyAt("a")).contains(clock.instant().plusMillis(5));

      clock.step(Duration.ofMillis(5));
      queue.promoteDue();
      await().atMost(10, SECONDS).until(() -> queue.numRequeues("a") == 2 && queue.readyAt("a").isPresent());
      assertThat(queue.readyAt("a")).contains(clock.instant().plusMillis(10));

      clock.step(Duration.ofMillis(10));
      queue.promoteDue();
      await().atMost(10, SECONDS).until(() -> observer.reconciles.get() == 3);
      assertThat(calls).hasValue(3);
      assertThat(queue.numRequeues("a")).isZero();
      assertThat(queue.readyAt("a")).isEmpty();
      assertThat(observer.errors).extracting(Throwable::getMessage).containsExactly("boom 1", "boom 2");
    }
  }

  @Test
  void aZeroRequeueCountsAsARetry() {
    AtomicInteger calls = new AtomicInteger();
    try (Controller<String> controller = new Controller<>("zero", key -> {
      calls.incrementAndGet();
      return Result.requeueAfter(Duration.ZERO);
    }, 1, clock, observer)) {
      controller.start();
      controller.enqueue("a");
      await().atMost(10, SECONDS).until(() -> controller.queue().readyAt("a").isPresent());
      assertThat(controller.queue().numRequeues("a")).isEqualTo(1);
      assertThat(calls).hasValue(1);
    }
  }

  @Test
  void keysEnqueuedBeforeStartWaitAndDuplicatesCollapse() {
    AtomicInteger calls = new AtomicInteger();
    try (Controller<String> controller = new Controller<>("before", key -> {
      calls.incrementAndGet();
      return Result.done();
    }, 2, clock, observer)) {
      controller.enqueue("a");
      controller.enqueue("a");
      controller.enqueue("b");
      assertThat(calls).hasValue(0);
      controller.start();
      await().atMost(10, SECONDS).until(() -> observer.reconciles.get() == 2);
      assertThat(calls).hasValue(2);
      assertThat(observer.depths).contains(1, 2);
    }
  }

  @Test
  void manyWorkersNeverReconcileOneKeyTwiceAtOnce() {
    Set<String> inFlight = ConcurrentHashMap.newKeySet();
    AtomicInteger violations = new AtomicInteger();
    AtomicInteger calls = new AtomicInteger();
    try (Controller<String> controller = new Controller<>("serial", key -> {
      if (!inFlight.add(key)) {
        violations.incrementAndGet();
      }
      Thread.yield();
      inFlight.remove(key);
      calls.incrementAndGet();
      return Result.done();
    }, 16, Clock.systemUTC(), observer)) {
      controller.start();
      for (int i = 0; i < 20_000; i++) {
        controller.enqueue("key-" + (i % 7));
      }
      await().atMost(30, SECONDS)
          .until(() -> controller.queue().depth() == 0 && controller.queue().processingCount() == 0);
    }
    assertThat(violations).hasValue(0);
    assertThat(calls.get()).isGreaterThanOrEqualTo(7);
  }

  @Test
  void closeWaitsForInFlightReconcilesAndThenHandsOutNothing() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    AtomicBoolean finished = new AtomicBoolean();
    AtomicInteger calls = new AtomicInteger();
    Controller<String> controller = new Controller<>("graceful", key -> {
      calls.incrementAndGet();
      entered.countDown();
      release.await();
      finished.set(true);
      return Result.done();
    }, 1, clock, observer);
    controller.start();
    controller.enqueue("a");
    entered.await();
    controller.enqueue("b");

    Thread closer = Thread.ofVirtual().start(controller::close);
    await().atMost(10, SECONDS).until(() -> controller.queue().isShuttingDown());
    assertThat(closer.isAlive()).isTrue();
    release.countDown();
    closer.join();

    assertThat(finished).isTrue();
    assertThat(calls).hasValue(1); // "b" was never handed out
    controller.enqueue("c");
    assertThat(controller.queue().depth()).isZero();
  }

  @Test
  void closeInterruptsReconcilesThatOutliveTheTimeout() throws Exception {
    CountDownLatch entered = new CountDownLatch(1);
    AtomicBoolean interrupted = new AtomicBoolean();
    Controller<String> controller = new Controller<>("stuck", key -> {
      entered.countDown();
      try {
        new CountDownLatch(1).await();
      } catch (InterruptedException e) {
        interrupted.set(true);
        throw e;
      }
      return Result.done();
    }, 1, new WorkQueue<>("stuck", clock), observer, clock, Duration.ofMillis(50));
    controller.start();
    controller.enqueue("a");
    entered.await();

    controller.close();
    await().atMost(10, SECONDS).untilTrue(interrupted);
  }

  @Test
  void linearScaleReconcilesMatchesUpstream() {
    assertThat(Controller.linearScaleReconciles(1, 10, 1000)).isEqualTo(10);
    assertThat(Controller.linearScaleReconciles(2, 10, 1000)).isEqualTo(26); // int(990 / 59) + 10
    assertThat(Controller.linearScaleReconciles(30, 1000, 5000)).isEqualTo(2966); // int(4000 / 59 × 29) + 1000
    assertThat(Controller.linearScaleReconciles(60, 10, 1000)).isEqualTo(1000);
    assertThat(Controller.linearScaleReconciles(128, 100, 1000)).isEqualTo(1000);
    assertThat(Controller.linearScaleReconciles(0, 10, 1000)).isEqualTo(10);
  }
}
