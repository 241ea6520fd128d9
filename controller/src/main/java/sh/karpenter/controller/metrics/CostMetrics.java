package sh.karpenter.controller.metrics;

import static sh.karpenter.controller.metrics.Metrics.NODEPOOL;
import static sh.karpenter.controller.metrics.Metrics.v;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Gauge;

/**
 * The NodePool cost-gap families, project-only (docs/behaviour/observability.md#nodepool-cost-gap):
 * {@code karpenter_nodepools_cost_current}, {@code karpenter_nodepools_cost_lower_bound} and {@code
 * karpenter_nodepools_cost_gap_ratio}, each labeled {@code nodepool}. Set by the disruption loop's
 * {@code NodePoolCosts}. Part of {@link Metrics} ({@link Metrics#cost()}), in the same registry.
 */
public final class CostMetrics {
  private final Gauge current; // null for noop()
  private final Gauge lowerBound;
  private final Gauge gapRatio;

  CostMetrics(CollectorRegistry registry) {
    if (registry == null) {
      current = null;
      lowerBound = null;
      gapRatio = null;
      return;
    }
    current = Gauge.build().name("karpenter_nodepools_cost_current")
        .help("What the nodes of a nodepool cost per hour: the sum of the offering price of each node's instance type, zone and"
            + " capacity type (not an upstream metric). Labeled by nodepool.")
        .labelNames(NODEPOOL).register(registry);
    lowerBound = Gauge.build().name("karpenter_nodepools_cost_lower_bound")
        .help("A proven lower bound on the hourly cost of any set of new nodes of the nodepool that holds the pods running on it"
            + " (not an upstream metric). Labeled by nodepool.")
        .labelNames(NODEPOOL).register(registry);
    gapRatio = Gauge.build().name("karpenter_nodepools_cost_gap_ratio")
        .help("(current - lower bound) / current: the share of the nodepool's cost a perfect repack could save at most; 0 when it"
            + " costs nothing (not an upstream metric). Labeled by nodepool.")
        .labelNames(NODEPOOL).register(registry);
  }

  /** Sets the three gauges of one NodePool. */
  public void nodePoolCost(String nodePool, double currentPerHour, double lowerBoundPerHour, double gapRatio) {
    if (current == null) return;
    current.labels(v(nodePool)).set(currentPerHour);
    lowerBound.labels(v(nodePool)).set(lowerBoundPerHour);
    this.gapRatio.labels(v(nodePool)).set(gapRatio);
  }

  /** Drops the series of a NodePool that is gone (or no longer has a template). */
  public void nodePoolGone(String nodePool) {
    if (current == null) return;
    current.remove(v(nodePool));
    lowerBound.remove(v(nodePool));
    gapRatio.remove(v(nodePool));
  }
}
