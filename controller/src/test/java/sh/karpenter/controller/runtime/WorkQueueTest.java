package sh.karpenter.controller.runtime;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;

class WorkQueueTest {
  private final TestingClock clock = new TestingClock();
  private final List<Integer> depths = new CopyOnWriteArrayList<>();
  private final WorkQueue<String> queue =
      new WorkQueue<>("test", clock, RateLimiter.controllerDefault(clock), depths::add);

  @AfterEach
  void shutDown() {
    queue.shutDown();
  }

  @Test
  void aKeyWaitsOnlyOnce() throws Exception {
    queue.add("a");
    queue.add("a");
    queue.add("b");
    queue.add("a");

    assertThat(queue.depth()).isEqualTo(2);
    assertThat(queue.get()).contains("a");
    assertThat(queue.get()).contains("b");
    assertThat(queue.depth()).isZero();
  }

  @Test
  void aKeyBeingProcessedIsNotHandedOutAgainButIsRequeuedWhenDone() throws Exception {
    queue.add("a");
    assertThat(queue.get()).contains("a");

    queue.add("a");
    queue.add("a");
    assertThat(queue.depth()).isZero();
    assertThat(queue.poll(Duration.ZERO)).isEmpty();

    queue.done("a");
    assertThat(queue.depth()).isEqualTo(1);
    assertThat(queue.get()).contains("a");
    queue.done("a");
    assertThat(queue.depth()).isZero();
  }

  @Test
  void doneWithoutReAddDropsTheKey() throws Exception {
    queue.add("a");
    assertThat(queue.get()).contains("a");
    queue.done("a");
    assertThat(queue.depth()).isZero();
    assertThat(queue.processingCount()).isZero();
  }

  @Test
  void keysAreHandedOutInOrder() throws Exception {
    for (String key : List.of("c", "a", "b")) {
      queue.add(key);
    }
    assertThat(List.of(queue.get().orElseThrow(), queue.get().orElseThrow(), queue.get().orElseThrow()))
        .containsExactly("c", "a", "b");
  }

  @Test
  void neverProcessesAKeyConcurrentlyAndDrainsEveryAdd() throws Exception {
    WorkQueue<Integer> shared = new WorkQueue<>("concurrent");
    Set<Integer> inFlight = ConcurrentHashMap.newKeySet();
    AtomicInteger violations = new AtomicInteger();
    ConcurrentHashMap<Integer, AtomicInteger> processed = new ConcurrentHashMap<>();
    List<Thread> workers = new ArrayList<>();
    for (int w = 0; w < 8; w++) {
      workers.add(Thread.ofVirtual().start(() -> {
        try {
          while (true) {
            Optional<Integer> key = shared.get();
            if (key.isEmpty()) {
              return;
            }
            if (!inFlight.add(key.get())) {
              violations.incrementAndGet();
            }
            Thread.yield();
            processed.computeIfAbsent(key.get(), k -> new AtomicInteger()).incrementAndGet();
            inFlight.remove(key.get());
            shared.done(key.get());
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
      }));
    }
    List<Thread> producers = new ArrayList<>();
    for (int p = 0; p < 4; p++) {
      producers.add(Thread.ofVirtual().start(() -> {
        for (int i = 0; i < 5_000; i++) {
          shared.add(i % 10);
        }
      }));
    }
    for (Thread producer : producers) {
      producer.join();
    }

    await().atMost(30, SECONDS).until(() -> shared.depth() == 0 && shared.processingCount() == 0);
    shared.shutDown();
    for (Thread worker : workers) {
      worker.join();
    }
    assertThat(violations).hasValue(0);
    assertThat(processed.keySet()).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5, 6, 7, 8, 9);
  }

  @Test
  void delayedKeysBecomeReadyInTimeOrder() throws Exception {
    queue.addAfter("c", Duration.ofSeconds(30));
    queue.addAfter("a", Duration.ofSeconds(10));
    queue.addAfter("b", Duration.ofSeconds(20));
    assertThat(queue.depth()).isZero();
    assertThat(queue.waitingCount()).isEqualTo(3);

    clock.step(Duration.ofSeconds(15));
    queue.promoteDue();
    assertThat(queue.depth()).isEqualTo(1);
    assertThat(queue.get()).contains("a");

    clock.step(Duration.ofSeconds(20));
    queue.promoteDue();
    assertThat(queue.get()).contains("b");
    assertThat(queue.get()).contains("c");
    assertThat(queue.waitingCount()).isZero();
  }

  @Test
  void aKeyParkedTwiceKeepsTheEarlierTime() {
    queue.addAfter("a", Duration.ofSeconds(20));
    queue.addAfter("a", Duration.ofSeconds(5));
    queue.addAfter("a", Duration.ofMinutes(1));
    assertThat(queue.readyAt("a")).contains(clock.instant().plusSeconds(5));

    clock.step(Duration.ofSeconds(5));
    queue.promoteDue();
    assertThat(queue.depth()).isEqualTo(1);
    assertThat(queue.waitingCount()).isZero();

    clock.step(Duration.ofMinutes(1));
    queue.promoteDue();
    assertThat(queue.depth()).isEqualTo(1);
  }

  @Test
  void aDueKeyAlreadyQueuedIsNotQueuedTwice() {
    queue.add("a");
    queue.addAfter("a", Duration.ofSeconds(1));
    clock.step(Duration.ofSeconds(1));
    queue.promoteDue();
    assertThat(queue.depth()).isEqualTo(1);
  }

  @Test
  void zeroDelayAddsAtOnce() {
    queue.addAfter("a", Duration.ZERO);
    assertThat(queue.depth()).isEqualTo(1);
  }

  @Test
  void theDelayThreadReleasesKeysOnTheSystemClock() throws Exception {
    try (WorkQueue<String> real = new WorkQueue<>("real")) {
      real.addAfter("a", Duration.ofMillis(20));
      assertThat(real.get()).contains("a");
    }
  }

  @Test
  void rateLimitedAddsParkTheKeyForTheBackoff() {
    queue.addRateLimited("a");
    queue.addRateLimited("a");
    assertThat(queue.numRequeues("a")).isEqualTo(2);
    assertThat(queue.readyAt("a")).contains(clock.instant().plusMillis(5));

    queue.forget("a");
    assertThat(queue.numRequeues("a")).isZero();
  }

  @Test
  void shutDownWakesBlockedGettersAndIgnoresLaterAdds() throws Exception {
    AtomicInteger empties = new AtomicInteger();
    Thread getter = Thread.ofVirtual().start(() -> {
      try {
        if (queue.get().isEmpty()) {
          empties.incrementAndGet();
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    });
    queue.addAfter("later", Duration.ofSeconds(1));
    queue.shutDown();
    getter.join();

    assertThat(empties).hasValue(1);
    queue.add("a");
    assertThat(queue.depth()).isZero();
    assertThat(queue.waitingCount()).isZero();
    assertThat(queue.get()).isEmpty();
  }

  @Test
  void reportsDepthChanges() throws Exception {
    queue.add("a");
    queue.add("b");
    queue.get();
    assertThat(depths).containsExactly(1, 2, 1);
  }

  @Test
  void exponentialBackoffDoublesFromFiveMillisecondsToTheCap() {
    ExponentialFailureRateLimiter<String> limiter =
        new ExponentialFailureRateLimiter<>(RateLimiter.DEFAULT_BASE_DELAY, RateLimiter.DEFAULT_MAX_DELAY);

    assertThat(List.of(limiter.when("a"), limiter.when("a"), limiter.when("a"), limiter.when("a")))
        .containsExactly(Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(20), Duration.ofMillis(40));
    assertThat(limiter.when("b")).isEqualTo(Duration.ofMillis(5));
    assertThat(limiter.retries("a")).isEqualTo(4);

    for (int i = 0; i < 100; i++) {
      limiter.when("a");
    }
    assertThat(limiter.when("a")).isEqualTo(Duration.ofSeconds(1000));
    assertThat(limiter.backoff(17)).isEqualTo(Duration.ofMillis(5L << 17));
    assertThat(limiter.backoff(18)).isEqualTo(Duration.ofSeconds(1000)); // 5 ms × 2^18 ≈ 1311 s

    limiter.forget("a");
    assertThat(limiter.when("a")).isEqualTo(Duration.ofMillis(5));
  }

  @Test
  void theDefaultLimiterTakesTheLargerOfBackoffAndTheOverallBucket() {
    RateLimiter<String> limiter = RateLimiter.controllerDefault(clock);
    for (int i = 0; i < 100; i++) {
      assertThat(limiter.when("key-" + i)).isEqualTo(Duration.ofMillis(5)); // burst of 100
    }
    assertThat(limiter.when("key-100")).isEqualTo(Duration.ofMillis(100)); // 10 qps
    assertThat(limiter.when("key-101")).isEqualTo(Duration.ofMillis(200));

    clock.step(Duration.ofSeconds(60));
    assertThat(limiter.when("key-102")).isEqualTo(Duration.ofMillis(5));
  }

  @Test
  void tokenBucketRefillsAtItsRateUpToTheBurst() {
    TokenBucket bucket = new TokenBucket(5, 10, clock);
    for (int i = 0; i < 10; i++) {
      assertThat(bucket.tryAcquire()).isTrue();
    }
    assertThat(bucket.tryAcquire()).isFalse();

    clock.step(Duration.ofMillis(400));
    assertThat(bucket.tryAcquire()).isTrue();
    assertThat(bucket.tryAcquire()).isTrue();
    assertThat(bucket.tryAcquire()).isFalse();

    clock.step(Duration.ofHours(1));
    assertThat(bucket.tokens()).isEqualTo(10);
  }
}
