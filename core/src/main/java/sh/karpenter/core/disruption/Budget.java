package sh.karpenter.core.disruption;

import java.time.Duration;
import java.util.Set;

/**
 * One disruption budget of a NodePool (docs/behaviour/disruption.md#budgets).
 *
 * @param nodes a count ({@code "3"}) or a percentage ({@code "10%"}) of the pool's nodes
 * @param schedule a cron expression (5 fields or a macro, UTC), or null for always active
 * @param duration how long the budget stays active after each schedule hit, or null
 * @param reasons the reasons it limits, or null for every reason
 */
public record Budget(String nodes, String schedule, Duration duration, Set<Reason> reasons) {
  /** Upstream's default budget: {@code nodes: 10%}. */
  public static final Budget DEFAULT = new Budget("10%", null, null, null);

  public Budget {
    reasons = reasons == null ? null : Set.copyOf(reasons);
  }
}
