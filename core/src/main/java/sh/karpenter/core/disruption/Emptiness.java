package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Emptiness (docs/behaviour/disruption.md#emptiness, reason {@code Empty}): every empty,
 * Consolidatable candidate of a NodePool whose consolidation is not turned off ({@code
 * consolidateAfter} is not Never), under any consolidation policy, is deleted in one command, as
 * many per NodePool as its budget allows, the dearest first. No simulation: an empty node's pods
 * need no new home.
 */
final class Emptiness {
  private Emptiness() {}

  static List<Command> compute(DisruptionPass pass) {
    List<Candidate> eligible = new ArrayList<>(pass.emptinessCandidates());
    eligible.sort(Comparator.comparingDouble((Candidate c) -> -c.price()).thenComparing(Candidate::name));
    Map<String, Integer> budgets = pass.budgetsCopy(Reason.EMPTY);
    List<Candidate> taken = new ArrayList<>();
    for (Candidate candidate : eligible) {
      if (budgets.getOrDefault(candidate.nodePoolName(), 0) <= 0) {
        pass.budgetBlocked(candidate, Reason.EMPTY);
        continue;
      }
      budgets.merge(candidate.nodePoolName(), -1, Integer::sum);
      taken.add(candidate);
    }
    if (taken.isEmpty()) {
      return List.of();
    }
    return List.of(new Command(Method.EMPTINESS, Reason.EMPTY, taken, List.of(), Candidate.totalPrice(taken)));
  }
}
