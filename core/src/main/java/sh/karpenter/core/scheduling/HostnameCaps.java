package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.WeightedPodAffinityTerm;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.wellknown.Labels;

/**
 * What the cost post-pass must keep when it moves constrained pods between new NodeClaims of one
 * domain (docs/behaviour/scheduling.md#cost-post-pass): every topology key but the hostname is fixed
 * by the NodeClaims' requirements, so only the hostname terms of the pods (pending or bound) can
 * tell the new nodes apart. They become per-node caps on the pods a selector matches:
 *
 * <ul>
 *   <li>a hostname topology spread with maxSkew k: at most k matching pods per node. A pod's skew on
 *       its node is its count there less the least count over the domains, which is never below 0,
 *       so at most k per node keeps every placement within k whatever the other nodes hold;
 *   <li>a hostname anti-affinity (required or preferred) whose owner its own selector matches: at
 *       most 1 matching pod per node, so no owner shares a node with another matching pod.
 * </ul>
 *
 * <p>Pods that a cap cannot express stay where the pass put them ({@link #movable} is false): those
 * with hostname pod affinity or hostname anti-affinity not matching themselves, and pods some
 * hostname pod affinity selects (moving them could leave its owner without them). Selectors are
 * matched on labels alone, namespaces aside, which only caps or pins more pods than needed.
 */
final class HostnameCaps {
  /** A cap: at most {@code perNode} pods {@code selector} matches on each new node. */
  record Cap(LabelSelector selector, int perNode) {}

  private final List<Cap> caps = new ArrayList<>();
  private final Set<LabelSelector> pinningSelectors = new HashSet<>();
  private final Set<Pod> pinnedOwners = Collections.newSetFromMap(new IdentityHashMap<>());
  private final Map<Map<String, String>, int[]> capsByLabels = new IdentityHashMap<>();

  private HostnameCaps() {}

  /** The caps and pins of the hostname terms of the pending pods and the pods on existing nodes. */
  static HostnameCaps of(List<SchedulingPod> pending, List<NodeSlot> nodes) {
    Map<LabelSelector, Integer> caps = new LinkedHashMap<>();
    List<Pod> owners = new ArrayList<>();
    for (SchedulingPod pod : pending) {
      owners.add(pod.pod);
    }
    for (NodeSlot node : nodes) {
      owners.addAll(node.node.pods());
    }
    HostnameCaps result = new HostnameCaps();
    for (Pod owner : owners) {
      for (TopologySpreadConstraint spread : owner.topologySpreadConstraints()) {
        if (Labels.HOSTNAME.equals(spread.topologyKey())) {
          caps.merge(spread.selector(), Math.max(1, spread.maxSkew()), Math::min);
        }
      }
      List<PodAffinityTerm> antiAffinity = new ArrayList<>(owner.requiredPodAntiAffinity());
      owner.preferredPodAntiAffinity().forEach(w -> antiAffinity.add(w.term()));
      for (PodAffinityTerm term : antiAffinity) {
        if (Labels.HOSTNAME.equals(term.topologyKey())) {
          if (term.selector().matches(owner.labels())) {
            caps.put(term.selector(), 1);
          } else {
            result.pinnedOwners.add(owner);
          }
        }
      }
      List<PodAffinityTerm> affinity = new ArrayList<>(owner.requiredPodAffinity());
      for (WeightedPodAffinityTerm term : owner.preferredPodAffinity()) {
        affinity.add(term.term());
      }
      for (PodAffinityTerm term : affinity) {
        if (Labels.HOSTNAME.equals(term.topologyKey())) {
          result.pinningSelectors.add(term.selector());
          result.pinnedOwners.add(owner);
        }
      }
    }
    caps.forEach((selector, perNode) -> result.caps.add(new Cap(selector, perNode)));
    return result;
  }

  /** Whether the post-pass may move the pod to another new NodeClaim of its domain. */
  boolean movable(Pod pod) {
    if (pinnedOwners.contains(pod) || !pod.hostPorts().isEmpty()) {
      return false;
    }
    for (LabelSelector selector : pinningSelectors) {
      if (selector.matches(pod.labels())) {
        return false;
      }
    }
    return true;
  }

  /** Every cap. */
  List<Cap> caps() {
    return caps;
  }

  /**
   * The indices into {@link #caps()} of the caps whose selector matches the pod. Remembered per
   * label set (the same map object: a workload's replicas share their template's), as the post-pass
   * asks for every pod of a domain several times.
   */
  int[] capsOf(Pod pod) {
    return capsByLabels.computeIfAbsent(pod.labels(), this::matching);
  }

  private int[] matching(Map<String, String> labels) {
    int[] matched = new int[caps.size()];
    int n = 0;
    for (int i = 0; i < caps.size(); i++) {
      if (caps.get(i).selector().matches(labels)) {
        matched[n++] = i;
      }
    }
    return Arrays.copyOf(matched, n);
  }
}
