package sh.karpenter.api.v1;

import io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList;

/** A list of NodeClaims, for fabric8's {@code resources(NodeClaim.class, NodeClaimList.class)}. */
public class NodeClaimList extends DefaultKubernetesResourceList<NodeClaim> {}
