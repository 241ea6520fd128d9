package sh.karpenter.core.disruption;

/** {@code spec.disruption.consolidationPolicy}. */
public enum ConsolidationPolicy {
  WHEN_EMPTY,
  WHEN_EMPTY_OR_UNDERUTILIZED,
  /** Moves are scored: savings share over disruption share, approved at 1/k (k = 2). */
  BALANCED
}
