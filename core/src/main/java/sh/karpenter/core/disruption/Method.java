package sh.karpenter.core.disruption;

/**
 * The disruption methods, in the order a loop tries them
 * (docs/behaviour/disruption.md#the-disruption-loop).
 */
public enum Method {
  /** Node repair (upstream v1.15): runs only with repair policies ({@link DisruptionOptions#nodeRepair()}). */
  REPAIR("repair", Reason.UNHEALTHY, ""),
  EMPTINESS("emptiness", Reason.EMPTY, "empty"),
  STATIC_DRIFT("static-drift", Reason.DRIFTED, ""),
  DRIFT("drift", Reason.DRIFTED, ""),
  MULTI_NODE_CONSOLIDATION("multi-node-consolidation", Reason.UNDERUTILIZED, "multi"),
  SINGLE_NODE_CONSOLIDATION("single-node-consolidation", Reason.UNDERUTILIZED, "single"),
  /**
   * Repack consolidation (not upstream's): N nodes drained onto the rest of the cluster and M cheaper
   * new nodes, chosen from the whole cluster; runs only with {@link DisruptionOptions#repackConsolidation()}.
   */
  REPACK_CONSOLIDATION("repack-consolidation", Reason.UNDERUTILIZED, "repack");

  private final String label;
  private final Reason reason;
  private final String consolidationType;

  Method(String label, Reason reason, String consolidationType) {
    this.label = label;
    this.reason = reason;
    this.consolidationType = consolidationType;
  }

  /** For logs and metrics. */
  public String label() {
    return label;
  }

  public Reason reason() {
    return reason;
  }

  /**
   * Upstream's {@code consolidation_type} label ({@code empty}, {@code single}, {@code multi}; {@code
   * repack} for this project's repack method), or "" for drift.
   */
  public String consolidationType() {
    return consolidationType;
  }
}
