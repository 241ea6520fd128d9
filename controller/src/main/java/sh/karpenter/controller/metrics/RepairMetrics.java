package sh.karpenter.controller.metrics;

import static sh.karpenter.controller.metrics.Metrics.CAPACITY_TYPE;
import static sh.karpenter.controller.metrics.Metrics.NODEPOOL;
import static sh.karpenter.controller.metrics.Metrics.TERMINATION_MODE;
import static sh.karpenter.controller.metrics.Metrics.v;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * Node repair's family under upstream v1.15's name (docs/behaviour/observability.md#metrics): {@code
 * karpenter_nodeclaims_unhealthy_disrupted_total{condition, nodepool, capacity_type, image_id,
 * termination_mode}}, counted when a repair command deletes its candidate. Part of {@link Metrics}
 * ({@link Metrics#repair()}), in the same registry.
 */
public final class RepairMetrics {
  private final Counter unhealthyDisrupted; // null for noop()

  RepairMetrics(CollectorRegistry registry) {
    unhealthyDisrupted = registry == null ? null : Counter.build().name("karpenter_nodeclaims_unhealthy_disrupted_total")
        .help("Number of unhealthy nodeclaims disrupted in total by node repair. Labeled by the condition the node was disrupted on,"
            + " the owning nodepool, the capacity type, the image ID, and the termination mode.")
        .labelNames("condition", NODEPOOL, CAPACITY_TYPE, "image_id", TERMINATION_MODE).register(registry);
  }

  /**
   * One NodeClaim deleted by node repair.
   *
   * @param condition the Node condition type repair acted on, e.g. {@code Ready}; reported in snake case
   *     ({@code ready}, {@code accelerated_hardware_ready}) as upstream
   */
  public void unhealthyDisrupted(String condition, String nodePool, String capacityType, String imageId, String terminationMode) {
    if (unhealthyDisrupted != null) {
      unhealthyDisrupted.labels(snakeCase(condition), v(nodePool), v(capacityType), v(imageId), v(terminationMode)).inc();
    }
  }

  private static final Pattern FIRST_CAP = Pattern.compile("(.)([A-Z][a-z]+)");
  private static final Pattern ALL_CAP = Pattern.compile("([a-z0-9])([A-Z])");

  /** Upstream's {@code pretty.ToSnakeCase}: {@code AcceleratedHardwareReady} → {@code accelerated_hardware_ready}. */
  static String snakeCase(String name) {
    if (name == null) {
      return "";
    }
    String snake = FIRST_CAP.matcher(name).replaceAll("$1_$2");
    snake = ALL_CAP.matcher(snake).replaceAll("$1_$2");
    return snake.toLowerCase(Locale.ROOT);
  }
}
