package sh.karpenter.api.aws.v1;

/** Annotations the AWS provider reads and writes (upstream labels.go {@code Annotation*}). */
public final class AwsAnnotations {
  private AwsAnnotations() {}

  /**
   * The static drift hash ({@link EC2NodeClassHash}) of an EC2NodeClass, on the class and on each
   * NodeClaim launched from it; a NodeClaim whose hash differs from its class's has drifted.
   */
  public static final String EC2_NODE_CLASS_HASH = EC2NodeClass.GROUP + "/ec2nodeclass-hash";
  /**
   * The version of the hash algorithm ({@link EC2NodeClassHash#VERSION}); hashes are compared only when
   * versions match, and NodeClaims with another version are re-hashed instead of drifting.
   */
  public static final String EC2_NODE_CLASS_HASH_VERSION = EC2NodeClass.GROUP + "/ec2nodeclass-hash-version";
  /** {@code "true"} on a NodeClaim once its instance carries the Name, nodeclaim and cluster-name tags. */
  public static final String INSTANCE_TAGGED = EC2NodeClass.GROUP + "/tagged";
  /** {@code "true"} on a NodeClaim once its instance carries the {@code eks:eks-cluster-name} tag. */
  public static final String CLUSTER_NAME_TAGGED = "compatibility." + EC2NodeClass.GROUP + "/cluster-name-tagged";
  /** The instance profile a NodeClaim's instance launched with; keeps the profile from garbage collection. */
  public static final String INSTANCE_PROFILE = EC2NodeClass.GROUP + "/instance-profile-name";
  public static final String NVIDIA_CONSUMABLE_CAPACITY = EC2NodeClass.GROUP + "/nvidia-consumable-capacity";
}
