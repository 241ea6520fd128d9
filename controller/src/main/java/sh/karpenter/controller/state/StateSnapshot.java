package sh.karpenter.controller.state;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.snapshot.ClusterSnapshot;

/**
 * One consistent view of cluster state for a provisioning pass: the scheduler's input plus what the
 * provisioner needs to act on the result (the Kubernetes objects behind pending pods and NodePools,
 * and which scheduler nodes are NodeClaims).
 *
 * @param cluster the converted input (pending pods, nodes and in-flight NodeClaims, templates ...)
 * @param pods the Kubernetes pods behind {@code cluster.pendingPods()} and {@code
 *     cluster.rejectedPods()}, by {@code namespace/name}
 * @param nodePools every NodePool, by name
 * @param notReadyNodePools the NodePools left out of scheduling because their {@code Ready} condition
 *     is not True (deleting ones aside), by name, each with why ({@link ClusterState#notReady})
 * @param nodeClaimNames for each scheduler node that is or has a NodeClaim, that NodeClaim's name
 * @param inFlight the scheduler nodes that are NodeClaims without a Node yet (named after the NodeClaim)
 * @param invalid objects left out because they could not be converted, with the problem
 */
public record StateSnapshot(
    ClusterSnapshot cluster,
    Map<String, Pod> pods,
    Map<String, NodePool> nodePools,
    Map<String, String> notReadyNodePools,
    Map<String, String> nodeClaimNames,
    Set<String> inFlight,
    List<InvalidObject> invalid) {

  /** An object that failed conversion; it is left out of the pass. */
  public record InvalidObject(HasMetadata object, String origin, String problem) {}

  public StateSnapshot {
    pods = Map.copyOf(pods);
    nodePools = Map.copyOf(nodePools);
    notReadyNodePools = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(notReadyNodePools));
    nodeClaimNames = Map.copyOf(nodeClaimNames);
    inFlight = Set.copyOf(inFlight);
    invalid = List.copyOf(invalid);
  }

  /** The Kubernetes pod with this key, if it was pending in this snapshot. */
  public Optional<Pod> pod(String key) {
    return Optional.ofNullable(pods.get(key));
  }

  /**
   * How a scheduler node is named to users: {@code nodeclaim/<name>} for an in-flight NodeClaim,
   * {@code nodeclaim/<claim>, node/<node>} for a Node with its NodeClaim, {@code node/<name>} for
   * a Node Karpenter does not manage (upstream's Nominated event text).
   */
  public String describe(String schedulerNode) {
    if (inFlight.contains(schedulerNode)) {
      return "nodeclaim/" + schedulerNode;
    }
    String claim = nodeClaimNames.get(schedulerNode);
    return claim == null ? "node/" + schedulerNode : "nodeclaim/" + claim + ", node/" + schedulerNode;
  }
}
