package sh.karpenter.providers.aws.nodeclass;

import java.util.Optional;

/**
 * What the EC2NodeClass controllers need to know about the cluster.
 *
 * @param clusterName the cluster's name (instance profile names, paths and tags)
 * @param region the AWS region (instance profile paths and tags)
 * @param caBundle the cluster CA bundle the drift hash includes (upstream's {@code caBundle}), if known
 */
public record NodeClassSettings(String clusterName, String region, Optional<String> caBundle) {
  public NodeClassSettings {
    if (clusterName == null || clusterName.isEmpty()) {
      throw new IllegalArgumentException("EC2NodeClass controllers: the cluster name is required");
    }
    if (region == null || region.isEmpty()) {
      throw new IllegalArgumentException("EC2NodeClass controllers: the region is required");
    }
  }
}
