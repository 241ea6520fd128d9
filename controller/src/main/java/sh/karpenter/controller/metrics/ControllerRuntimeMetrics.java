package sh.karpenter.controller.metrics;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.prometheus.client.Histogram;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.controller.runtime.ReconcileObserver;

/**
 * The controller-runtime metrics upstream Karpenter exports for every controller, fed by the
 * runtime's {@link ReconcileObserver} hook: {@code controller_runtime_reconcile_total{controller,
 * result}}, {@code controller_runtime_reconcile_errors_total{controller}}, {@code
 * controller_runtime_reconcile_time_seconds{controller}} and {@code workqueue_depth{name}} (the
 * queue is named after its controller). Uses the simpleclient collectors for exact names, like
 * {@link Metrics}; {@link Metrics#controllerRuntime()} gives the instance sharing its registry.
 */
public final class ControllerRuntimeMetrics implements ReconcileObserver {
  private static final Logger LOG = LoggerFactory.getLogger(ControllerRuntimeMetrics.class);

  /** controller-runtime's reconcile-time buckets, 0.005 s .. 60 s. */
  static final double[] RECONCILE_BUCKETS = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
    1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60
  };

  private final Counter reconcileTotal; // all null for noop()
  private final Counter reconcileErrors;
  private final Histogram reconcileTime;
  private final Gauge workqueueDepth;

  /** Registers the four families in {@code registry}. */
  public ControllerRuntimeMetrics(CollectorRegistry registry) {
    reconcileTotal =
        Counter.build()
            .name("controller_runtime_reconcile_total")
            .help("Total number of reconciliations per controller")
            .labelNames("controller", "result")
            .register(registry);
    reconcileErrors =
        Counter.build()
            .name("controller_runtime_reconcile_errors_total")
            .help("Total number of reconciliation errors per controller")
            .labelNames("controller")
            .register(registry);
    reconcileTime =
        Histogram.build()
            .name("controller_runtime_reconcile_time_seconds")
            .help("Length of time per reconciliation per controller")
            .labelNames("controller")
            .buckets(RECONCILE_BUCKETS)
            .register(registry);
    workqueueDepth =
        Gauge.build()
            .name("workqueue_depth")
            .help("Current depth of workqueue")
            .labelNames("name")
            .register(registry);
  }

  private ControllerRuntimeMetrics() {
    reconcileTotal = null;
    reconcileErrors = null;
    reconcileTime = null;
    workqueueDepth = null;
  }

  /** Records nothing. */
  public static ControllerRuntimeMetrics noop() {
    return new ControllerRuntimeMetrics();
  }

  /** Counts the reconcile as {@code success} or {@code error} and observes its duration. */
  @Override
  public void reconciled(String controller, Duration took, Throwable errorOrNull) {
    if (reconcileTotal == null) return;
    try {
      String name = Metrics.v(controller);
      reconcileTotal.labels(name, errorOrNull == null ? "success" : "error").inc();
      if (errorOrNull != null) reconcileErrors.labels(name).inc();
      if (took != null) reconcileTime.labels(name).observe(Metrics.seconds(took));
    } catch (RuntimeException e) {
      LOG.debug("dropping reconcile metric of {}", controller, e); // the observer must never throw
    }
  }

  @Override
  public void queueDepth(String controller, int depth) {
    if (workqueueDepth == null) return;
    try {
      workqueueDepth.labels(Metrics.v(controller)).set(depth);
    } catch (RuntimeException e) {
      LOG.debug("dropping queue depth metric of {}", controller, e);
    }
  }
}
