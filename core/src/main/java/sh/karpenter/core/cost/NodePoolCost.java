package sh.karpenter.core.cost;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.wellknown.Labels;

/**
 * How far one NodePool is from the cheapest capacity its pods could run on
 * (docs/behaviour/cost-lower-bound.md#nodepool-cost-gap): what its nodes cost now, and the proven
 * {@link LowerBound} on the cost of any set of new nodes of the pool that holds the pods running on
 * them.
 *
 * <p>The current cost is the sum over the pool's nodes of the price of the offering each runs on,
 * found from its instance type, zone, capacity type and reservation labels among the instance types
 * the cloud provider gives the pool ({@link InstanceType#nodeOffering}, as disruption prices its
 * candidates); a node whose labels name no such offering (an instance type the pool no longer offers,
 * an in-flight NodeClaim not launched yet) counts as {@link #unpricedNodes() unpriced} and adds 0.
 *
 * <p>The bound is {@link SchedulingLowerBound} with the pool's template as the only template and no
 * existing nodes, over the pods bound to the pool's nodes except DaemonSet pods (their requests
 * enter as overhead on every offering they certainly run on, from {@code daemonSetPods}). So it is
 * what the pods would cost at the least if the pool were built again from nothing with the
 * offerings launchable now; pods no offering of the pool can hold are left out of it.
 *
 * @param nodePoolName the pool
 * @param currentPerHour what the pool's priced nodes cost, USD per hour
 * @param nodes the pool's nodes
 * @param unpricedNodes nodes whose offering could not be found (they add 0 to {@code currentPerHour})
 * @param pods the non-DaemonSet pods on them, the pods the bound is for
 * @param lowerBound the bound on the cost of those pods
 */
public record NodePoolCost(String nodePoolName, double currentPerHour, int nodes, int unpricedNodes, int pods, LowerBound lowerBound) {

  /**
   * What share of the current cost a perfect repack could save at most: {@code (current − bound) /
   * current}; 0 when the pool costs nothing. Negative when the pool runs on capacity cheaper than
   * anything it could launch now (an offering since withdrawn or repriced, or a type the pool no
   * longer allows).
   */
  public double gapRatio() {
    return currentPerHour <= 0 ? 0 : (currentPerHour - lowerBound.perHour()) / currentPerHour;
  }

  /**
   * The cost and bound of one pool.
   *
   * @param template the pool's template with the instance types the cloud provider gives it
   * @param nodes the pool's nodes (callers pass those whose {@link ExistingNode#nodePoolName()} is
   *     the template's pool)
   * @param daemonSetPods one pod per DaemonSet, as the scheduler sees them
   * @param budget the work the bound may spend ({@link BoundBudget})
   */
  public static NodePoolCost of(NodeClaimTemplate template, List<ExistingNode> nodes, List<Pod> daemonSetPods, BoundBudget budget) {
    Map<String, InstanceType> types = new HashMap<>();
    for (InstanceType type : template.instanceTypes()) {
      types.put(type.name(), type);
    }
    double current = 0;
    int unpriced = 0;
    List<Pod> pods = new ArrayList<>();
    for (ExistingNode node : nodes) {
      double price = price(types.get(node.labels().get(Labels.INSTANCE_TYPE)), node.labels());
      if (price < 0) {
        unpriced++;
      } else {
        current += price;
      }
      for (Pod pod : node.pods()) {
        if (!pod.isOwnedByDaemonSet()) {
          pods.add(pod);
        }
      }
    }
    SchedulingInput input = new SchedulingInput(List.of(template), List.of(), List.of(), daemonSetPods, null, SchedulerOptions.DEFAULT);
    LowerBound bound = SchedulingLowerBound.of(input, pods, budget);
    return new NodePoolCost(template.nodePoolName(), current, nodes.size(), unpriced, pods.size(), bound);
  }

  /** The node's offering price, or -1 when its instance type or offering is unknown. */
  private static double price(InstanceType type, Map<String, String> labels) {
    Offering offering = type == null ? null : type.nodeOffering(labels);
    return offering == null ? -1 : offering.price();
  }

  /**
   * What {@link #of} depends on, comparable with {@code equals}: the pool's name and template
   * (requirements, taints, every instance type's allocatable and every offering's price and
   * launchability), each node's name, offering labels and pods (key and requests), and the DaemonSet
   * pods. Equal keys give the same result, so a caller recomputes only when the key changes.
   */
  public static List<Object> inputKey(NodeClaimTemplate template, List<ExistingNode> nodes, List<Pod> daemonSetPods) {
    List<Object> key = new ArrayList<>();
    key.add(template.nodePoolName());
    key.add(template.requirements().toString());
    key.add(template.taints());
    for (InstanceType type : template.instanceTypes()) {
      key.add(type.name());
      key.add(type.allocatable());
      for (Offering offering : type.offerings()) {
        key.add(offering.zone());
        key.add(offering.capacityType());
        key.add(offering.reservationId());
        key.add(offering.price());
        key.add(offering.launchable());
      }
    }
    for (ExistingNode node : nodes) {
      key.add(node.name());
      key.add(node.labels().get(Labels.INSTANCE_TYPE));
      key.add(node.labels().get(Labels.ZONE));
      key.add(node.labels().get(Labels.CAPACITY_TYPE));
      key.add(node.labels().get(Labels.RESERVATION_ID));
      for (Pod pod : node.pods()) {
        key.add(pod.key());
        key.add(pod.requests());
      }
    }
    for (Pod pod : daemonSetPods) {
      key.add(pod.key());
      key.add(pod.requests());
    }
    return key;
  }
}
