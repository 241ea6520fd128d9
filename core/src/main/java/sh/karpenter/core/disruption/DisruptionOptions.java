package sh.karpenter.core.disruption;

import java.time.Clock;
import java.time.Duration;

/**
 * Knobs of a disruption decision.
 *
 * @param spotToSpotConsolidation the {@code SpotToSpotConsolidation} feature gate
 * @param clock read for the consolidation timeouts (a {@code TestingClock} in tests)
 * @param singleNodeTimeout upstream: 3 min
 * @param multiNodeTimeout upstream: 1 min
 */
public record DisruptionOptions(boolean spotToSpotConsolidation, Clock clock, Duration singleNodeTimeout, Duration multiNodeTimeout) {
  public static DisruptionOptions defaults(Clock clock) {
    return new DisruptionOptions(false, clock, Duration.ofMinutes(3), Duration.ofMinutes(1));
  }

  public DisruptionOptions withSpotToSpotConsolidation(boolean enabled) {
    return new DisruptionOptions(enabled, clock, singleNodeTimeout, multiNodeTimeout);
  }
}
