package sh.karpenter.api.aws.v1;

import java.util.List;
import java.util.regex.Pattern;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;

/**
 * EC2 tag keys the AWS provider puts on the resources it creates (upstream labels.go {@code *TagKey}),
 * and the keys {@code spec.tags} may not set because Karpenter owns them.
 */
public final class AwsTags {
  private AwsTags() {}

  public static final String NODE_POOL = Labels.NODE_POOL;
  public static final String NODE_CLAIM = Labels.GROUP + "/nodeclaim";
  public static final String NODE_CLASS = AwsLabels.EC2_NODE_CLASS;
  public static final String EKS_CLUSTER_NAME = "eks:eks-cluster-name";
  public static final String NAME = "Name";
  /** The prefix of the cluster ownership tag, {@code kubernetes.io/cluster/<cluster name>}. */
  public static final String CLUSTER_TAG_PREFIX = "kubernetes.io/cluster/";
  public static final String CLUSTER_TAG_OWNED = "owned";
  /** The prefix of launch template names. */
  public static final String LAUNCH_TEMPLATE_NAME_PREFIX = EC2NodeClass.GROUP;

  /**
   * Tag keys Karpenter sets itself (upstream's {@code RestrictedTagPatterns}); the cluster tag follows
   * EKS's cluster-name syntax.
   */
  public static final List<Pattern> RESTRICTED =
      List.of(
          Pattern.compile("^kubernetes\\.io/cluster/[0-9A-Za-z][A-Za-z0-9\\-_]*$"),
          Pattern.compile("^" + Pattern.quote(NODE_POOL) + "$"),
          Pattern.compile("^" + Pattern.quote(EKS_CLUSTER_NAME) + "$"),
          Pattern.compile("^" + Pattern.quote(NODE_CLASS) + "$"),
          Pattern.compile("^" + Pattern.quote(NODE_CLAIM) + "$"));

  /** {@code kubernetes.io/cluster/<clusterName>}. */
  public static String clusterTag(String clusterName) {
    return CLUSTER_TAG_PREFIX + clusterName;
  }

  /** True when {@code key} is a tag Karpenter owns ({@link #RESTRICTED}). */
  public static boolean isRestricted(String key) {
    return RESTRICTED.stream().anyMatch(pattern -> pattern.matcher(key).find());
  }
}
