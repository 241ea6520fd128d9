package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;

/**
 * How the controller talks to the API server: the client-side rate limit ({@link ClientRateLimit}),
 * optionally a count of its requests ({@link ApiRequests}), three retries of a failed request, and HTTP/1.1.
 *
 * <p>Why HTTP/1.1: the API server allows 100 concurrent streams on one HTTP/2 connection, and the
 * JDK's HTTP client, unlike Go's, fails a request beyond that ("too many concurrent streams") instead
 * of waiting or opening a second connection. A burst of hundreds of NodeClaims (their creates, status
 * writes and launches in parallel) next to a dozen long-lived watches passes 100, so requests failed
 * under load. Over HTTP/1.1 the client keeps a pool of connections and each request has one to itself.
 */
public final class ControllerClient {
  /** Retries of a request that failed with an I/O error or a retriable status. */
  static final int RETRIES = 3;

  private ControllerClient() {}

  /** A builder of the controller's client on {@code config} (not changed), limited to {@code qps} and {@code burst}. */
  public static KubernetesClientBuilder builder(Config config, int qps, int burst) {
    return builder(config, qps, burst, ApiRequestObserver.NOOP);
  }

  /**
   * {@link #builder(Config, int, int)} whose client also tells {@code requests} about every request it
   * sends ({@link ApiRequests}; the metrics' {@code apiRequests()}).
   */
  public static KubernetesClientBuilder builder(Config config, int qps, int burst, ApiRequestObserver requests) {
    Config controller = new ConfigBuilder(config).withHttp2Disable(true).withRequestRetryBackoffLimit(RETRIES).build();
    var limit = ClientRateLimit.of(qps, burst);
    // one consumer: the builder keeps only the last one it is given
    return new KubernetesClientBuilder().withConfig(controller).withHttpClientBuilderConsumer(http -> {
      limit.ifPresent(l -> http.addOrReplaceInterceptor(ClientRateLimit.NAME, l));
      if (requests != ApiRequestObserver.NOOP) {
        http.addOrReplaceInterceptor(ApiRequests.NAME, new ApiRequests(requests));
      }
    });
  }
}
