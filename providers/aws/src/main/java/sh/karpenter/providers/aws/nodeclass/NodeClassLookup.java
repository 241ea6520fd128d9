package sh.karpenter.providers.aws.nodeclass;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.List;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.controller.runtime.Informers;

/** Finding EC2NodeClasses and the NodeClaims that use one. */
final class NodeClassLookup {
  private NodeClassLookup() {}

  /** The class from the informer's cache, else from the API server; null when it does not exist. */
  static EC2NodeClass get(KubernetesClient client, SharedIndexInformer<EC2NodeClass> nodeClasses, String name) {
    EC2NodeClass cached = nodeClasses.getStore().getByKey(name);
    return cached != null ? cached : client.resources(EC2NodeClass.class).withName(name).get();
  }

  /** The NodeClaims whose {@code nodeClassRef} names this EC2NodeClass (upstream's {@code ForNodeClass}). */
  static List<NodeClaim> nodeClaimsOf(Informers informers, String nodeClassName) {
    return informers.nodeClaims().getStore().list().stream()
        .filter(claim -> nodeClassName.equals(nodeClassName(claim)))
        .toList();
  }

  /** The EC2NodeClass a NodeClaim references, or null when it references none (or another kind). */
  static String nodeClassName(NodeClaim claim) {
    if (claim.getSpec() == null) {
      return null;
    }
    NodeClassReference ref = claim.getSpec().getNodeClassRef();
    if (ref == null || !EC2NodeClass.GROUP.equals(ref.getGroup()) || !EC2NodeClass.KIND.equals(ref.getKind())) {
      return null;
    }
    return ref.getName();
  }
}
