package sh.karpenter.core.disruption;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Multi-node consolidation (docs/behaviour/disruption.md#multi-node-consolidation, reason {@code
 * Underutilized}): the candidates, in consolidation order and within their NodePools' budgets, at
 * most {@value #MAX_CANDIDATES}, are searched by bisection for the longest prefix (of at least two)
 * that can be deleted, or replaced by one node cheaper than the cheapest candidate of the same
 * instance type. Once {@link DisruptionOptions#multiNodeTimeout()} has passed, the last valid
 * prefix found is the command.
 *
 * <p>Bisection assumes that a prefix which cannot be consolidated has no longer prefix that can, and
 * that is not always so: three nodes of one small type (pods 2, 2 and 1) cannot become one node of
 * twice the price from any two of them, but all three can. Upstream stops at such a cluster for
 * good. Here, when bisection ends (in time) short of the whole list, the whole list is simulated once
 * more, so a cluster that fits on one cheaper node always gets there.
 */
final class MultiNodeConsolidation {
  /** Upstream considers at most 100 candidates at once. */
  static final int MAX_CANDIDATES = 100;

  private MultiNodeConsolidation() {}

  static List<Command> compute(DisruptionPass pass) {
    List<Candidate> ordered = pass.consolidationCandidates();
    Map<String, Integer> budgets = pass.budgetsCopy(Reason.UNDERUTILIZED);
    List<Candidate> within = new ArrayList<>();
    for (Candidate candidate : ordered) {
      if (budgets.getOrDefault(candidate.nodePoolName(), 0) <= 0) {
        pass.budgetBlocked(candidate, Reason.UNDERUTILIZED);
        continue;
      }
      budgets.merge(candidate.nodePoolName(), -1, Integer::sum);
      within.add(candidate);
    }
    if (within.size() > MAX_CANDIDATES) {
      within = within.subList(0, MAX_CANDIDATES);
    }
    if (within.size() < 2) {
      return List.of();
    }
    Clock clock = pass.input.options().clock();
    Instant deadline = clock.instant().plus(pass.input.options().multiNodeTimeout());
    Command last = null;
    boolean wholeListTried = false;
    int min = 1;
    int max = within.size() - 1;
    while (min <= max) {
      if (clock.instant().isAfter(deadline)) {
        pass.timedOut(Method.MULTI_NODE_CONSOLIDATION);
        break;
      }
      int mid = (min + max) >>> 1;
      wholeListTried |= mid == within.size() - 1;
      Command command = consolidate(pass, within.subList(0, mid + 1));
      if (command != null) {
        last = command;
        min = mid + 1;
      } else {
        max = mid - 1;
      }
    }
    if (!wholeListTried && !clock.instant().isAfter(deadline)) {
      Command whole = consolidate(pass, within);
      if (whole != null) {
        last = whole;
      }
    }
    return last == null ? List.of() : List.of(last);
  }

  /** The approved command that consolidates {@code candidates} into at most one node, or null. */
  private static Command consolidate(DisruptionPass pass, List<Candidate> candidates) {
    Consolidation.Move move = pass.consolidation.compute(Method.MULTI_NODE_CONSOLIDATION, candidates);
    Command command = move.valid() ? Consolidation.withoutSameInstanceType(move.command()) : null;
    return command != null && pass.approved(command) ? command : null;
  }
}
