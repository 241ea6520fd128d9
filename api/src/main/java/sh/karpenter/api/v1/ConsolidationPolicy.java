package sh.karpenter.api.v1;

/** Which nodes consolidation may remove or replace ({@code spec.disruption.consolidationPolicy}). */
public enum ConsolidationPolicy {
  /** Only nodes without workload pods. */
  WhenEmpty,
  /** Empty nodes and nodes whose pods fit elsewhere or on a cheaper replacement (the default). */
  WhenEmptyOrUnderutilized,
  /** Like {@link #WhenEmptyOrUnderutilized}, but a move must save enough relative to its disruption. */
  Balanced
}
