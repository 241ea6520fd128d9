package sh.karpenter.benchmarks;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.NodeClaimTemplate;

/**
 * A reference plan computed in the same run as the scheduler's, for the unconstrained cost mixes:
 * the cheapest fleet of one instance type, packed first-fit decreasing (pods by CPU, then memory).
 * It is an achievable plan (an upper bound on the optimum), so together with the lower bound it
 * brackets what a scheduler can reach, and a plan far above it is a packing or type-selection
 * problem rather than a loose bound. Only for pods without node constraints, like {@link
 * CostComparison}.
 *
 * @param instanceType the type of the cheapest fleet
 * @param nodes nodes in that fleet
 * @param perHour the fleet's hourly cost
 */
record SingleTypeFleet(String instanceType, int nodes, double perHour) {

  /** The cheapest single-type fleet for {@code pods} among the types {@code nodePool} allows. */
  static SingleTypeFleet cheapest(NodeClaimTemplate nodePool, List<Pod> pods) {
    Requirements requirements = nodePool.requirements();
    List<Resources> requests = new ArrayList<>(pods.size());
    pods.forEach(pod -> requests.add(pod.requests()));
    requests.sort(Comparator.comparingLong(Resources::cpuMilli).thenComparingLong(Resources::memoryMilli).reversed());
    SingleTypeFleet best = new SingleTypeFleet("none", 0, Double.POSITIVE_INFINITY);
    for (InstanceType type : InstanceTypes.compatible(nodePool.instanceTypes(), requirements)) {
      double price = type.cheapestPrice(requirements);
      int nodes = firstFitDecreasing(requests, type.allocatable(), (int) Math.floor(best.perHour() / price));
      if (nodes >= 0 && nodes * price < best.perHour()) {
        best = new SingleTypeFleet(type.name(), nodes, nodes * price);
      }
    }
    return best;
  }

  /**
   * Nodes of {@code allocatable} needed to hold {@code sortedRequests} first-fit, or -1 when a pod
   * fits no node or more than {@code maxNodes} are needed (the fleet is already dearer than the best).
   */
  private static int firstFitDecreasing(List<Resources> sortedRequests, Resources allocatable, int maxNodes) {
    List<Resources> used = new ArrayList<>();
    for (Resources request : sortedRequests) {
      if (!request.fits(allocatable)) {
        return -1;
      }
      int node = 0;
      while (node < used.size() && !used.get(node).plus(request).fits(allocatable)) {
        node++;
      }
      if (node == used.size()) {
        if (used.size() == maxNodes) {
          return -1;
        }
        used.add(request);
      } else {
        used.set(node, used.get(node).plus(request));
      }
    }
    return used.size();
  }
}
