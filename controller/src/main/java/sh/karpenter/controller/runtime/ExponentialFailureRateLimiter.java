package sh.karpenter.controller.runtime;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/**
 * Per-key exponential backoff (client-go's {@code ItemExponentialFailureRateLimiter}): the n-th
 * retry of a key waits {@code base × 2^n}, capped at {@code max}.
 */
public final class ExponentialFailureRateLimiter<K> implements RateLimiter<K> {
  private final Duration base;
  private final Duration max;
  private final Map<K, Integer> failures = new HashMap<>();

  public ExponentialFailureRateLimiter(Duration base, Duration max) {
    if (base.isNegative() || base.isZero() || max.compareTo(base) < 0) {
      throw new IllegalArgumentException("need 0 < base <= max, got base " + base + ", max " + max);
    }
    this.base = base;
    this.max = max;
  }

  @Override
  public synchronized Duration when(K key) {
    int exponent = failures.merge(key, 1, Integer::sum) - 1;
    return backoff(exponent);
  }

  /** The delay of the {@code exponent}-th retry (0 = first): {@code base × 2^exponent}, capped. */
  public Duration backoff(int exponent) {
    if (exponent >= 62) {
      return max;
    }
    long nanos = base.toNanos();
    long factor = 1L << exponent;
    if (nanos > max.toNanos() / factor) {
      return max;
    }
    Duration delay = Duration.ofNanos(nanos * factor);
    return delay.compareTo(max) > 0 ? max : delay;
  }

  @Override
  public synchronized void forget(K key) {
    failures.remove(key);
  }

  @Override
  public synchronized int retries(K key) {
    return failures.getOrDefault(key, 0);
  }
}
