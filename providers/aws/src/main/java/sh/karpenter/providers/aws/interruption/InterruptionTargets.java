package sh.karpenter.providers.aws.interruption;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.providers.aws.instance.InstanceProvider;

/**
 * The NodeClaims and Nodes a message's instance IDs name, and the NodeClaim deletion that starts
 * their termination (upstream's field indexes {@code status.instanceID} and {@code spec.instanceID}
 * and {@code kubeClient.Delete}). {@link #kubernetes} reads the shared informers; unit tests use an
 * in-memory one.
 */
interface InterruptionTargets {
  /** The informer index of NodeClaims by the instance ID in {@code status.providerID}. */
  String NODECLAIM_BY_INSTANCE_ID = "status.instanceID";
  /** The informer index of Nodes by the instance ID in {@code spec.providerID}. */
  String NODE_BY_INSTANCE_ID = "spec.instanceID";

  List<NodeClaim> nodeClaims(String instanceId);

  Optional<Node> node(String instanceId);

  /** Deletes the NodeClaim; false when it was already gone. */
  boolean delete(NodeClaim nodeClaim);

  /**
   * Sets {@code karpenter.sh/nodeclaim-termination-timestamp} on the NodeClaim (a merge patch; a
   * NodeClaim that is gone is no error).
   */
  void annotateTerminationTimestamp(NodeClaim nodeClaim, String terminationTime);

  /**
   * Over the shared informers, adding the instance-ID indexes to them unless an earlier call did (call
   * before they start; the interruption and instance-status controllers share them).
   */
  static InterruptionTargets kubernetes(KubernetesClient client, Informers informers) {
    synchronized (informers) {
      if (!informers.nodeClaims().getIndexer().getIndexers().containsKey(NODECLAIM_BY_INSTANCE_ID)) {
        informers.nodeClaims().addIndexers(Map.of(NODECLAIM_BY_INSTANCE_ID,
            claim -> instanceIds(claim.getStatus() == null ? null : claim.getStatus().getProviderID())));
      }
      if (!informers.nodes().getIndexer().getIndexers().containsKey(NODE_BY_INSTANCE_ID)) {
        informers.nodes().addIndexers(Map.of(NODE_BY_INSTANCE_ID,
            node -> instanceIds(node.getSpec() == null ? null : node.getSpec().getProviderID())));
      }
    }
    return new InterruptionTargets() {
      @Override
      public List<NodeClaim> nodeClaims(String instanceId) {
        return informers.nodeClaims().getIndexer().byIndex(NODECLAIM_BY_INSTANCE_ID, instanceId);
      }

      @Override
      public Optional<Node> node(String instanceId) {
        return informers.nodes().getIndexer().byIndex(NODE_BY_INSTANCE_ID, instanceId).stream().findFirst();
      }

      @Override
      public boolean delete(NodeClaim nodeClaim) {
        try {
          return !client.resources(NodeClaim.class).withName(nodeClaim.getMetadata().getName()).delete().isEmpty();
        } catch (KubernetesClientException e) {
          if (e.getCode() == 404) {
            return false;
          }
          throw e;
        }
      }

      @Override
      public void annotateTerminationTimestamp(NodeClaim nodeClaim, String terminationTime) {
        try {
          OptimisticWrites.mergePatch(client.resources(NodeClaim.class).withName(nodeClaim.getMetadata().getName()),
              client.getKubernetesSerialization(), null,
              OptimisticWrites.metadata(Map.of("annotations", Map.of(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP, terminationTime))));
        } catch (KubernetesClientException e) {
          if (!OptimisticWrites.isNotFound(e)) {
            throw e;
          }
        }
      }
    };
  }

  /** The instance ID of an {@code aws:///zone/i-...} provider ID, or none for another or no provider ID. */
  static List<String> instanceIds(String providerId) {
    try {
      return providerId == null || providerId.isEmpty() ? List.of() : List.of(InstanceProvider.instanceId(providerId));
    } catch (IllegalArgumentException e) {
      return List.of();
    }
  }
}
