package sh.karpenter.controller.snapshot;

import java.util.List;
import java.util.Map;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.PodError;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.volume.VolumeTopology;

/**
 * Everything one provisioning pass needs, converted from Kubernetes objects into core's domain
 * types. The controller builds it from informer caches and {@code karpenter plan} from manifests,
 * both with {@link SnapshotBuilder}, so the scheduler sees the same values either way.
 *
 * @param templates one per provisionable NodePool (the scheduler orders them by weight)
 * @param nodes existing nodes (not being deleted) with the pods bound to them
 * @param pendingPods pods to place: no node, not terminating or finished, not DaemonSet pods
 * @param rejectedPods pending pods Karpenter will not try to place (restricted labels, matchFields,
 *     missing volume claims ...), each with the reason
 * @param daemonSetPods one pod per DaemonSet: its newest pod, else one from its template
 * @param volumes claims, volumes and storage classes for volume topology
 * @param namespaceLabels labels of every known namespace, for affinity namespace selectors
 * @param warnings what a person should know about the input that is not an error (a RuntimeClass
 *     the manifests lack, a DaemonSet whose pods could not be created), one line each, prefixed with
 *     the origin
 * @param boundPods by node name, the unfinished pods bound to it, each with its conversion (for a
 *     node in {@code nodes}, these are its {@code ExistingNode#pods()})
 */
public record ClusterSnapshot(
    List<NodeClaimTemplate> templates,
    List<ExistingNode> nodes,
    List<Pod> pendingPods,
    List<PodError> rejectedPods,
    List<Pod> daemonSetPods,
    VolumeTopology volumes,
    Map<String, Map<String, String>> namespaceLabels,
    List<String> warnings,
    Map<String, List<BoundPod>> boundPods) {

  /** The unfinished pods bound to the named node, each with its conversion; empty when none. */
  public List<BoundPod> boundPods(String nodeName) {
    return boundPods.getOrDefault(nodeName, List.of());
  }

  /** The scheduler's input for placing {@link #pendingPods()}. */
  public SchedulingInput schedulingInput(SchedulerOptions options) {
    return new SchedulingInput(templates, nodes, pendingPods, daemonSetPods, volumes, options, namespaceLabels);
  }
}
