package sh.karpenter.providers.aws.interruption;

import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import sh.karpenter.api.v1.NodeClaim;

/** NodeClaims and Nodes in memory, keyed by the instance ID of their provider ID; deletions recorded. */
final class TestingInterruptionTargets implements InterruptionTargets {
  final Map<String, NodeClaim> nodeClaims = new ConcurrentHashMap<>();
  final Map<String, Node> nodes = new ConcurrentHashMap<>();
  final List<String> deleted = java.util.Collections.synchronizedList(new ArrayList<>());
  volatile RuntimeException deleteFailure;

  void add(NodeClaim nodeClaim) {
    InterruptionTargets.instanceIds(nodeClaim.getStatus().getProviderID()).forEach(id -> nodeClaims.put(id, nodeClaim));
  }

  void add(Node node) {
    InterruptionTargets.instanceIds(node.getSpec().getProviderID()).forEach(id -> nodes.put(id, node));
  }

  @Override
  public List<NodeClaim> nodeClaims(String instanceId) {
    NodeClaim claim = nodeClaims.get(instanceId);
    return claim == null ? List.of() : List.of(claim);
  }

  @Override
  public Optional<Node> node(String instanceId) {
    return Optional.ofNullable(nodes.get(instanceId));
  }

  @Override
  public boolean delete(NodeClaim nodeClaim) {
    if (deleteFailure != null) {
      throw deleteFailure;
    }
    String name = nodeClaim.getMetadata().getName();
    boolean present = nodeClaims.values().removeIf(c -> c.getMetadata().getName().equals(name));
    if (present) {
      deleted.add(name);
    }
    return present;
  }
}
