package sh.karpenter.core.disruption;

import java.util.List;
import java.util.Map;
import sh.karpenter.core.scheduling.Deadline;

/**
 * Single-node consolidation (docs/behaviour/disruption.md#single-node-consolidation, reason {@code
 * Underutilized}): the candidates, in consolidation order, are tried one at a time; the first that
 * can be deleted, or replaced by one cheaper node (and, under the Balanced policy, whose move
 * scores high enough), is the loop's command. A candidate consolidation cannot help is reported
 * {@code Unconsolidatable} with the reason. The search stops, without a command, once {@link
 * DisruptionOptions#singleNodeTimeout()} has passed.
 */
final class SingleNodeConsolidation {
  private SingleNodeConsolidation() {}

  static List<Command> compute(DisruptionPass pass) {
    List<Candidate> ordered = pass.consolidationCandidates();
    Map<String, Integer> budgets = pass.budgets(Reason.UNDERUTILIZED);
    Deadline deadline = Deadline.after(pass.input.options().clock(), pass.input.options().singleNodeTimeout());
    for (Candidate candidate : ordered) {
      if (budgets.getOrDefault(candidate.nodePoolName(), 0) <= 0) {
        pass.budgetBlocked(candidate, Reason.UNDERUTILIZED);
        continue;
      }
      if (deadline.passed()) {
        pass.timedOut(Method.SINGLE_NODE_CONSOLIDATION);
        return List.of();
      }
      pass.simulation.deadline(deadline);
      Consolidation.Move move;
      try {
        move = pass.consolidation.compute(Method.SINGLE_NODE_CONSOLIDATION, List.of(candidate));
      } finally {
        pass.simulation.deadline(Deadline.NONE);
      }
      if (!move.valid()) {
        pass.report(candidate, Candidates.UNCONSOLIDATABLE, move.reason());
        continue;
      }
      if (!pass.approved(move.command())) {
        continue;
      }
      return List.of(move.command());
    }
    return List.of();
  }
}
