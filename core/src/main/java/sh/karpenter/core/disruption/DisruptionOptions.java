package sh.karpenter.core.disruption;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import sh.karpenter.core.cloudprovider.RepairPolicy;

/**
 * Knobs of a disruption decision.
 *
 * @param spotToSpotConsolidation the {@code SpotToSpotConsolidation} feature gate
 * @param clock read for the consolidation timeouts (a {@code TestingClock} in tests)
 * @param singleNodeTimeout upstream: 3 min
 * @param multiNodeTimeout upstream: 1 min
 * @param repairPolicies the cloud provider's repair policies when the {@code NodeRepair} feature gate
 *     is on; empty turns node repair off (the {@link Method#REPAIR} method does not run)
 * @param repackConsolidation whether {@link Method#REPACK_CONSOLIDATION} runs after upstream's methods
 *     (not upstream's; off by default; docs/behaviour/disruption.md#repack-consolidation)
 * @param paybackHorizon a repack move is taken only when its savings over this horizon exceed its
 *     disruption cost in dollars ({@link Payback})
 */
public record DisruptionOptions(
    boolean spotToSpotConsolidation,
    Clock clock,
    Duration singleNodeTimeout,
    Duration multiNodeTimeout,
    List<RepairPolicy> repairPolicies,
    boolean repackConsolidation,
    Duration paybackHorizon) {
  /** The default {@link #paybackHorizon()}. */
  public static final Duration DEFAULT_PAYBACK_HORIZON = Duration.ofHours(2);

  public DisruptionOptions {
    repairPolicies = repairPolicies == null ? List.of() : List.copyOf(repairPolicies);
    paybackHorizon = paybackHorizon == null ? DEFAULT_PAYBACK_HORIZON : paybackHorizon;
    if (paybackHorizon.isNegative()) {
      throw new IllegalArgumentException("paybackHorizon must not be negative, got " + paybackHorizon);
    }
  }

  /** Options without repack consolidation. */
  public DisruptionOptions(
      boolean spotToSpotConsolidation, Clock clock, Duration singleNodeTimeout, Duration multiNodeTimeout, List<RepairPolicy> repairPolicies) {
    this(spotToSpotConsolidation, clock, singleNodeTimeout, multiNodeTimeout, repairPolicies, false, DEFAULT_PAYBACK_HORIZON);
  }

  /** Options without node repair. */
  public DisruptionOptions(boolean spotToSpotConsolidation, Clock clock, Duration singleNodeTimeout, Duration multiNodeTimeout) {
    this(spotToSpotConsolidation, clock, singleNodeTimeout, multiNodeTimeout, List.of());
  }

  public static DisruptionOptions defaults(Clock clock) {
    return new DisruptionOptions(false, clock, Duration.ofMinutes(3), Duration.ofMinutes(1));
  }

  public DisruptionOptions withSpotToSpotConsolidation(boolean enabled) {
    return new DisruptionOptions(enabled, clock, singleNodeTimeout, multiNodeTimeout, repairPolicies, repackConsolidation, paybackHorizon);
  }

  /** Node repair with these policies (empty: off). */
  public DisruptionOptions withRepairPolicies(List<RepairPolicy> policies) {
    return new DisruptionOptions(spotToSpotConsolidation, clock, singleNodeTimeout, multiNodeTimeout, policies, repackConsolidation, paybackHorizon);
  }

  /** Repack consolidation on or off, with the payback horizon its moves must pay back within. */
  public DisruptionOptions withRepackConsolidation(boolean enabled, Duration horizon) {
    return new DisruptionOptions(spotToSpotConsolidation, clock, singleNodeTimeout, multiNodeTimeout, repairPolicies, enabled, horizon);
  }

  /** Whether node repair runs: the gate is on and the provider has policies. */
  public boolean nodeRepair() {
    return !repairPolicies.isEmpty();
  }
}
