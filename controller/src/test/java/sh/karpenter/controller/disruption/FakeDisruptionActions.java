package sh.karpenter.controller.disruption;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.core.disruption.Reason;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/**
 * {@link DisruptionActions} in memory: NodeClaims and Nodes in maps, every call recorded in order,
 * creation failures on demand. Replacements are named {@code replacement-1}, {@code replacement-2} ...
 */
final class FakeDisruptionActions implements DisruptionActions {
  final Map<String, NodeClaim> nodeClaims = new LinkedHashMap<>();
  final Map<String, Node> nodes = new LinkedHashMap<>();
  final List<String> calls = new ArrayList<>();
  /** The {@code WhyNotDisrupted} writes, {@code <nodeclaim> <reason>: <message>} or {@code <nodeclaim> removed}. */
  final List<String> whyNotWrites = new ArrayList<>();
  boolean failCreates;
  boolean failDeletes;
  private int created;

  /** Adds a candidate: a Node and its NodeClaim with provider ID {@code fake://<node>}. */
  FakeDisruptionActions candidate(String nodeName, String nodeClaimName) {
    nodes.put(nodeName, new NodeBuilder().withNewMetadata().withName(nodeName).endMetadata().build());
    NodeClaim claim = new NodeClaim();
    claim.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(nodeClaimName)
        .addToLabels("karpenter.sh/capacity-type", "spot").build());
    claim.setStatus(new NodeClaimStatus());
    claim.getStatus().setProviderID("fake://" + nodeName);
    nodeClaims.put(nodeClaimName, claim);
    return this;
  }

  /** Sets {@code Initialized=True} on a NodeClaim. */
  void initialize(String name) {
    NodeClaim claim = nodeClaims.get(name);
    claim.getStatus().setConditions(Conditions.set(claim.getStatus().getConditions(), ConditionTypes.INITIALIZED, Conditions.TRUE,
        ConditionTypes.INITIALIZED, "", java.time.Instant.EPOCH, null));
  }

  @Override
  public void markDisrupted(String nodeName, String nodeClaimName, Reason reason) {
    calls.add("mark " + nodeName + " " + nodeClaimName + " " + reason.apiName());
  }

  @Override
  public void unmarkDisrupted(String nodeName, String nodeClaimName) {
    calls.add("unmark " + nodeName + " " + nodeClaimName);
  }

  @Override
  public void whyNotDisrupted(String nodeClaimName, String reason, String message) {
    whyNotWrites.add(nodeClaimName + (reason == null ? " removed" : " " + reason + ": " + message));
  }

  @Override
  public NodeClaim create(PlannedNodeClaim replacement) {
    if (failCreates) {
      throw new IllegalStateException("create refused");
    }
    String name = "replacement-" + ++created;
    NodeClaim claim = new NodeClaim();
    claim.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(name).build());
    claim.setStatus(new NodeClaimStatus());
    nodeClaims.put(name, claim);
    calls.add("create " + name);
    return claim;
  }

  @Override
  public void delete(String nodeClaimName) {
    if (failDeletes) {
      throw new IllegalStateException("delete refused");
    }
    calls.add("delete " + nodeClaimName);
    nodeClaims.remove(nodeClaimName);
  }

  @Override
  public Optional<NodeClaim> nodeClaim(String name) {
    return Optional.ofNullable(nodeClaims.get(name));
  }

  @Override
  public Optional<Node> node(String name) {
    return Optional.ofNullable(nodes.get(name));
  }
}
