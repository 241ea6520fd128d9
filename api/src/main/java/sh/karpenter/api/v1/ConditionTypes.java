package sh.karpenter.api.v1;

/** Status condition types of NodeClaims and NodePools (upstream nodeclaim_status.go, nodepool_status.go). */
public final class ConditionTypes {
  private ConditionTypes() {}

  /** The root condition of every kind; for a NodeClaim it rolls up Launched, Registered and Initialized. */
  public static final String READY = "Ready";

  // NodeClaim
  public static final String LAUNCHED = "Launched";
  public static final String REGISTERED = "Registered";
  public static final String INITIALIZED = "Initialized";
  public static final String CONSOLIDATABLE = "Consolidatable";
  public static final String DRIFTED = "Drifted";
  public static final String DRAINED = "Drained";
  public static final String VOLUMES_DETACHED = "VolumesDetached";
  public static final String INSTANCE_TERMINATING = "InstanceTerminating";
  public static final String CONSISTENT_STATE_FOUND = "ConsistentStateFound";
  public static final String DISRUPTION_REASON = "DisruptionReason";
  /**
   * An in-place reboot of the node (upstream v1.15's reboot action, which node repair drives; not built
   * here). The reason carries the phase: one of the {@code REBOOT_*} reasons below.
   */
  public static final String REBOOTING = "Rebooting";
  /**
   * Project-only, not an upstream type: why voluntary disruption leaves the node alone, True with a
   * reason such as {@code PodDisruptionBudget} and a message naming the object
   * (docs/behaviour/disruption.md#why-not). Removed when the node is disrupted.
   */
  public static final String WHY_NOT_DISRUPTED = "WhyNotDisrupted";

  // Reasons of the Rebooting condition, and Initialized's reason while a reboot runs
  public static final String REBOOT_REQUESTED = "RebootRequested";
  public static final String REBOOT_ISSUED = "RebootIssued";
  public static final String REBOOT_SUCCEEDED = "RebootSucceeded";
  public static final String REBOOT_FAILED = "RebootFailed";
  /** Initialized's reason once a reboot is issued (Initialized turns Unknown during the reboot). */
  public static final String REBOOT_IN_PROGRESS = "Rebooting";

  // NodePool
  public static final String VALIDATION_SUCCEEDED = "ValidationSucceeded";
  public static final String NODE_CLASS_READY = "NodeClassReady";
  public static final String NODE_REGISTRATION_HEALTHY = "NodeRegistrationHealthy";
}
