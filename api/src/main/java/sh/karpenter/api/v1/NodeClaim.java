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
 * A {@code karpenter.sh/v1} NodeClaim (cluster-scoped): a request for one node and the record of the
 * instance that fulfils it. Its CRD is {@code crds/karpenter.sh_nodeclaims.yaml}.
 */
@Group(NodePool.GROUP)
@Version(NodePool.VERSION)
@Kind(NodeClaim.KIND)
@Plural("nodeclaims")
@Singular("nodeclaim")
@Categories("karpenter")
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodeClaim extends CustomResource<NodeClaimSpec, NodeClaimStatus> {
  public static final String KIND = "NodeClaim";
}
