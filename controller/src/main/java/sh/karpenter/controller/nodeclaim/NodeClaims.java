package sh.karpenter.controller.nodeclaim;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.wellknown.Labels;

/**
 * Looks NodeClaims and their Nodes up in the shared informer caches (joined by provider ID, as
 * upstream's field indexers do), falling back to the API server where a cache may lag behind a
 * write this process just made.
 */
public final class NodeClaims {
  private NodeClaims() {}

  /** The NodeClaim from the cache, else from the API server; null when it does not exist. */
  public static NodeClaim get(KubernetesClient client, Informers informers, String name) {
    NodeClaim cached = informers.nodeClaims().getStore().getByKey(name);
    return cached != null ? cached : client.resources(NodeClaim.class).withName(name).get();
  }

  /** The NodeClaim as the API server has it now; null when it does not exist. */
  public static NodeClaim fresh(KubernetesClient client, String name) {
    return client.resources(NodeClaim.class).withName(name).get();
  }

  /** The Nodes with this provider ID (normally one; none before the node registers). */
  public static List<Node> nodesFor(Informers informers, String providerId) {
    if (providerId == null || providerId.isEmpty()) {
      return List.of();
    }
    return informers.nodes().getIndexer().byIndex(Informers.NODE_BY_PROVIDER_ID, providerId);
  }

  /** True when the Node's {@code Ready} condition is True (a Node without one is not ready). */
  public static boolean nodeReady(Node node) {
    return node.getStatus() != null && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }

  /** The NodeClaims with this provider ID (normally one). */
  public static List<NodeClaim> forProviderId(Informers informers, String providerId) {
    if (providerId == null || providerId.isEmpty()) {
      return List.of();
    }
    return informers.nodeClaims().getIndexer().byIndex(Informers.NODECLAIM_BY_PROVIDER_ID, providerId);
  }

  public static String providerId(NodeClaim nodeClaim) {
    return nodeClaim.getStatus() == null || nodeClaim.getStatus().getProviderID() == null
        ? ""
        : nodeClaim.getStatus().getProviderID();
  }

  /** The {@code karpenter.sh/nodepool} label, or "" for a NodeClaim without one. */
  public static String nodePool(NodeClaim nodeClaim) {
    return label(nodeClaim.getMetadata().getLabels(), Labels.NODE_POOL);
  }

  /** The {@code karpenter.sh/capacity-type} label, or "" before launch. */
  public static String capacityType(NodeClaim nodeClaim) {
    return label(nodeClaim.getMetadata().getLabels(), Labels.CAPACITY_TYPE);
  }

  /**
   * How the NodeClaim's node terminates, as upstream's {@code termination_mode} metric label ({@code
   * DisruptionTerminationMode}): {@code graceful} without a {@code terminationGracePeriod}, {@code
   * forceful} with one of zero, else {@code eventual}.
   */
  public static String terminationMode(NodeClaim nodeClaim) {
    GoDuration gracePeriod = nodeClaim == null || nodeClaim.getSpec() == null ? null : nodeClaim.getSpec().getTerminationGracePeriod();
    if (gracePeriod == null) {
      return DisruptionLabels.GRACEFUL;
    }
    return gracePeriod.duration().isPositive() ? DisruptionLabels.EVENTUAL : DisruptionLabels.FORCEFUL;
  }

  /**
   * The disruption metrics' labels for a NodeClaim disrupted for {@code reason} outside consolidation
   * (expiry, garbage collection, a failed launch or registration): no consolidation policy.
   */
  public static DisruptionLabels disruptionLabels(NodeClaim nodeClaim, String reason) {
    return new DisruptionLabels(reason, nodePool(nodeClaim), capacityType(nodeClaim), "", terminationMode(nodeClaim));
  }

  /**
   * Whether this process's cloud provider manages the NodeClaim: its nodeClassRef names a NodeClass
   * kind the provider supports (upstream's {@code IsManaged}). A provider that declares no kinds
   * manages every NodeClaim.
   */
  public static boolean isManaged(NodeClaim nodeClaim, CloudProvider cloudProvider) {
    List<NodeClassRef> supported = cloudProvider.supportedNodeClasses();
    if (supported.isEmpty()) {
      return true;
    }
    NodeClassReference ref = nodeClaim.getSpec() == null ? null : nodeClaim.getSpec().getNodeClassRef();
    if (ref == null) {
      return false;
    }
    NodeClassRef kind = new NodeClassRef(ref.getGroup(), ref.getKind(), ref.getName());
    return supported.stream().anyMatch(kind::sameKind);
  }

  /** The owner reference a registered Node carries to its NodeClaim (blocking the NodeClaim's deletion). */
  public static OwnerReference ownerReference(NodeClaim nodeClaim) {
    return new OwnerReferenceBuilder()
        .withApiVersion(NodePool.API_VERSION)
        .withKind(NodeClaim.KIND)
        .withName(nodeClaim.getMetadata().getName())
        .withUid(nodeClaim.getMetadata().getUid())
        .withBlockOwnerDeletion(true)
        .build();
  }

  private static String label(Map<String, String> labels, String key) {
    return labels == null ? "" : labels.getOrDefault(key, "");
  }
}
