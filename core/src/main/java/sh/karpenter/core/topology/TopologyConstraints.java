package sh.karpenter.core.topology;

import java.util.List;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.taints.Toleration;

/**
 * The topology constraints a pod is currently scheduled under: its spread constraints and its
 * affinity and anti-affinity terms (required ones plus the preferred ones not yet relaxed), and
 * what its spread node filters need (its required node-affinity OR-terms, each merged with the node
 * selector, and its tolerations).
 */
public record TopologyConstraints(
    List<TopologySpreadConstraint> spread,
    List<PodAffinityTerm> affinity,
    List<PodAffinityTerm> antiAffinity,
    List<Requirements> nodeAffinityTerms,
    List<Toleration> tolerations) {
  public TopologyConstraints {
    spread = List.copyOf(spread);
    affinity = List.copyOf(affinity);
    antiAffinity = List.copyOf(antiAffinity);
    nodeAffinityTerms = List.copyOf(nodeAffinityTerms);
    tolerations = List.copyOf(tolerations);
  }

  /** True when the pod has no topology constraint of its own. */
  public boolean isEmpty() {
    return spread.isEmpty() && affinity.isEmpty() && antiAffinity.isEmpty();
  }
}
