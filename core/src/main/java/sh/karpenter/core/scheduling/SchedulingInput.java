package sh.karpenter.core.scheduling;

import java.util.List;
import java.util.Map;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.volume.VolumeTopology;

/**
 * Everything a scheduling pass looks at, converted from cluster state at the edge.
 *
 * @param templates one per usable NodePool, in any order (the scheduler orders them by weight)
 * @param nodes existing nodes and in-flight NodeClaims
 * @param pendingPods the pods to place
 * @param daemonSetPods one pod per DaemonSet (the live pod or one built from the template)
 * @param volumes the cluster's volumes, or null when no pod uses any
 * @param namespaceLabels namespace labels, for namespaceSelector terms of pod (anti-)affinity
 */
public record SchedulingInput(
    List<NodeClaimTemplate> templates,
    List<ExistingNode> nodes,
    List<Pod> pendingPods,
    List<Pod> daemonSetPods,
    VolumeTopology volumes,
    SchedulerOptions options,
    Map<String, Map<String, String>> namespaceLabels) {
  public SchedulingInput {
    templates = List.copyOf(templates);
    nodes = nodes == null ? List.of() : List.copyOf(nodes);
    pendingPods = List.copyOf(pendingPods);
    daemonSetPods = daemonSetPods == null ? List.of() : List.copyOf(daemonSetPods);
    options = options == null ? SchedulerOptions.DEFAULT : options;
    namespaceLabels = namespaceLabels == null ? Map.of() : Map.copyOf(namespaceLabels);
  }

  /** An input without namespace labels (namespaceSelector terms then match on namespace names only). */
  public SchedulingInput(
      List<NodeClaimTemplate> templates,
      List<ExistingNode> nodes,
      List<Pod> pendingPods,
      List<Pod> daemonSetPods,
      VolumeTopology volumes,
      SchedulerOptions options) {
    this(templates, nodes, pendingPods, daemonSetPods, volumes, options, Map.of());
  }
}
