package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/**
 * Voluntary disruption decisions (upstream pkg/controllers/disruption), pure: candidates, budgets,
 * the methods in order, every move simulated with the provisioning {@code Scheduler} against the
 * whole cluster.
 *
 * <p>A loop ({@link #decide}) finds the candidates (docs/behaviour/disruption.md#candidates) and
 * the budgets (docs/behaviour/disruption.md#budgets), then tries Repair (with node repair on), Emptiness, StaticDrift, Drift,
 * multi-node and single-node consolidation, and (when turned on) repack consolidation, in that order
 * (docs/behaviour/disruption.md#the-disruption-loop); the first method that produces commands wins
 * the loop. The caller waits the validation delay (15 s) and re-checks each command against fresh
 * state with {@link #validate} before carrying it out.
 */
public final class Disruption {
  private Disruption() {}

  /**
   * One loop: the commands of the first method, in the order of
   * docs/behaviour/disruption.md#the-disruption-loop, that produces any.
   */
  public static Decision decide(DisruptionInput input) {
    DisruptionPass pass = new DisruptionPass(input);
    Map<Reason, Integer> eligible = new EnumMap<>(Reason.class);
    if (input.options().nodeRepair()) {
      eligible.put(Reason.UNHEALTHY, pass.repairCandidates().size());
    }
    eligible.put(Reason.EMPTY, pass.emptinessCandidates().size());
    eligible.put(Reason.DRIFTED, pass.driftCandidates(true).size() + pass.driftCandidates(false).size());
    eligible.put(Reason.UNDERUTILIZED, pass.consolidationCandidates().size());
    for (Method method : Method.values()) {
      List<Command> commands =
          switch (method) {
            case REPAIR -> Repair.compute(pass);
            case EMPTINESS -> Emptiness.compute(pass);
            case STATIC_DRIFT, DRIFT -> DriftMethod.compute(pass, method);
            case MULTI_NODE_CONSOLIDATION -> MultiNodeConsolidation.compute(pass);
            case SINGLE_NODE_CONSOLIDATION -> SingleNodeConsolidation.compute(pass);
            case REPACK_CONSOLIDATION -> RepackConsolidation.compute(pass);
          };
      if (!commands.isEmpty()) {
        return decision(pass, method, commands, eligible);
      }
    }
    return decision(pass, null, List.of(), eligible);
  }

  private static Decision decision(DisruptionPass pass, Method method, List<Command> commands, Map<Reason, Integer> eligible) {
    return new Decision(method, commands, pass.blocked(), pass.allowed, eligible, pass.scores(), pass.timedOut(), pass.moves(),
        LeftAlone.of(pass, method, commands));
  }

  /**
   * Re-checks a command against fresh state after the validation delay (15 s): the candidates are
   * still candidates within budget, and a fresh simulation still supports the move.
   *
   * <p>Every candidate must still be a candidate on the same node and NodeClaim and still qualify for
   * the command's method (empty and Consolidatable for emptiness, Consolidatable and underutilized for
   * consolidation, drifted for drift), and the budgets for the command's reason must still allow them
   * all. Emptiness, and a drift delete whose nodes are still empty, need no simulation. For
   * consolidation, a fresh simulation must place every candidate pod and need as many new nodes as the
   * command launches (none, or one); for a replace, every instance type the command may launch must
   * still be among the fresh simulation's options, i.e. still fit the pods (upstream's check: the fresh
   * options are not price-filtered, so they are the larger set). For drift, every pod must still find
   * a place, on no more new nodes than the command launches. For repack consolidation see {@link
   * RepackConsolidation#validate}.
   */
  public static Validation validate(Command command, DisruptionInput fresh) {
    DisruptionPass pass = new DisruptionPass(fresh);
    boolean drift = command.method() == Method.STATIC_DRIFT || command.method() == Method.DRIFT;
    List<Candidate> pool = command.method() == Method.REPAIR
        ? pass.repairCandidates().stream().map(Repair.Eligible::candidate).toList()
        : drift ? pass.candidates.eventual() : pass.candidates.graceful();
    List<Candidate> current = new ArrayList<>();
    for (Candidate proposed : command.candidates()) {
      Candidate now = null;
      for (Candidate c : pool) {
        if (c.name().equals(proposed.name()) && Objects.equals(c.nodeClaimName(), proposed.nodeClaimName())) {
          now = c;
          break;
        }
      }
      if (now == null) {
        return Validation.invalid("node " + proposed.name() + " is no longer a disruption candidate");
      }
      String ineligible = ineligible(command, now);
      if (ineligible != null) {
        return Validation.invalid(ineligible);
      }
      current.add(now);
    }
    Map<String, Integer> budgets = Budgets.remaining(fresh, command.reason());
    for (Candidate c : current) {
      if (command.method() == Method.REPAIR && !c.state().node().initialized()) {
        continue; // an uninitialized node needs no budget to be repaired
      }
      if (budgets.getOrDefault(c.nodePoolName(), 0) <= 0) {
        return Validation.invalid(
            "budget for nodepool " + c.nodePoolName() + " reason " + command.reason().apiName() + " no longer allows disrupting " + c.name());
      }
      budgets.merge(c.nodePoolName(), -1, Integer::sum);
    }
    if (command.method() == Method.EMPTINESS || command.method() == Method.REPAIR) {
      return Validation.VALID;
    }
    if (drift) {
      if (command.replacements().isEmpty() && current.stream().allMatch(c -> Costs.isEmpty(Simulation.podsToMove(c)))) {
        return Validation.VALID;
      }
      Simulation.Outcome outcome = pass.simulation.run(current, false);
      if (!outcome.ok()) {
        return Validation.invalid(outcome.message());
      }
      if (outcome.replacements().size() > command.replacements().size()) {
        return Validation.invalid(
            "the pods now need " + outcome.replacements().size() + " new nodes, the command launches " + command.replacements().size());
      }
      return Validation.VALID;
    }
    if (command.method() == Method.REPACK_CONSOLIDATION) {
      return RepackConsolidation.validate(pass, command, current);
    }
    Simulation.Outcome outcome = pass.simulation.run(current, true);
    if (!outcome.ok()) {
      return Validation.invalid(outcome.message());
    }
    int needed = outcome.replacements().size();
    if (needed > 1) {
      return Validation.invalid("the pods now need " + needed + " new nodes");
    }
    if (needed == 0) {
      return command.replacements().isEmpty()
          ? Validation.VALID
          : Validation.invalid("the pods now fit without a replacement; a better move exists");
    }
    if (command.replacements().isEmpty()) {
      return Validation.invalid("the pods no longer fit without a new node");
    }
    Set<String> fits = new HashSet<>();
    for (InstanceType type : outcome.replacements().getFirst().instanceTypeOptions()) {
      fits.add(type.name());
    }
    for (PlannedNodeClaim replacement : command.replacements()) {
      for (InstanceType type : replacement.instanceTypeOptions()) {
        if (!fits.contains(type.name())) {
          return Validation.invalid("replacement instance type " + type.name() + " no longer fits the pods");
        }
      }
    }
    return Validation.VALID;
  }

  /** Why a fresh candidate no longer qualifies for the command's method, or null. */
  private static String ineligible(Command command, Candidate c) {
    return switch (command.method()) {
      case REPAIR -> null; // the candidates are eligible repair candidates already
      case EMPTINESS -> DisruptionPass.emptiness(c) ? null : "node " + c.name() + " is no longer empty and consolidatable";
      case STATIC_DRIFT, DRIFT -> c.state().drift() != null ? null : "node " + c.name() + " is no longer drifted";
      case MULTI_NODE_CONSOLIDATION, SINGLE_NODE_CONSOLIDATION, REPACK_CONSOLIDATION ->
          DisruptionPass.consolidation(c) ? null : "node " + c.name() + " is no longer consolidatable";
    };
  }
}
