package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.client.http.BasicBuilder;
import io.fabric8.kubernetes.client.http.HttpRequest;
import io.fabric8.kubernetes.client.http.Interceptor;
import java.time.Clock;
import java.time.Duration;

/**
 * client-go's client-side rate limit ({@code rest.Config} QPS and Burst, {@code --kube-client-qps}
 * and {@code --kube-client-burst}): every request to the API server, a watch's first request
 * included, takes a token from a bucket that refills at {@code qps} per second up to {@code burst},
 * and waits for one when the bucket is empty. fabric8 has no such limit of its own (its
 * {@code maxConcurrentRequests} caps requests in flight, not their rate), so this interceptor adds it.
 * As client-go: a QPS of 0 means 5 and a burst of 0 (or less) means 10; a negative QPS turns the
 * limit off.
 */
public final class ClientRateLimit implements Interceptor {
  /** The interceptor's name in the HTTP client. */
  public static final String NAME = "karpenter-client-rate-limit";

  /** Waits for a while (a test records the waits instead). */
  @FunctionalInterface
  public interface Sleeper {
    void sleep(Duration duration) throws InterruptedException;
  }

  private final TokenBucket bucket;
  private final Sleeper sleeper;

  /**
   * @param qps requests per second, sustained; must be positive
   * @param burst requests at once after a quiet spell; must be positive
   */
  public ClientRateLimit(double qps, int burst) {
    this(qps, burst, Clock.systemUTC(), Thread::sleep);
  }

  ClientRateLimit(double qps, int burst, Clock clock, Sleeper sleeper) {
    this.bucket = new TokenBucket(qps, burst, clock);
    this.sleeper = sleeper;
  }

  /** client-go's {@code DefaultQPS} and {@code DefaultBurst}, for a QPS or burst of 0. */
  static final int DEFAULT_QPS = 5;
  static final int DEFAULT_BURST = 10;

  /**
   * The limit of {@code --kube-client-qps} and {@code --kube-client-burst}, with client-go's meaning
   * of 0; empty for a negative QPS (no limit).
   */
  public static java.util.Optional<ClientRateLimit> of(int qps, int burst) {
    if (qps < 0) {
      return java.util.Optional.empty();
    }
    return java.util.Optional.of(new ClientRateLimit(qps == 0 ? DEFAULT_QPS : qps, burst <= 0 ? DEFAULT_BURST : burst));
  }

  /** Takes a token for the request, and waits until it is due. */
  @Override
  public void before(BasicBuilder builder, HttpRequest request, RequestTags tags) {
    Duration wait = bucket.reserve();
    if (wait.isPositive()) {
      try {
        sleeper.sleep(wait);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
  }
}
