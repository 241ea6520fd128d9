package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.wellknown.Labels;

/**
 * One pass of the disruption loop ({@link Disruption#decide} or {@link Disruption#validate}): the
 * state its methods share, that is the input, the candidates, the budgets left per reason, the
 * simulation, and what the pass reports (blocked nodes, Balanced scores, methods that timed out).
 */
final class DisruptionPass {
  final DisruptionInput input;
  final Candidates candidates;
  final Simulation simulation;
  final Consolidation consolidation;
  /** Per NodePool and reason, what the budgets allow before subtracting the nodes already disrupting. */
  final Map<String, Map<Reason, Integer>> allowed;
  private final Map<Reason, Map<String, Integer>> remaining = new EnumMap<>(Reason.class);
  private final Set<Blocked> blocked = new LinkedHashSet<>();
  private final List<ScoredMove> scores = new ArrayList<>();
  private final List<ConsolidationMove> moves = new ArrayList<>();
  private final Set<Method> timedOut = EnumSet.noneOf(Method.class);
  private Map<String, Balanced.Totals> balancedTotals;
  /** Each method's candidates, found once per loop (the loop's count of eligible nodes reads them too). */
  private List<Candidate> emptinessCandidates;
  private final Map<Boolean, List<Candidate>> driftCandidates = new HashMap<>();
  private List<Candidate> consolidationCandidates;
  private RepairPolicies repairPolicies;
  private Simulation repackSimulation;
  private List<Repair.Eligible> repairCandidates;

  DisruptionPass(DisruptionInput input) {
    this.input = input;
    this.candidates = Candidates.of(input);
    this.simulation = new Simulation(input);
    this.consolidation = new Consolidation(simulation, input.options());
    this.allowed = Budgets.allowed(input);
    blocked.addAll(candidates.blocked());
    for (Candidate c : candidates.graceful()) {
      if (underutilized(c) && !c.priced()) {
        Map<String, String> labels = c.state().node().labels();
        report(
            c,
            Candidates.UNCONSOLIDATABLE,
            "instance type \"" + labels.get(Labels.INSTANCE_TYPE) + "\" (" + labels.get(Labels.ZONE) + ", "
                + labels.get(Labels.CAPACITY_TYPE) + ") can't be resolved in nodepool " + c.nodePoolName());
      }
    }
  }

  /** Emptiness: consolidation is not turned off, the node is Consolidatable and empty. */
  static boolean emptiness(Candidate c) {
    return c.pool().consolidationEnabled() && c.state().consolidatable() && Costs.isEmpty(c.reschedulablePods());
  }

  /** Drift: the NodeClaim is Drifted, statically (NodePoolDrifted) or not. */
  static boolean drift(Candidate c, boolean statically) {
    return c.state().drift() != null && c.state().drift().isStatic() == statically;
  }

  /**
   * An underutilized node consolidation looks at: consolidation is on and not WhenEmpty, the node is
   * Consolidatable and not empty.
   */
  static boolean underutilized(Candidate c) {
    return c.pool().consolidationEnabled()
        && c.pool().policy() != ConsolidationPolicy.WHEN_EMPTY
        && c.state().consolidatable()
        && !Costs.isEmpty(c.reschedulablePods());
  }

  /** Consolidation: an underutilized node whose price is known. */
  static boolean consolidation(Candidate c) {
    return underutilized(c) && c.priced();
  }

  /** The simulation of {@link RepackConsolidation}: the same scheduler, with the cost post-pass (moves may launch several nodes). */
  Simulation repackSimulation() {
    if (repackSimulation == null) {
      repackSimulation = new Simulation(input, true);
    }
    return repackSimulation;
  }

  /** The repair policies of the input's options, compiled once per pass. */
  RepairPolicies repairPolicies() {
    if (repairPolicies == null) {
      repairPolicies = new RepairPolicies(input.options().repairPolicies());
    }
    return repairPolicies;
  }

  /** The nodes node repair may act on ({@link Repair#eligible}), found once per loop. */
  List<Repair.Eligible> repairCandidates() {
    if (repairCandidates == null) {
      repairCandidates = List.copyOf(Repair.eligible(this));
    }
    return repairCandidates;
  }

  List<Candidate> emptinessCandidates() {
    if (emptinessCandidates == null) {
      emptinessCandidates = candidates.graceful().stream().filter(DisruptionPass::emptiness).toList();
    }
    return emptinessCandidates;
  }

  List<Candidate> driftCandidates(boolean statically) {
    return driftCandidates.computeIfAbsent(statically, s -> candidates.eventual().stream().filter(c -> drift(c, s)).toList());
  }

  /** The consolidation candidates in {@link #consolidationOrder consolidation order}. */
  List<Candidate> consolidationCandidates() {
    if (consolidationCandidates == null) {
      consolidationCandidates = List.copyOf(consolidationOrder(candidates.graceful().stream().filter(DisruptionPass::consolidation).toList()));
    }
    return consolidationCandidates;
  }

  /**
   * Per NodePool, how many nodes {@code reason} may disrupt at the start of the loop (read-only: a
   * method that takes several candidates decrements a {@link #budgetsCopy copy}).
   */
  Map<String, Integer> budgets(Reason reason) {
    return remaining.computeIfAbsent(reason, r -> Budgets.remaining(input, r));
  }

  /** A fresh copy of the budgets left at the start of the loop, for one method to decrement. */
  Map<String, Integer> budgetsCopy(Reason reason) {
    return new HashMap<>(budgets(reason));
  }

  /** Records that a candidate was passed over because the pool's budget for the reason was used up before the loop. */
  void budgetBlocked(Candidate c, Reason reason) {
    if (budgets(reason).getOrDefault(c.nodePoolName(), 0) > 0) {
      return; // taken by other candidates in this loop: the node's turn comes in a later loop
    }
    int allowedNow = allowed.getOrDefault(c.nodePoolName(), Map.of()).getOrDefault(reason, 0);
    String message =
        "budget for nodepool " + c.nodePoolName() + " reason " + reason.apiName() + " allows 0 disruptions";
    if (allowedNow != 0) {
      message += " (the nodes it allows are already being disrupted)";
    }
    blocked.add(Candidates.blocked(c.state(), Candidates.DISRUPTION_BLOCKED, message));
  }

  void report(Candidate c, String event, String message) {
    blocked.add(Candidates.blocked(c.state(), event, message));
  }

  List<Blocked> blocked() {
    return List.copyOf(blocked);
  }

  List<ScoredMove> scores() {
    return List.copyOf(scores);
  }

  /** Records that a consolidation method stopped at its timeout (upstream's consolidation_timeouts_total). */
  void timedOut(Method method) {
    timedOut.add(method);
  }

  Set<Method> timedOut() {
    return Set.copyOf(timedOut);
  }

  /**
   * Whether a consolidation command passes the Balanced policy of its candidates' NodePools (always,
   * for other policies); the scores are recorded.
   */
  boolean approved(Command command) {
    if (balancedTotals == null) {
      balancedTotals = Balanced.totals(candidates.graceful());
    }
    List<ScoredMove> scored = Balanced.evaluate(command, balancedTotals);
    scores.addAll(scored);
    boolean approved = scored.stream().allMatch(ScoredMove::approved);
    if (command.candidates().size() == 1) {
      // upstream counts every single-node move it judges (ApproveCommand)
      Candidate candidate = command.candidates().getFirst();
      moves.add(new ConsolidationMove(candidate.nodePoolName(), candidate.pool().policy(), approved));
    }
    return approved;
  }

  /**
   * Counts a multi-node move once per NodePool of its candidates (upstream's {@code
   * EmitMultiNodeEvents}): the command multi-node consolidation settled on, or the last one the
   * Balanced policy rejected.
   */
  void multiNodeMove(Command command, boolean approved) {
    Map<String, ConsolidationPolicy> pools = new LinkedHashMap<>();
    command.candidates().forEach(c -> pools.putIfAbsent(c.nodePoolName(), c.pool().policy()));
    pools.forEach((pool, policy) -> moves.add(new ConsolidationMove(pool, policy, approved)));
  }

  List<ConsolidationMove> moves() {
    return List.copyOf(moves);
  }

  /**
   * Consolidation order (docs/behaviour/disruption.md#single-node-consolidation): savings ratio
   * (price over reschedule cost) descending, then name; then interleaved across NodePools, pools in
   * the order of their first candidate.
   */
  static List<Candidate> consolidationOrder(List<Candidate> candidates) {
    Map<Candidate, Double> ratio = new IdentityHashMap<>();
    for (Candidate c : candidates) {
      ratio.put(c, Costs.savingsRatio(c.price(), Costs.rescheduleDisruptionCost(c.reschedulablePods())));
    }
    List<Candidate> sorted = new ArrayList<>(candidates);
    sorted.sort(Comparator.comparingDouble((Candidate c) -> -ratio.get(c)).thenComparing(Candidate::name));
    Map<String, List<Candidate>> byPool = new LinkedHashMap<>();
    for (Candidate c : sorted) {
      byPool.computeIfAbsent(c.nodePoolName(), k -> new ArrayList<>()).add(c);
    }
    List<Candidate> interleaved = new ArrayList<>(sorted.size());
    for (int i = 0; interleaved.size() < sorted.size(); i++) {
      for (List<Candidate> pool : byPool.values()) {
        if (i < pool.size()) {
          interleaved.add(pool.get(i));
        }
      }
    }
    return interleaved;
  }
}
