package sh.karpenter.controller.metrics;

import static sh.karpenter.controller.metrics.Metrics.v;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import sh.karpenter.controller.runtime.ApiRequestObserver;

/**
 * The API load the controller puts on kube-apiserver, project-only
 * (docs/behaviour/observability.md#project-families): {@code
 * karpenter_kube_client_requests_total{verb, resource}}, every request the controller's client sends
 * (each retry too), fed by the client's {@code ApiRequests} interceptor. Part of {@link Metrics}
 * ({@link Metrics#apiRequests()}), in the same registry.
 */
public final class ApiRequestMetrics implements ApiRequestObserver {
  /** The family's name. */
  public static final String REQUESTS_TOTAL = "karpenter_kube_client_requests_total";

  private final Counter requests; // null for noop()

  ApiRequestMetrics(CollectorRegistry registry) {
    requests = registry == null ? null : Counter.build().name(REQUESTS_TOTAL)
        .help("Requests the controller sent to the Kubernetes API server, each retry counted (not an upstream metric)."
            + " Labeled by the API server's verb and the resource, with its subresource after a slash.")
        .labelNames("verb", "resource").register(registry);
  }

  @Override
  public void requested(String verb, String resource) {
    if (requests == null) return;
    requests.labels(v(verb), v(resource)).inc();
  }
}
