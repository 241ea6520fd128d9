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
 */
public record DisruptionOptions(
    boolean spotToSpotConsolidation, Clock clock, Duration singleNodeTimeout, Duration multiNodeTimeout, List<RepairPolicy> repairPolicies) {
  public DisruptionOptions {
    repairPolicies = repairPolicies == null ? List.of() : List.copyOf(repairPolicies);
  }

  /** Options without node repair. */
  public DisruptionOptions(boolean spotToSpotConsolidation, Clock clock, Duration singleNodeTimeout, Duration multiNodeTimeout) {
    this(spotToSpotConsolidation, clock, singleNodeTimeout, multiNodeTimeout, List.of());
  }

  public static DisruptionOptions defaults(Clock clock) {
    return new DisruptionOptions(false, clock, Duration.ofMinutes(3), Duration.ofMinutes(1));
  }

  public DisruptionOptions withSpotToSpotConsolidation(boolean enabled) {
    return new DisruptionOptions(enabled, clock, singleNodeTimeout, multiNodeTimeout, repairPolicies);
  }

  /** Node repair with these policies (empty: off). */
  public DisruptionOptions withRepairPolicies(List<RepairPolicy> policies) {
    return new DisruptionOptions(spotToSpotConsolidation, clock, singleNodeTimeout, multiNodeTimeout, policies);
  }

  /** Whether node repair runs: the gate is on and the provider has policies. */
  public boolean nodeRepair() {
    return !repairPolicies.isEmpty();
  }
}
