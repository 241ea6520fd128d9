package sh.karpenter.core.disruption;

import java.util.List;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;

/**
 * A node that may be disrupted now (upstream's {@code Candidate}).
 *
 * @param instanceType the node's instance type in its NodePool's catalogue
 * @param offering the offering it runs on (zone and capacity type); its price is the node's price
 * @param disruptionCost Σ eviction cost × fraction of lifetime left (§5.3)
 */
public record Candidate(StateNode state, PoolPolicy pool, InstanceType instanceType, Offering offering, double disruptionCost) {
  public String name() {
    return state.name();
  }

  public String nodeClaimName() {
    return state.nodeClaimName();
  }

  public String nodePoolName() {
    return state.nodePoolName();
  }

  public double price() {
    return offering.price();
  }

  public List<Pod> reschedulablePods() {
    return state.reschedulablePods();
  }
}
