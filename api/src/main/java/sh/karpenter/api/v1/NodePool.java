package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A {@code karpenter.sh/v1} NodePool (cluster-scoped): the constraints, template and disruption rules of
 * a family of nodes Karpenter may launch. Its CRD is {@code crds/karpenter.sh_nodepools.yaml}.
 */
@Group(NodePool.GROUP)
@Version(NodePool.VERSION)
@Kind(NodePool.KIND)
@Plural("nodepools")
@Singular("nodepool")
@Categories("karpenter")
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodePool extends CustomResource<NodePoolSpec, NodePoolStatus> {
  public static final String GROUP = "karpenter.sh";
  public static final String VERSION = "v1";
  public static final String KIND = "NodePool";
  public static final String API_VERSION = GROUP + "/" + VERSION;
}
