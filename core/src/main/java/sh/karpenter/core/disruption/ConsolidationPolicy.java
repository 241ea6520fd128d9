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

  /** The API name ({@code WhenEmpty}, {@code WhenEmptyOrUnderutilized}, {@code Balanced}), upstream's {@code policy} label. */
  public String apiName() {
    return switch (this) {
      case WHEN_EMPTY -> "WhenEmpty";
      case WHEN_EMPTY_OR_UNDERUTILIZED -> "WhenEmptyOrUnderutilized";
      case BALANCED -> "Balanced";
    };
  }
}
