package sh.karpenter.controller.state;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.snapshot.BoundPod;
import sh.karpenter.core.scheduling.ExistingNode;

/**
 * One consistent view of cluster state for a disruption decision ({@link
 * ClusterState#disruptionView()}): the provisioning snapshot of the same listing, whose scheduler
 * input (NodePool templates, pending pods including those of deleting nodes, DaemonSet pods, volumes)
 * disruption simulates against, and every node with what decides whether it may be disrupted.
 *
 * @param scheduling the provisioning snapshot taken from the same listing
 * @param nodes every Node (managed or not, deleting or not) and every in-flight NodeClaim
 * @param podDisruptionBudgets every PodDisruptionBudget
 */
public record DisruptionView(
    StateSnapshot scheduling, List<NodeView> nodes, List<PodDisruptionBudget> podDisruptionBudgets) {
  public DisruptionView {
    nodes = List.copyOf(nodes);
    podDisruptionBudgets = List.copyOf(podDisruptionBudgets);
  }

  /** Every NodePool, by name (the provisioning snapshot's). */
  public Map<String, NodePool> nodePools() {
    return scheduling.nodePools();
  }

  /**
   * A Node with its NodeClaim, or an in-flight NodeClaim without a Node yet (upstream's StateNode).
   *
   * @param node the scheduler's view of it, converted as provisioning converts it
   * @param object the Node, or null for an in-flight NodeClaim
   * @param nodeClaim its NodeClaim, or null for a Node Karpenter does not manage
   * @param pods the unfinished pods bound to the Node, each with its conversion (the pods of {@code node})
   * @param markedForDeletion an orchestration command marked it ({@link ClusterState#markForDeletion})
   * @param nominated provisioning nominated pods to it recently
   */
  public record NodeView(ExistingNode node, Node object, NodeClaim nodeClaim, List<BoundPod> pods, boolean markedForDeletion, boolean nominated) {
    public NodeView {
      Objects.requireNonNull(node, "node");
      pods = List.copyOf(pods);
    }

    public String name() {
      return node.name();
    }
  }
}
