package sh.karpenter.controller.nodeclaim.lifecycle;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import sh.karpenter.api.v1.NodeClaim;

/** NodeClaims, Nodes and Pods for the lifecycle tests, written as YAML. */
final class Manifests {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private Manifests() {}

  static NodeClaim nodeClaim(String yaml) {
    return SERIALIZATION.unmarshal("apiVersion: karpenter.sh/v1\nkind: NodeClaim\n" + yaml, NodeClaim.class);
  }

  static Node node(String yaml) {
    return SERIALIZATION.unmarshal("apiVersion: v1\nkind: Node\n" + yaml, Node.class);
  }

  static Pod pod(String yaml) {
    return SERIALIZATION.unmarshal("apiVersion: v1\nkind: Pod\n" + yaml, Pod.class);
  }
}
