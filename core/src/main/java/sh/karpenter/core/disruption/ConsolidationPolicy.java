package sh.karpenter.core.disruption;

import java.util.Locale;

/** {@code spec.disruption.consolidationPolicy}. */
public enum ConsolidationPolicy {
  WHEN_EMPTY,
  WHEN_EMPTY_OR_UNDERUTILIZED,
  /** Moves are scored: savings share over disruption share, approved at 1/k (k = 2). */
  BALANCED;

  /**
   * The metric label value: the API name in snake case ({@code when_empty}, {@code
   * when_empty_or_underutilized}, {@code balanced}), as upstream's {@code consolidation_policy} label.
   */
  public String metricLabel() {
    return name().toLowerCase(Locale.ROOT);
  }
}
