package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import sh.karpenter.core.scheduling.Deadline;

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
    Deadline deadline = Deadline.after(pass.input.options().clock(), pass.input.options().multiNodeTimeout());
    Command last = null;
    Command[] lastRejected = {null};
    boolean wholeListTried = false;
    int min = 1;
    int max = within.size() - 1;
    while (min <= max) {
      if (deadline.passed()) {
        pass.timedOut(Method.MULTI_NODE_CONSOLIDATION);
        break;
      }
      int mid = (min + max) >>> 1;
      wholeListTried |= mid == within.size() - 1;
      Command command = consolidate(pass, within.subList(0, mid + 1), lastRejected, deadline);
      if (command != null) {
        last = command;
        min = mid + 1;
      } else {
        max = mid - 1;
      }
    }
    if (!wholeListTried && !deadline.passed()) {
      Command whole = consolidate(pass, within, lastRejected, deadline);
      if (whole != null) {
        last = whole;
      }
    }
    if (last != null) {
      pass.multiNodeMove(last, true);
    } else if (lastRejected[0] != null) {
      pass.multiNodeMove(lastRejected[0], false);
    }
    return last == null ? List.of() : List.of(last);
  }

  /**
   * The approved command that consolidates {@code candidates} into at most one node, or null; a
   * valid command the Balanced policy rejects is left in {@code lastRejected[0]}.
   */
  private static Command consolidate(DisruptionPass pass, List<Candidate> candidates, Command[] lastRejected, Deadline deadline) {
    pass.simulation.deadline(deadline);
    Consolidation.Move move;
    try {
      move = pass.consolidation.compute(Method.MULTI_NODE_CONSOLIDATION, candidates);
    } finally {
      pass.simulation.deadline(Deadline.NONE);
    }
    Command command = move.valid() ? Consolidation.withoutSameInstanceType(move.command()) : null;
    if (command == null) {
      return null;
    }
    if (!pass.approved(command)) {
      lastRejected[0] = command;
      return null;
    }
    return command;
  }
}
