package sh.karpenter.benchmarks;

import sh.karpenter.core.cost.LowerBound;
import sh.karpenter.core.cost.SchedulingLowerBound;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;

/**
 * A plan's hourly cost next to the proven lower bound for the same pods, for the unconstrained cost
 * mixes. Every available offering the NodePools allow is a candidate, at the type's allocatable (the
 * benchmark clusters have no DaemonSets), and every pod may use every candidate it fits: that holds
 * only for pods without node selectors, affinity or tolerations, which is what the cost mixes are.
 *
 * @param planPerHour sum of the planned NodeClaims' prices
 * @param lowerBound the bound over the scheduled pods
 * @param singleTypeFleet an achievable reference plan for the same pods on the first NodePool (the
 *     cost clusters have one), computed in the same run; null for the constrained clusters, whose
 *     pods cannot all use one pool's types
 */
record CostComparison(double planPerHour, LowerBound lowerBound, SingleTypeFleet singleTypeFleet) {

  /** Plan cost over the bound: 1.0 is optimal; 1.05 is the target's edge. */
  double ratio() {
    return planPerHour / lowerBound.perHour();
  }

  static CostComparison of(SchedulingInput input, SchedulingResult result) {
    LowerBound bound = SchedulingLowerBound.of(input, result.placedPods());
    return new CostComparison(
        planPerHour(result), bound, SingleTypeFleet.cheapest(input.templates().getFirst(), input.pendingPods()));
  }

  /**
   * The plan's cost against the bound without the single-type fleet: for clusters of several
   * NodePools, existing nodes or constrained pods. The bound ({@code SchedulingLowerBound}) honours
   * taints, node selectors and the existing nodes' free capacity but relaxes topology, pod affinity,
   * volumes and limits.
   */
  static CostComparison withoutFleet(SchedulingInput input, SchedulingResult result) {
    return new CostComparison(planPerHour(result), SchedulingLowerBound.of(input, result.placedPods()), null);
  }

  /** A plan's hourly cost: the sum of its new NodeClaims' prices (each its cheapest offering). */
  static double planPerHour(SchedulingResult result) {
    double planPerHour = 0;
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      planPerHour += claim.price();
    }
    return planPerHour;
  }
}
