package sh.karpenter.core.wellknown;

/** Annotation keys Karpenter owns (upstream pkg/apis/v1/labels.go). */
public final class Annotations {
  private Annotations() {}

  /** {@code "true"}, or a duration counted from pod start, on pods and nodes. */
  public static final String DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt";
  /** Kubernetes' ReplicaSet scale-down hint; disruption weighs a pod's eviction cost by it. */
  public static final String POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";
  public static final String NODE_POOL_HASH = "karpenter.sh/nodepool-hash";
  public static final String NODE_POOL_HASH_VERSION = "karpenter.sh/nodepool-hash-version";
  /** The current value of {@link #NODE_POOL_HASH_VERSION}. */
  public static final String NODE_POOL_HASH_VERSION_CURRENT = "v3";
  public static final String NODE_CLAIM_TERMINATION_TIMESTAMP = "karpenter.sh/nodeclaim-termination-timestamp";
  public static final String NODE_CLAIM_MIN_VALUES_RELAXED = "karpenter.sh/nodeclaim-min-values-relaxed";
  public static final String REQUESTED_DRA_DRIVERS = "karpenter.sh/requested-dra-drivers";
  public static final String PROVIDER_COMPATIBILITY = "compatibility.karpenter.sh/provider";
  public static final String PRICE_OVERLAY_APPLIED = "karpenter.sh/price-overlay-applied";
  public static final String CAPACITY_OVERLAY_APPLIED = "karpenter.sh/capacity-overlay-applied";

  /** KWOK manages nodes that carry this annotation with value {@code fake}. */
  public static final String KWOK_NODE = "kwok.x-k8s.io/node";
  public static final String KWOK_NODE_VALUE = "fake";
}
