package sh.karpenter.api.v1;

import io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList;

/** A list of NodePools, for fabric8's {@code resources(NodePool.class, NodePoolList.class)}. */
public class NodePoolList extends DefaultKubernetesResourceList<NodePool> {}
