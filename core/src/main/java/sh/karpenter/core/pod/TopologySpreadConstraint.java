package sh.karpenter.core.pod;

import java.util.List;
import java.util.Objects;
import sh.karpenter.core.requirements.LabelSelector;

/**
 * A pod topology spread constraint, with Kubernetes' defaults applied: whenUnsatisfiable
 * DoNotSchedule, nodeAffinityPolicy Honor, nodeTaintsPolicy Ignore.
 *
 * @param selector the pods counted ({@link LabelSelector#NOTHING} when absent)
 * @param minDomains the minimum number of eligible domains, or null
 * @param matchLabelKeys pod label keys whose values (from the incoming pod) are ANDed into the selector
 */
public record TopologySpreadConstraint(
    int maxSkew,
    String topologyKey,
    WhenUnsatisfiable whenUnsatisfiable,
    LabelSelector selector,
    Integer minDomains,
    NodeInclusionPolicy nodeAffinityPolicy,
    NodeInclusionPolicy nodeTaintsPolicy,
    List<String> matchLabelKeys) {
  /** What the constraint does when it cannot be met. */
  public enum WhenUnsatisfiable {
    /** A hard constraint. */
    DoNotSchedule,
    /** A preference; Karpenter relaxes it away when it blocks scheduling. */
    ScheduleAnyway
  }

  /** Whether only nodes that pass the pod's node affinity (or tolerate its taints) count. */
  public enum NodeInclusionPolicy {
    /** Only nodes the pod could use count. */
    Honor,
    /** All nodes count. */
    Ignore
  }

  public TopologySpreadConstraint {
    Objects.requireNonNull(topologyKey, "topologyKey");
    whenUnsatisfiable = whenUnsatisfiable == null ? WhenUnsatisfiable.DoNotSchedule : whenUnsatisfiable;
    selector = selector == null ? LabelSelector.NOTHING : selector;
    nodeAffinityPolicy = nodeAffinityPolicy == null ? NodeInclusionPolicy.Honor : nodeAffinityPolicy;
    nodeTaintsPolicy = nodeTaintsPolicy == null ? NodeInclusionPolicy.Ignore : nodeTaintsPolicy;
    matchLabelKeys = matchLabelKeys == null ? List.of() : List.copyOf(matchLabelKeys);
  }

  /** A constraint with Kubernetes' defaults for everything but skew, key, hardness and selector. */
  public static TopologySpreadConstraint of(
      int maxSkew, String topologyKey, WhenUnsatisfiable whenUnsatisfiable, LabelSelector selector) {
    return new TopologySpreadConstraint(maxSkew, topologyKey, whenUnsatisfiable, selector, null, null, null, List.of());
  }
}
