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

  // NodePool
  public static final String VALIDATION_SUCCEEDED = "ValidationSucceeded";
  public static final String NODE_CLASS_READY = "NodeClassReady";
  public static final String NODE_REGISTRATION_HEALTHY = "NodeRegistrationHealthy";
}
