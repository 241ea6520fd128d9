package sh.karpenter.controller.runtime;

import java.time.Duration;

/**
 * An overall limit shared by every key (client-go's {@code BucketRateLimiter}): each retry reserves
 * one token and waits until it is available. Keys have no history, so {@link #forget} does nothing.
 */
public final class BucketRateLimiter<K> implements RateLimiter<K> {
  private final TokenBucket bucket;

  public BucketRateLimiter(TokenBucket bucket) {
    this.bucket = bucket;
  }

  @Override
  public Duration when(K key) {
    return bucket.reserve();
  }

  @Override
  public void forget(K key) {}

  @Override
  public int retries(K key) {
    return 0;
  }
}
