package sh.karpenter.controller.runtime;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * The longest delay of several limiters (client-go's {@code MaxOfRateLimiter}); every limiter is
 * consulted on each retry so all of them keep count.
 */
public final class MaxOfRateLimiter<K> implements RateLimiter<K> {
  private final List<RateLimiter<K>> limiters;

  @SafeVarargs
  public MaxOfRateLimiter(RateLimiter<K>... limiters) {
    if (limiters.length == 0) {
      throw new IllegalArgumentException("at least one rate limiter");
    }
    List<RateLimiter<K>> copy = new ArrayList<>(limiters.length);
    for (RateLimiter<K> limiter : limiters) {
      copy.add(limiter);
    }
    this.limiters = List.copyOf(copy);
  }

  @Override
  public Duration when(K key) {
    Duration longest = Duration.ZERO;
    for (RateLimiter<K> limiter : limiters) {
      Duration delay = limiter.when(key);
      if (delay.compareTo(longest) > 0) {
        longest = delay;
      }
    }
    return longest;
  }

  @Override
  public void forget(K key) {
    limiters.forEach(limiter -> limiter.forget(key));
  }

  @Override
  public int retries(K key) {
    int most = 0;
    for (RateLimiter<K> limiter : limiters) {
      most = Math.max(most, limiter.retries(key));
    }
    return most;
  }
}
