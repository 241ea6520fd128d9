package sh.karpenter.providers.aws.interruption;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.providers.aws.instancestatus.Category;

/**
 * Upstream's {@code InstanceStatusUnhealthy} (AWS provider {@code controllers/interruption/metrics.go}):
 * {@value #UNHEALTHY}{@code {category}}, registered in the Operator's registry. Records nothing with
 * {@link Metrics#noop()}.
 */
public final class InstanceStatusMetrics {
  public static final String UNHEALTHY = "karpenter_interruption_instance_status_unhealthy_total";
  static final String CATEGORY = "category";

  private final Counter unhealthy;

  public InstanceStatusMetrics(Metrics metrics) {
    CollectorRegistry registry = metrics.registry().orElse(null);
    unhealthy = registry == null ? null : Counter.build().name(UNHEALTHY)
        .help("Count of unique unhealthy instance statuses detected from EC2 DescribeInstanceStatus. Broken down by status check category.")
        .labelNames(CATEGORY).register(registry);
  }

  /** An instance newly seen unhealthy in this category. */
  void unhealthy(Category category) {
    if (unhealthy != null) {
      unhealthy.labels(category.value()).inc();
    }
  }
}
