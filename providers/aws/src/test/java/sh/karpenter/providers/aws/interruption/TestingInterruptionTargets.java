package sh.karpenter.providers.aws.interruption;

import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.wellknown.Annotations;

/** NodeClaims and Nodes in memory, keyed by the instance ID of their provider ID; deletions recorded. */
final class TestingInterruptionTargets implements InterruptionTargets {
  final Map<String, NodeClaim> nodeClaims = new ConcurrentHashMap<>();
  final Map<String, Node> nodes = new ConcurrentHashMap<>();
  final List<String> deleted = java.util.Collections.synchronizedList(new ArrayList<>());
  /** NodeClaim name → the termination timestamp annotated on it. */
  final Map<String, String> terminationTimestamps = new ConcurrentHashMap<>();
  volatile RuntimeException deleteFailure;
  /**
   * NodeClaims have a finalizer: a deletion leaves them, with a deletion timestamp (and a termination
   * timestamp annotated before it), as the API server would.
   */
  volatile boolean finalizers;

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
    if (finalizers) {
      boolean present = markDeleting(name);
      if (present) {
        deleted.add(name);
      }
      return present;
    }
    boolean present = nodeClaims.values().removeIf(c -> c.getMetadata().getName().equals(name));
    if (present) {
      deleted.add(name);
    }
    return present;
  }

  @Override
  public void annotateTerminationTimestamp(NodeClaim nodeClaim, String terminationTime) {
    String name = nodeClaim.getMetadata().getName();
    terminationTimestamps.put(name, terminationTime);
    for (NodeClaim stored : nodeClaims.values()) {
      if (stored.getMetadata().getName().equals(name)) {
        Map<String, String> annotations = new java.util.HashMap<>(stored.getMetadata().getAnnotations() == null ? Map.of()
            : stored.getMetadata().getAnnotations());
        annotations.put(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP, terminationTime);
        stored.getMetadata().setAnnotations(annotations);
      }
    }
  }

  private boolean markDeleting(String name) {
    boolean present = false;
    for (NodeClaim stored : nodeClaims.values()) {
      if (stored.getMetadata().getName().equals(name)) {
        present = true;
        stored.getMetadata().setDeletionTimestamp("2026-11-26T00:00:00Z");
      }
    }
    return present;
  }
}
