package sh.karpenter.controller.snapshot;

import static sh.karpenter.controller.snapshot.ValueConverter.nullToEmpty;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * Converts a fabric8 {@link Node} and the pods bound to it into core's {@link ExistingNode}. A
 * cordoned node ({@code spec.unschedulable}) carries the {@code node.kubernetes.io/unschedulable:
 * NoSchedule} taint, so that only pods tolerating it are placed there, as kube-scheduler does.
 */
final class NodeConverter {
  private NodeConverter() {}

  /** The node's capacity ({@code status.capacity}, else its allocatable), for NodePool usage. */
  static Resources capacity(Node node, String origin) {
    if (node.getStatus() != null && node.getStatus().getCapacity() != null && !node.getStatus().getCapacity().isEmpty()) {
      return ValueConverter.resources(node.getStatus().getCapacity(), origin, "status.capacity");
    }
    return allocatable(node, origin);
  }

  static ExistingNode convert(Node node, List<Pod> boundPods, String origin) {
    return convert(node, boundPods, origin, null);
  }

  /**
   * @param nodeClaim the Node's NodeClaim, or null. A Karpenter node that is not initialized yet is
   *     seen with the taints it will have once it is (upstream's {@code StateNode.Taints}): its
   *     NodeClaim's {@code spec.taints}, else its own taints without the ephemeral ones
   *     (unregistered, not-ready, uninitialized, {@code readiness.k8s.io/*}). Otherwise its capacity
   *     would be invisible while it registers, and the next batch would launch it a second time.
   */
  static ExistingNode convert(Node node, List<Pod> boundPods, String origin, NodeClaim nodeClaim) {
    Map<String, String> labels = nullToEmpty(node.getMetadata().getLabels());
    boolean initialized = initialized(node, labels);
    List<Taint> taints = ValueConverter.taints(node.getSpec() == null ? null : node.getSpec().getTaints(), origin, "spec.taints");
    if (!initialized && labels.containsKey(Labels.NODE_POOL)) {
      taints = nodeClaim != null && nodeClaim.getSpec() != null
          ? ValueConverter.taints(nodeClaim.getSpec().getTaints(), origin, "NodeClaim spec.taints")
          : taints;
      taints = taints.stream().filter(t -> !TaintKeys.isKnownEphemeral(t.key())).toList();
    }
    if (cordoned(node)) {
      taints = withCordonTaint(taints);
    }
    return new ExistingNode(
        node.getMetadata().getName(),
        labels,
        taints,
        allocatable(node, origin),
        List.copyOf(boundPods),
        initialized,
        labels.get(Labels.NODE_POOL));
  }

  /** Whether the node is cordoned ({@code spec.unschedulable: true}). */
  static boolean cordoned(Node node) {
    return node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
  }

  /**
   * The taints of a cordoned node, with {@code node.kubernetes.io/unschedulable:NoSchedule} when it
   * is not there yet: kube-scheduler's NodeUnschedulable filter admits onto a cordoned node exactly
   * the pods that tolerate that taint, whether or not the node lifecycle controller has added it.
   */
  private static List<Taint> withCordonTaint(List<Taint> taints) {
    Taint cordon = Taint.of(TaintKeys.NODE_UNSCHEDULABLE, Taint.Effect.NoSchedule);
    if (taints.stream().anyMatch(cordon::matches)) {
      return taints;
    }
    List<Taint> withCordon = new ArrayList<>(taints);
    withCordon.add(cordon);
    return List.copyOf(withCordon);
  }

  /** {@code status.allocatable}, falling back to {@code status.capacity} as the kubelet does. */
  private static Resources allocatable(Node node, String origin) {
    var status = node.getStatus();
    if (status == null) {
      return Resources.EMPTY;
    }
    if (status.getAllocatable() != null && !status.getAllocatable().isEmpty()) {
      return ValueConverter.resources(status.getAllocatable(), origin, "status.allocatable");
    }
    return ValueConverter.resources(status.getCapacity(), origin, "status.capacity");
  }

  /**
   * Whether the node is ready for pods: a Karpenter node once it carries the initialized label, any
   * other node unless its Ready condition says otherwise (a manifest without conditions counts as
   * ready).
   */
  private static boolean initialized(Node node, Map<String, String> labels) {
    if (labels.containsKey(Labels.NODE_POOL)) {
      return "true".equals(labels.get(Labels.NODE_INITIALIZED));
    }
    List<NodeCondition> conditions = node.getStatus() == null ? List.of() : nullToEmpty(node.getStatus().getConditions());
    return conditions.stream().filter(c -> "Ready".equals(c.getType())).allMatch(c -> "True".equals(c.getStatus()));
  }
}
