package sh.karpenter.controller.runtime;

import java.time.Clock;
import java.time.Duration;

/**
 * Decides how long a key waits before it is retried (client-go's {@code workqueue.RateLimiter}).
 * {@link #when} is called once per retry and counts it; {@link #forget} clears a key's history once
 * it has been reconciled successfully.
 */
public interface RateLimiter<K> {
  /** Upstream's per-key backoff start: 5 ms, doubling per failure. */
  Duration DEFAULT_BASE_DELAY = Duration.ofMillis(5);
  /** Upstream's per-key backoff cap: 1000 s. */
  Duration DEFAULT_MAX_DELAY = Duration.ofSeconds(1000);
  /** controller-runtime's overall limit: 10 qps. */
  double DEFAULT_QPS = 10;
  /** controller-runtime's overall burst: 100. */
  int DEFAULT_BURST = 100;

  /** The delay before {@code key} may be handed out again; records one more retry. */
  Duration when(K key);

  /** Clears {@code key}'s retry history. */
  void forget(K key);

  /** Retries recorded for {@code key} since it was last forgotten. */
  int retries(K key);

  /**
   * controller-runtime's default controller rate limiter: the larger of a per-key exponential
   * backoff (5 ms doubling to 1000 s) and an overall token bucket (10 qps, burst 100).
   */
  static <K> RateLimiter<K> controllerDefault(Clock clock) {
    return new MaxOfRateLimiter<>(
        new ExponentialFailureRateLimiter<>(DEFAULT_BASE_DELAY, DEFAULT_MAX_DELAY),
        new BucketRateLimiter<>(new TokenBucket(DEFAULT_QPS, DEFAULT_BURST, clock)));
  }
}
