package sh.karpenter.core.wellknown;

/** Annotation keys Karpenter owns (upstream pkg/apis/v1/labels.go). */
public final class Annotations {
  private Annotations() {}

  /** {@code "true"}, or a duration counted from pod start, on pods and nodes. */
  public static final String DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt";
  /** {@code "true"} on a Node or NodeClaim blocks node repair (upstream v1.15; docs/behaviour/disruption.md#node-repair). */
  public static final String DO_NOT_REPAIR = "karpenter.sh/do-not-repair";
  /**
   * A pod's int32 cost of eviction, set by users (upstream v1.15): consolidation prefers nodes whose pods
   * cost less to evict. Read before {@link #POD_DELETION_COST}.
   */
  public static final String DISRUPTION_COST = "karpenter.sh/disruption-cost";
  /** Kubernetes' ReplicaSet scale-down hint; disruption reads it as the eviction cost when {@link #DISRUPTION_COST} is absent. */
  public static final String POD_DELETION_COST = "controller.kubernetes.io/pod-deletion-cost";
  public static final String NODE_POOL_HASH = "karpenter.sh/nodepool-hash";
  public static final String NODE_POOL_HASH_VERSION = "karpenter.sh/nodepool-hash-version";
  /** The current value of {@link #NODE_POOL_HASH_VERSION}. */
  public static final String NODE_POOL_HASH_VERSION_CURRENT = "v3";
  public static final String NODE_CLAIM_TERMINATION_TIMESTAMP = "karpenter.sh/nodeclaim-termination-timestamp";
  public static final String NODE_CLAIM_MIN_VALUES_RELAXED = "karpenter.sh/nodeclaim-min-values-relaxed";
  public static final String REQUESTED_DRA_DRIVERS = "karpenter.sh/requested-dra-drivers";
  /** The node's boot ID before a reboot was issued (upstream v1.15 reboot action; not built here). */
  public static final String REBOOT_PRE_BOOT_ID = "karpenter.sh/reboot-pre-boot-id";
  /** The drain bound before a reboot (upstream v1.15 reboot action; not built here). */
  public static final String REBOOT_TERMINATION_GRACE_PERIOD = "karpenter.sh/reboot-termination-grace-period";
  public static final String PRICE_OVERLAY_APPLIED = "karpenter.sh/price-overlay-applied";
  public static final String CAPACITY_OVERLAY_APPLIED = "karpenter.sh/capacity-overlay-applied";

  /** KWOK manages nodes that carry this annotation with value {@code fake}. */
  public static final String KWOK_NODE = "kwok.x-k8s.io/node";
  public static final String KWOK_NODE_VALUE = "fake";
}
