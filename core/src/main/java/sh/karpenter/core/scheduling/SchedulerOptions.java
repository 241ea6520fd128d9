package sh.karpenter.core.scheduling;

import java.util.Objects;

/**
 * Knobs of a scheduling pass, mirroring upstream's {@code --preference-policy} and
 * {@code --min-values-policy} settings.
 *
 * @param preferencePolicy Respect treats preferences as requirements until relaxed; Ignore drops them
 * @param minValuesPolicy Strict fails a NodeClaim that cannot meet minValues; BestEffort lowers them
 */
public record SchedulerOptions(PreferencePolicy preferencePolicy, MinValuesPolicy minValuesPolicy) {
  /** Upstream's defaults: Respect, Strict. */
  public static final SchedulerOptions DEFAULT = new SchedulerOptions(PreferencePolicy.Respect, MinValuesPolicy.Strict);

  /** How preferred affinity, preferred anti-affinity and ScheduleAnyway spread are treated. */
  public enum PreferencePolicy {
    Respect,
    Ignore
  }

  /** What happens when the instance types left for a NodeClaim cannot meet a requirement's minValues. */
  public enum MinValuesPolicy {
    Strict,
    BestEffort
  }

  public SchedulerOptions {
    Objects.requireNonNull(preferencePolicy, "preferencePolicy");
    Objects.requireNonNull(minValuesPolicy, "minValuesPolicy");
  }

  public SchedulerOptions withPreferencePolicy(PreferencePolicy policy) {
    return new SchedulerOptions(policy, minValuesPolicy);
  }

  public SchedulerOptions withMinValuesPolicy(MinValuesPolicy policy) {
    return new SchedulerOptions(preferencePolicy, policy);
  }
}
