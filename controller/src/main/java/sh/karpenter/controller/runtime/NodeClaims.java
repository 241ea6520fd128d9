package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.wellknown.Labels;

/**
 * Looks NodeClaims and their Nodes up in the shared informer caches (joined by provider ID, as
 * upstream's field indexers do), falling back to the API server where a cache may lag behind a
 * write this process just made; and what every controller reads from a NodeClaim (its NodePool and
 * capacity type labels, whether this process's provider manages it, the owner reference its Node
 * carries).
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

  /** The NodeClaims with this provider ID (normally one). */
  public static List<NodeClaim> forProviderId(Informers informers, String providerId) {
    if (providerId == null || providerId.isEmpty()) {
      return List.of();
    }
    return informers.nodeClaims().getIndexer().byIndex(Informers.NODECLAIM_BY_PROVIDER_ID, providerId);
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
   * Whether this process's cloud provider manages the NodeClaim: its nodeClassRef names a NodeClass
   * kind the provider supports (upstream's {@code IsManaged}). A provider that declares no kinds
   * manages every NodeClaim.
   */
  public static boolean isManaged(NodeClaim nodeClaim, CloudProvider cloudProvider) {
    return supports(cloudProvider, nodeClaim.getSpec() == null ? null : nodeClaim.getSpec().getNodeClassRef());
  }

  /**
   * Whether {@code ref} (a NodeClaim's or a NodePool's nodeClassRef, may be null) names a NodeClass
   * kind the cloud provider supports; a provider that declares no kinds supports every reference.
   */
  public static boolean supports(CloudProvider cloudProvider, NodeClassReference ref) {
    List<NodeClassRef> supported = cloudProvider.supportedNodeClasses();
    if (supported.isEmpty()) {
      return true;
    }
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
