package sh.karpenter.api.kwok.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.kubernetes.client.CustomResource;
import io.fabric8.kubernetes.model.annotation.Categories;
import io.fabric8.kubernetes.model.annotation.Group;
import io.fabric8.kubernetes.model.annotation.Kind;
import io.fabric8.kubernetes.model.annotation.Plural;
import io.fabric8.kubernetes.model.annotation.Singular;
import io.fabric8.kubernetes.model.annotation.Version;

/**
 * A {@code karpenter.kwok.sh/v1alpha1} KWOKNodeClass (cluster-scoped): the KWOK provider's node class.
 * Its CRD is {@code crds/karpenter.kwok.sh_kwoknodeclasses.yaml}.
 */
@Group(KWOKNodeClass.GROUP)
@Version(KWOKNodeClass.VERSION)
@Kind(KWOKNodeClass.KIND)
@Plural("kwoknodeclasses")
@Singular("kwoknodeclass")
@Categories("karpenter")
@JsonInclude(JsonInclude.Include.NON_NULL)
public class KWOKNodeClass extends CustomResource<KWOKNodeClassSpec, KWOKNodeClassStatus> {
  public static final String GROUP = "karpenter.kwok.sh";
  public static final String VERSION = "v1alpha1";
  public static final String KIND = "KWOKNodeClass";
  public static final String API_VERSION = GROUP + "/" + VERSION;
}
