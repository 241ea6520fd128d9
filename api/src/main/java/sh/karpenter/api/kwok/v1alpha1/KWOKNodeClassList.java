package sh.karpenter.api.kwok.v1alpha1;

import io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList;

/** A list of KWOKNodeClasses. */
public class KWOKNodeClassList extends DefaultKubernetesResourceList<KWOKNodeClass> {}
