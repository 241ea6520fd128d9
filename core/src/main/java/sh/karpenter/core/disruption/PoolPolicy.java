package sh.karpenter.core.disruption;

import java.time.Duration;
import java.util.List;

/**
 * A NodePool's {@code spec.disruption}.
 *
 * @param consolidateAfter null for {@code Never} (turns off consolidation and emptiness)
 * @param budgets empty means upstream's default {@code [{nodes: 10%}]}
 */
public record PoolPolicy(String nodePoolName, ConsolidationPolicy policy, Duration consolidateAfter, List<Budget> budgets) {
  public PoolPolicy {
    budgets = budgets == null || budgets.isEmpty() ? List.of(Budget.DEFAULT) : List.copyOf(budgets);
  }

  public boolean consolidationEnabled() {
    return consolidateAfter != null;
  }
}
