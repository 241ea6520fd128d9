package sh.karpenter.api.aws.v1;

import io.fabric8.kubernetes.api.model.DefaultKubernetesResourceList;

/** A list of EC2NodeClasses. */
public class EC2NodeClassList extends DefaultKubernetesResourceList<EC2NodeClass> {}
