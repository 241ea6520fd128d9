package sh.karpenter.core.disruption;

import java.util.List;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;

/**
 * A node that may be disrupted now (upstream's {@code Candidate}).
 *
 * @param instanceType the node's instance type in its NodePool's catalogue; null when the catalogue no
 *     longer has it (only drift and emptiness act on such a node: consolidation needs its price)
 * @param offering the offering it runs on (zone and capacity type); its price is the node's price;
 *     null when {@code instanceType} is, or when no offering matches the node's zone and capacity type
 * @param disruptionCost Σ eviction cost × fraction of lifetime left
 *     (docs/behaviour/disruption.md#costs)
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

  /** The hourly price of the node's offering; 0 when it is unknown ({@link #priced()} is false). */
  public double price() {
    return offering == null ? 0 : offering.price();
  }

  /** True when the instance type and offering are known, so consolidation can compare prices. */
  public boolean priced() {
    return instanceType != null && offering != null;
  }

  /** The offering's capacity type ({@code spot}, {@code on-demand}, {@code reserved}), or null when unknown. */
  public String capacityType() {
    return offering == null ? null : offering.capacityType();
  }

  /** The candidates' summed hourly price (unknown prices count as 0). */
  public static double totalPrice(List<Candidate> candidates) {
    double price = 0;
    for (Candidate candidate : candidates) {
      price += candidate.price();
    }
    return price;
  }

  public List<Pod> reschedulablePods() {
    return state.reschedulablePods();
  }
}
