package sh.karpenter.controller.disruption;

import io.fabric8.kubernetes.api.model.Node;
import java.util.Optional;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.disruption.Reason;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/**
 * The writes and reads through which voluntary disruption acts on the cluster: marking candidates
 * disrupted (the {@code karpenter.sh/disrupted:NoSchedule} taint on the Node and the {@code
 * DisruptionReason} condition on the NodeClaim) and undoing it, launching replacement NodeClaims,
 * deleting candidate NodeClaims. {@link KubernetesDisruptionActions} talks to the API server; tests
 * use a hand-written fake.
 */
public interface DisruptionActions {
  /** Taints the Node {@code karpenter.sh/disrupted:NoSchedule} and sets {@code DisruptionReason} on its NodeClaim. */
  void markDisrupted(String nodeName, String nodeClaimName, Reason reason);

  /** Removes the taint and the condition again; objects that are gone are skipped. */
  void unmarkDisrupted(String nodeName, String nodeClaimName);

  /**
   * Sets the NodeClaim's {@code WhyNotDisrupted} condition to True with the reason and message, or
   * removes it when {@code reason} is null; a NodeClaim that is gone is skipped.
   */
  void whyNotDisrupted(String nodeClaimName, String reason, String message);

  /** Creates the NodeClaim for a planned replacement and returns it as stored (with its generated name). */
  NodeClaim create(PlannedNodeClaim replacement);

  /** Deletes a NodeClaim; one that is already gone counts as deleted. */
  void delete(String nodeClaimName);

  /** The NodeClaim as last seen, or empty when it does not exist. */
  Optional<NodeClaim> nodeClaim(String name);

  /** The Node as last seen, or empty when it does not exist. */
  Optional<Node> node(String name);
}
