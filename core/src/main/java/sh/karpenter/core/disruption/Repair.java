package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.wellknown.Annotations;

/**
 * Node repair (upstream v1.15 disruption/repair.go, docs/behaviour/disruption.md#node-repair, reason
 * {@code Unhealthy}): the first method of the loop, run only when node repair is on ({@link
 * DisruptionOptions#nodeRepair()}). It replaces a node one of whose Node conditions has matched a
 * repair policy for longer than the policy's toleration.
 *
 * <p>Eligible: a {@linkplain Candidates#repair repair candidate} (initialized or not, whatever its
 * {@code do-not-disrupt}) with an eligible policy ({@link RepairPolicies}), without {@code
 * karpenter.sh/do-not-repair} (reported {@code DisruptionBlocked}), and whose blocking pods (PDBs,
 * pod-level do-not-disrupt), if any, a NodeClaim {@code terminationGracePeriod} bounds (else reported
 * {@code DisruptionBlocked}: "repair requires a termination grace period to bypass blocking pods").
 *
 * <p>Candidates go highest repair score first, then lowest disruption cost, then name. A candidate of
 * a NodePool where more than 20% of the nodes (rounded up) have a condition some policy covers,
 * whatever its toleration, is withheld ({@code NodeRepairBlocked}: a correlated failure is not
 * repaired node by node). An initialized candidate needs the {@code Unhealthy} budget of its NodePool;
 * an uninitialized one runs no workload to protect and needs none. The first candidate whose pods
 * (blocking ones included) all find a place, on the rest of the cluster or on new NodeClaims, gives the
 * one command of the pass: launch the replacements, then delete the candidate.
 */
final class Repair {
  /** Upstream's {@code repairUnhealthyThreshold}: 20% of a NodePool's nodes, rounded up. */
  static final int UNHEALTHY_THRESHOLD_PERCENT = 20;

  private Repair() {}

  /** A repair candidate with an eligible policy. */
  record Eligible(Candidate candidate, RepairPolicies.Result result) {}

  /**
   * The repair candidates with an eligible policy and no veto, reporting the vetoed ones; empty when
   * node repair is off.
   */
  static List<Eligible> eligible(DisruptionPass pass) {
    if (!pass.input.options().nodeRepair()) {
      return List.of();
    }
    RepairPolicies policies = pass.repairPolicies();
    List<Eligible> eligible = new ArrayList<>();
    for (Candidate candidate : pass.candidates.repair()) {
      RepairPolicies.Result result = policies.resolve(candidate.state().health(), pass.input.now());
      if (result == null) {
        continue;
      }
      if (candidate.state().health().doNotRepair()) {
        pass.report(candidate, Candidates.DISRUPTION_BLOCKED, "repair is blocked through the \"" + Annotations.DO_NOT_REPAIR + "\" annotation");
        continue;
      }
      if (!candidate.state().blockers().isEmpty() && !candidate.state().hasTerminationGracePeriod()) {
        pass.report(candidate, Candidates.DISRUPTION_BLOCKED, "repair requires a termination grace period to bypass blocking pods");
        continue;
      }
      eligible.add(new Eligible(candidate, result));
    }
    return eligible;
  }

  static List<Command> compute(DisruptionPass pass) {
    List<Eligible> eligible = new ArrayList<>(pass.repairCandidates());
    if (eligible.isEmpty()) {
      return List.of();
    }
    Map<Eligible, Double> score = new IdentityHashMap<>();
    for (Eligible e : eligible) {
      score.put(e, e.result().scoreAt(pass.input.now()));
    }
    eligible.sort(Comparator.comparingDouble((Eligible e) -> -score.get(e))
        .thenComparingDouble(e -> e.candidate().disruptionCost())
        .thenComparing(e -> e.candidate().name()));
    Set<String> tripped = trippedPools(pass.input, pass.repairPolicies());
    Map<String, Integer> budgets = pass.budgets(Reason.UNHEALTHY);
    for (Eligible e : eligible) {
      Candidate candidate = e.candidate();
      if (tripped.contains(candidate.nodePoolName())) {
        pass.report(candidate, Blocked.NODE_REPAIR_BLOCKED,
            "more than " + UNHEALTHY_THRESHOLD_PERCENT + "% of nodes in nodepool \"" + candidate.nodePoolName() + "\" are unhealthy");
        continue;
      }
      if (candidate.state().node().initialized() && budgets.getOrDefault(candidate.nodePoolName(), 0) <= 0) {
        pass.budgetBlocked(candidate, Reason.UNHEALTHY);
        continue;
      }
      Simulation.Outcome outcome = pass.simulation.run(List.of(candidate), false, true);
      if (!outcome.ok()) {
        pass.report(candidate, Candidates.DISRUPTION_BLOCKED, outcome.message());
        continue;
      }
      return List.of(new Command(Method.REPAIR, Reason.UNHEALTHY, List.of(candidate), outcome.replacements(),
          candidate.price() - outcome.replacementPrice(), e.result().condition()));
    }
    return List.of();
  }

  /**
   * The NodePools where more than {@value #UNHEALTHY_THRESHOLD_PERCENT}% of the Nodes (rounded up, so
   * one unhealthy node does not stop repair in a small pool) have a condition some policy covers,
   * whatever its toleration (upstream {@code breakerTrippedPools}). Every Node labelled with the
   * NodePool counts.
   */
  static Set<String> trippedPools(DisruptionInput input, RepairPolicies policies) {
    Map<String, int[]> counts = new HashMap<>();
    for (StateNode node : input.nodes()) {
      if (node.health() == null || node.nodePoolName() == null) {
        continue;
      }
      int[] count = counts.computeIfAbsent(node.nodePoolName(), k -> new int[2]);
      count[0]++;
      if (policies.unhealthy(node.health())) {
        count[1]++;
      }
    }
    Set<String> tripped = new HashSet<>();
    counts.forEach((pool, count) -> {
      long threshold = Math.ceilDiv((long) UNHEALTHY_THRESHOLD_PERCENT * count[0], 100L);
      if (count[1] > threshold) {
        tripped.add(pool);
      }
    });
    return tripped;
  }
}
