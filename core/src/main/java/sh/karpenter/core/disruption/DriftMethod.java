package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * Drift (docs/behaviour/disruption.md#drift, reason {@code Drifted}, the "eventual" class): the
 * methods StaticDrift (the NodePool template changed: {@code NodePoolDrifted}) and Drift (every
 * other drift reason) replace drifted nodes, oldest drift first.
 *
 * <p>Every empty drifted candidate within budget goes in one delete command. Otherwise the first
 * non-empty candidate within budget whose pods all find a place (on the rest of the cluster or on new
 * NodeClaims, as many as they need) is replaced; a candidate whose pods cannot move is reported
 * {@code DisruptionBlocked} and the next is tried. A drifted node held by blocking pods is a candidate
 * when its NodeClaim has a terminationGracePeriod; the blocking pods are left to be evicted when the
 * grace period ends and get no replacement.
 */
final class DriftMethod {
  private DriftMethod() {}

  static List<Command> compute(DisruptionPass pass, Method method) {
    boolean statically = method == Method.STATIC_DRIFT;
    List<Candidate> eligible = new ArrayList<>(pass.driftCandidates(statically));
    eligible.sort(Comparator.comparing((Candidate c) -> c.state().drift().since(), Comparator.nullsFirst(Comparator.naturalOrder()))
        .thenComparing(Candidate::name));
    Map<String, Integer> budgets = pass.budgetsCopy(Reason.DRIFTED);

    List<Candidate> empty = new ArrayList<>();
    for (Candidate candidate : eligible) {
      if (!Costs.isEmpty(Simulation.podsToMove(candidate))) {
        continue;
      }
      if (budgets.getOrDefault(candidate.nodePoolName(), 0) <= 0) {
        pass.budgetBlocked(candidate, Reason.DRIFTED);
        continue;
      }
      budgets.merge(candidate.nodePoolName(), -1, Integer::sum);
      empty.add(candidate);
    }
    if (!empty.isEmpty()) {
      return List.of(new Command(method, Reason.DRIFTED, empty, List.of(), Candidate.totalPrice(empty)));
    }

    for (Candidate candidate : eligible) {
      if (budgets.getOrDefault(candidate.nodePoolName(), 0) <= 0) {
        pass.budgetBlocked(candidate, Reason.DRIFTED);
        continue;
      }
      Simulation.Outcome outcome = pass.simulation.run(List.of(candidate), false);
      if (!outcome.ok()) {
        pass.report(candidate, Candidates.DISRUPTION_BLOCKED, outcome.message());
        continue;
      }
      return List.of(
          new Command(method, Reason.DRIFTED, List.of(candidate), outcome.replacements(), candidate.price() - outcome.replacementPrice()));
    }
    return List.of();
  }
}
