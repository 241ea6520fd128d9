package sh.karpenter.core.topology;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Taints;
import sh.karpenter.core.taints.Toleration;

/**
 * Which nodes count towards a topology spread constraint: with {@code nodeAffinityPolicy: Honor} a
 * node must satisfy one of the owner's required node-affinity terms (each already merged with its
 * node selector); with {@code nodeTaintsPolicy: Honor} the owner must tolerate the node's taints.
 * Affinity and anti-affinity groups use {@link #ALL}.
 *
 * @param terms OR-terms a node must match one of; empty means every node matches
 * @param tolerations the owner's tolerations, or null when taints are ignored
 */
public record TopologyNodeFilter(List<Requirements> terms, List<Toleration> tolerations) {
  /** Counts every node. */
  public static final TopologyNodeFilter ALL = new TopologyNodeFilter(List.of(), null);

  // equals and hashCode written out, as Taint's
  @Override
  public boolean equals(Object o) {
    return o instanceof TopologyNodeFilter f && terms.equals(f.terms) && Objects.equals(tolerations, f.tolerations);
  }

  @Override
  public int hashCode() {
    return 31 * terms.hashCode() + Objects.hashCode(tolerations);
  }

  public TopologyNodeFilter {
    terms = List.copyOf(terms);
    tolerations = tolerations == null ? null : List.copyOf(tolerations);
  }

  /** True when a node with these requirements and taints counts. */
  public boolean matches(Requirements node, List<Taint> taints, Set<String> allowUndefined) {
    if (!toleratesTaints(taints)) {
      return false;
    }
    if (terms.isEmpty()) {
      return true;
    }
    for (Requirements term : terms) {
      if (node.isCompatible(term, allowUndefined)) {
        return true;
      }
    }
    return false;
  }

  /** True when taints are ignored or the owner tolerates every NoSchedule/NoExecute taint. */
  public boolean toleratesTaints(List<Taint> taints) {
    return tolerations == null || taints.isEmpty() || Taints.untolerated(taints, tolerations, true) == null;
  }

  /** True when the filter ignores node taints (nodeTaintsPolicy Ignore). */
  public boolean ignoresTaints() {
    return tolerations == null;
  }
}
