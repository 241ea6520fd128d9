package sh.karpenter.core.disruption;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.wellknown.Annotations;

/**
 * What disrupting a node costs (docs/behaviour/disruption.md#costs, upstream pkg/utils/disruption):
 * the eviction cost of each pod, a candidate's disruption cost scaled by the lifetime it has left,
 * the reschedule cost that orders consolidation candidates and decides emptiness, and the savings
 * ratio.
 */
public final class Costs {

  /** What disrupting a node costs before any pod: cordon, drain and a replacement's start-up. */
  public static final double PER_NODE_BASE_COST = 1.0;

  private static final double DELETION_COST_SCALE = Math.pow(2, 27);
  private static final double PRIORITY_SCALE = Math.pow(2, 25);

  private Costs() {}

  /**
   * {@code clamp(1 + cost / 2^27 + priority / 2^25, −10, 10)}: a pod with a high cost or priority is
   * dearer to evict. The cost is {@code karpenter.sh/disruption-cost} when the pod has it, else {@code
   * controller.kubernetes.io/pod-deletion-cost} (upstream v1.15's {@code EvictionCost} with the
   * PodDeletionCostManagement gate off); either must be a decimal int32, and one that does not parse counts
   * as 0 (upstream logs it).
   */
  public static double evictionCost(Pod pod) {
    double cost = 1.0;
    String annotated = pod.annotations().get(Annotations.DISRUPTION_COST);
    if (annotated == null) {
      annotated = pod.annotations().get(Annotations.POD_DELETION_COST);
    }
    if (annotated != null) {
      try {
        cost += Integer.parseInt(annotated) / DELETION_COST_SCALE;
      } catch (NumberFormatException e) {
        // upstream logs and ignores a cost that is not an int32
      }
    }
    cost += pod.priority() / PRIORITY_SCALE;
    return Math.max(-10.0, Math.min(10.0, cost));
  }

  /**
   * The fraction of the node's {@code expireAfter} still left at {@code now}, in [0, 1]; 1 when it
   * never expires.
   */
  public static double lifetimeRemaining(StateNode node, Instant now) {
    Duration expireAfter = node.expireAfter();
    if (expireAfter == null || node.createdAt() == null || expireAfter.isZero() || expireAfter.isNegative()) {
      return 1.0;
    }
    double total = expireAfter.toMillis();
    double age = Duration.between(node.createdAt(), now).toMillis();
    return Math.max(0.0, Math.min(1.0, (total - age) / total));
  }

  /** A candidate's disruption cost: Σ eviction cost of its reschedulable pods × lifetime remaining. */
  public static double disruptionCost(StateNode node, Instant now) {
    double cost = 0;
    for (Pod pod : node.reschedulablePods()) {
      cost += evictionCost(pod);
    }
    return cost * lifetimeRemaining(node, now);
  }

  /** {@code 1 + Σ max(0, eviction cost)} over the pods that would be rescheduled; never below 1. */
  public static double rescheduleDisruptionCost(Collection<Pod> pods) {
    double cost = PER_NODE_BASE_COST;
    for (Pod pod : pods) {
      cost += Math.max(0, evictionCost(pod));
    }
    return cost;
  }

  /** A node is empty when rescheduling its pods costs nothing beyond the per-node base. */
  public static boolean isEmpty(Collection<Pod> reschedulablePods) {
    return rescheduleDisruptionCost(reschedulablePods) <= PER_NODE_BASE_COST;
  }

  /** {@code price / rescheduleDisruptionCost}: the saving per unit of disruption; higher goes first. */
  public static double savingsRatio(double price, double rescheduleDisruptionCost) {
    return price / rescheduleDisruptionCost;
  }
}
