package sh.karpenter.controller.metrics;

import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.runtime.NodeClaims;

/**
 * The labels upstream v1.15 puts on {@code karpenter_nodeclaims_disrupted_total} and {@code
 * karpenter_pods_disruption_initiated_total}: why the NodeClaim was disrupted, its NodePool and
 * capacity type, the NodePool's consolidation policy (snake case, and only when consolidation
 * disrupted it, else "") and how its node terminates ({@link #GRACEFUL}, {@link #EVENTUAL} or {@link
 * #FORCEFUL}, from its {@code terminationGracePeriod}).
 *
 * @param reason e.g. {@code underutilized}, {@code drifted}, {@code expired}, {@code insufficient_capacity}
 */
public record DisruptionLabels(
    String reason, String nodePool, String capacityType, String consolidationPolicy, String terminationMode) {
  /** Without a {@code terminationGracePeriod}: the drain respects PDBs and {@code do-not-disrupt}. */
  public static final String GRACEFUL = "graceful";
  /** A positive {@code terminationGracePeriod} bounds the drain. */
  public static final String EVENTUAL = "eventual";
  /** A {@code terminationGracePeriod} of zero: terminated at once. */
  public static final String FORCEFUL = "forceful";

  /**
   * The labels for a NodeClaim disrupted for {@code reason} outside consolidation (expiry, garbage
   * collection, a failed launch or registration): no consolidation policy.
   */
  public static DisruptionLabels of(NodeClaim nodeClaim, String reason) {
    return new DisruptionLabels(reason, NodeClaims.nodePool(nodeClaim), NodeClaims.capacityType(nodeClaim), "", terminationMode(nodeClaim));
  }

  /**
   * How the NodeClaim's node terminates (upstream's {@code DisruptionTerminationMode}): {@link
   * #GRACEFUL} without a {@code terminationGracePeriod}, {@link #FORCEFUL} with one of zero, else
   * {@link #EVENTUAL}.
   */
  public static String terminationMode(NodeClaim nodeClaim) {
    GoDuration gracePeriod = nodeClaim == null || nodeClaim.getSpec() == null ? null : nodeClaim.getSpec().getTerminationGracePeriod();
    if (gracePeriod == null) {
      return GRACEFUL;
    }
    return gracePeriod.duration().isPositive() ? EVENTUAL : FORCEFUL;
  }

  String[] values() {
    return new String[] {
      Metrics.v(reason), Metrics.v(nodePool), Metrics.v(capacityType), Metrics.v(consolidationPolicy), Metrics.v(terminationMode)
    };
  }
}
