package sh.karpenter.core.scheduling;

import java.util.Objects;

/**
 * Knobs of a scheduling pass, mirroring upstream's {@code --preference-policy} and
 * {@code --min-values-policy} settings and its reserved-offering mode.
 *
 * @param preferencePolicy Respect treats preferences as requirements until relaxed; Ignore drops them
 * @param minValuesPolicy Strict fails a NodeClaim that cannot meet minValues; BestEffort lowers them
 * @param reservedOfferingMode how a NodeClaim that could use reserved capacity but finds it all held
 *     by other NodeClaims of the pass is treated (docs/behaviour/scheduling.md#reserved-capacity)
 * @param costRepacking whether the pass ends with the cost post-pass that re-plans unconstrained
 *     NodeClaims onto cheaper node mixes (on for provisioning; consolidation simulations turn it off,
 *     because a move is judged by the single replacement node first fit would launch, as upstream)
 */
public record SchedulerOptions(
    PreferencePolicy preferencePolicy,
    MinValuesPolicy minValuesPolicy,
    ReservedOfferingMode reservedOfferingMode,
    boolean costRepacking) {
  /** Upstream's provisioning defaults: Respect, Strict, Strict, plus this port's cost post-pass. */
  public static final SchedulerOptions DEFAULT =
      new SchedulerOptions(PreferencePolicy.Respect, MinValuesPolicy.Strict, ReservedOfferingMode.Strict);

  /** Options with the cost post-pass on. */
  public SchedulerOptions(PreferencePolicy preferencePolicy, MinValuesPolicy minValuesPolicy, ReservedOfferingMode reservedOfferingMode) {
    this(preferencePolicy, minValuesPolicy, reservedOfferingMode, true);
  }

  /** Options with the reserved-offering mode provisioning uses (Strict). */
  public SchedulerOptions(PreferencePolicy preferencePolicy, MinValuesPolicy minValuesPolicy) {
    this(preferencePolicy, minValuesPolicy, ReservedOfferingMode.Strict);
  }

  /**
   * What happens when a NodeClaim's compatible reserved offerings are all reserved by other
   * NodeClaims of the pass (each NodeClaim pessimistically holds one unit of every reservation it
   * could launch into).
   */
  public enum ReservedOfferingMode {
    /**
     * Provisioning: the pod is deferred to the next pass (a reserved-offering error: not relaxed, no
     * fallback to lower-weight NodePools, not reported unschedulable) rather than launched on other
     * capacity while reservations may still free up.
     */
    Strict,
    /** Simulations such as consolidation: the NodeClaim goes on without a reservation if other offerings allow. */
    Fallback
  }

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
    Objects.requireNonNull(reservedOfferingMode, "reservedOfferingMode");
  }

  public SchedulerOptions withPreferencePolicy(PreferencePolicy policy) {
    return new SchedulerOptions(policy, minValuesPolicy, reservedOfferingMode, costRepacking);
  }

  public SchedulerOptions withMinValuesPolicy(MinValuesPolicy policy) {
    return new SchedulerOptions(preferencePolicy, policy, reservedOfferingMode, costRepacking);
  }

  public SchedulerOptions withReservedOfferingMode(ReservedOfferingMode mode) {
    return new SchedulerOptions(preferencePolicy, minValuesPolicy, mode, costRepacking);
  }

  public SchedulerOptions withCostRepacking(boolean enabled) {
    return new SchedulerOptions(preferencePolicy, minValuesPolicy, reservedOfferingMode, enabled);
  }
}
