package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.Deadline;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.wellknown.Labels;

/**
 * Repack consolidation (docs/behaviour/disruption.md#repack-consolidation, reason {@code
 * Underutilized}; not upstream's, off unless {@link DisruptionOptions#repackConsolidation()}): after
 * upstream's methods found nothing, drain a set of N nodes onto the rest of the cluster and M new
 * nodes that together cost strictly less (M may be 0 or more than 1), chosen from the whole cluster
 * rather than a prefix in upstream's order.
 *
 * <p>The candidates (within their NodePools' budgets, at most {@value #MAX_CANDIDATES}) are ranked by
 * <em>waste</em>: the node's price less the value of what it holds. A pod's value is what its
 * requests cost at the cheapest price per unit of CPU, and per unit of memory, that any launchable
 * offering of the NodePools charges, whichever of the two is larger: the prices of the per-resource
 * lower bound ({@code core.cost.LowerBound}'s simple bound), so a pod's value is its share of what any
 * plan must pay for it, and waste is what the node costs beyond that. A second order puts the
 * <em>off-plan</em> candidates first ({@link #offPlan}): those of instance types that provisioning,
 * placing every candidate's pods at once, launches fewer of than the candidates hold. Drain sets are
 * prefixes of each order, the budgets applied to each: sizes 1, 2, 4, … up to all, then a few
 * bisection steps above the best size. Each is
 * simulated with the provisioning scheduler, with its cost post-pass (as provisioning runs it, since
 * the move may launch several nodes), so the move never plans a placement provisioning would not
 * make. Each replacement keeps the instance types whose worst launch price stays within half of its
 * share of the move's slack, so the move is strictly cheaper whatever launches; its savings are
 * counted at those worst prices.
 *
 * <p>A move is taken only when it pays back ({@link Payback}) within {@link
 * DisruptionOptions#paybackHorizon()}; of those, the one saving the most per hour is the command.
 * When none does, the move saving the most is tried again without its dearest candidates ({@code
 * Search.trimUnpaid}).
 * When the best move found does not pay back and no other does, its candidates are reported {@code
 * Unconsolidatable} with a message starting with "payback". Every command lowers the cluster's price
 * strictly, so repeated decisions cannot cycle: a cluster at rest reaches a fixed point.
 */
final class RepackConsolidation {
  /** Candidates a drain set is chosen from, at most (upstream's multi-node limit). */
  static final int MAX_CANDIDATES = 100;
  /** Bisection steps between the best size found by doubling and the next size tried. */
  private static final int REFINE_STEPS = 3;
  /** Candidates taken off, one at a time, from the best move that does not pay back. */
  private static final int TRIM_STEPS = 2;
  private static final double EPSILON = 1e-9;

  private RepackConsolidation() {}

  static List<Command> compute(DisruptionPass pass) {
    if (!pass.input.options().repackConsolidation()) {
      return List.of();
    }
    List<Candidate> candidates = pass.consolidationCandidates();
    if (candidates.isEmpty()) {
      return List.of();
    }
    UnitPrices prices = UnitPrices.of(pass.input.scheduling().templates());
    List<Candidate> ranked = byWaste(candidates, prices);
    Search search = new Search(pass, Deadline.after(pass.input.options().clock(), pass.input.options().multiNodeTimeout()));
    List<Candidate> byWaste = withinBudgets(pass, ranked, true);
    if (byWaste.isEmpty()) {
      return List.of();
    }
    search.prefixes(byWaste);
    List<Candidate> offPlan = withinBudgets(pass, offPlan(ranked, search::simulate), false);
    if (!offPlan.equals(byWaste)) {
      search.prefixes(offPlan);
    }
    search.trimUnpaid();
    if (search.best != null) {
      return List.of(search.best);
    }
    if (search.unpaid != null) {
      String message = "payback of repacking " + search.unpaid.candidates().size() + " node(s) onto "
          + search.unpaid.replacements().size() + " new node(s) exceeds the horizon of "
          + Payback.human(pass.input.options().paybackHorizon()) + ": " + search.unpaid.payback().describe();
      for (Candidate candidate : search.unpaid.candidates()) {
        pass.report(candidate, Candidates.UNCONSOLIDATABLE, message);
      }
    }
    return List.of();
  }

  /**
   * The candidates in {@code order} that their NodePools' {@code Underutilized} budgets leave room
   * for, at most {@value #MAX_CANDIDATES}; with {@code report}, the others are reported blocked.
   */
  private static List<Candidate> withinBudgets(DisruptionPass pass, List<Candidate> order, boolean report) {
    Map<String, Integer> budgets = pass.budgetsCopy(Reason.UNDERUTILIZED);
    List<Candidate> within = new ArrayList<>();
    for (Candidate candidate : order) {
      if (budgets.getOrDefault(candidate.nodePoolName(), 0) <= 0) {
        if (report) {
          pass.budgetBlocked(candidate, Reason.UNDERUTILIZED);
        }
        continue;
      }
      budgets.merge(candidate.nodePoolName(), -1, Integer::sum);
      within.add(candidate);
      if (within.size() == MAX_CANDIDATES) {
        break;
      }
    }
    return within;
  }

  /**
   * The candidates with the nodes that provisioning would not launch first: the pods of every
   * candidate are placed as if all of them were gone (one pass of the repack simulation), and a
   * candidate whose instance type that plan launches fewer of than the candidates hold is <em>off
   * plan</em>. Off-plan candidates come first, those of the types most over-represented (the share of
   * the type's candidates the plan does not replace) first, then by {@code ranked}'s order; the others
   * follow in {@code ranked}'s order. Unchanged when the plan fails.
   */
  static List<Candidate> offPlan(DisruptionPass pass, List<Candidate> ranked, Deadline deadline) {
    return offPlan(ranked, drain -> simulate(pass, drain, deadline));
  }

  /** {@link #offPlan(DisruptionPass, List, Deadline)} with the plan from {@code simulator}. */
  private static List<Candidate> offPlan(List<Candidate> ranked, Function<List<Candidate>, Simulation.Outcome> simulator) {
    Simulation.Outcome plan = simulator.apply(ranked);
    if (!plan.ok()) {
      return ranked;
    }
    Map<String, Integer> planned = new HashMap<>();
    plan.replacements().forEach(r -> planned.merge(r.cheapestInstanceType().name(), 1, Integer::sum));
    Map<String, Integer> held = new HashMap<>();
    ranked.forEach(c -> held.merge(c.instanceType().name(), 1, Integer::sum));
    Map<Candidate, Double> excess = new IdentityHashMap<>();
    for (Candidate c : ranked) {
      int count = held.get(c.instanceType().name());
      excess.put(c, Math.max(0, count - planned.getOrDefault(c.instanceType().name(), 0)) / (double) count);
    }
    Map<Candidate, Integer> position = new IdentityHashMap<>();
    for (int i = 0; i < ranked.size(); i++) {
      position.put(ranked.get(i), i);
    }
    List<Candidate> sorted = new ArrayList<>(ranked);
    sorted.sort(Comparator.comparingDouble((Candidate c) -> -excess.get(c)).thenComparingInt(position::get));
    return sorted;
  }

  /** Simulates draining {@code drain} with the repack simulation (cost post-pass on) under {@code deadline}. */
  private static Simulation.Outcome simulate(DisruptionPass pass, List<Candidate> drain, Deadline deadline) {
    Simulation simulation = pass.repackSimulation();
    simulation.deadline(deadline);
    try {
      return simulation.run(drain, true);
    } finally {
      simulation.deadline(Deadline.NONE);
    }
  }

  /**
   * Re-checks a repack command against fresh state: a fresh simulation (with the cost post-pass) still
   * places every candidate pod, on no more new nodes than the command launches, and its new nodes
   * still cost less than the candidates.
   */
  static Validation validate(DisruptionPass pass, Command command, List<Candidate> current) {
    Simulation.Outcome outcome = pass.repackSimulation().run(current, true);
    if (!outcome.ok()) {
      return Validation.invalid(outcome.message());
    }
    if (outcome.replacements().size() > command.replacements().size()) {
      return Validation.invalid(
          "the pods now need " + outcome.replacements().size() + " new nodes, the command launches " + command.replacements().size());
    }
    double price = Candidate.totalPrice(current);
    if (outcome.replacementPrice() >= price - EPSILON) {
      return Validation.invalid(String.format(
          java.util.Locale.ROOT, "the new nodes now cost %.4f $/h, no less than the candidates' %.4f $/h", outcome.replacementPrice(), price));
    }
    return Validation.VALID;
  }

  /** The candidates by waste (price less the value of their pods), largest first, then by name. */
  static List<Candidate> byWaste(List<Candidate> candidates, UnitPrices prices) {
    Map<Candidate, Double> waste = new IdentityHashMap<>();
    for (Candidate c : candidates) {
      double value = 0;
      for (Pod pod : c.reschedulablePods()) {
        value += prices.value(pod.requests());
      }
      waste.put(c, c.price() - value);
    }
    List<Candidate> sorted = new ArrayList<>(candidates);
    sorted.sort(Comparator.comparingDouble((Candidate c) -> -waste.get(c)).thenComparing(Candidate::name));
    return sorted;
  }

  /**
   * The cheapest hourly price per milli-unit of CPU and of memory among the launchable offerings of
   * the NodePools' instance types (the per-resource bound's prices).
   */
  record UnitPrices(double perCpuMilli, double perMemoryMilli) {
    static UnitPrices of(List<NodeClaimTemplate> templates) {
      double cpu = Double.MAX_VALUE;
      double memory = Double.MAX_VALUE;
      for (NodeClaimTemplate template : templates) {
        for (InstanceType type : template.instanceTypes()) {
          Resources allocatable = type.allocatable();
          for (Offering offering : type.offerings()) {
            if (!offering.launchable() || !offering.isCompatible(template.requirements())) {
              continue;
            }
            if (allocatable.cpuMilli() > 0) {
              cpu = Math.min(cpu, offering.price() / allocatable.cpuMilli());
            }
            if (allocatable.memoryMilli() > 0) {
              memory = Math.min(memory, offering.price() / allocatable.memoryMilli());
            }
          }
        }
      }
      return new UnitPrices(cpu == Double.MAX_VALUE ? 0 : cpu, memory == Double.MAX_VALUE ? 0 : memory);
    }

    /** What {@code requests} cost at least: the larger of their CPU and memory at these prices. */
    double value(Resources requests) {
      return Math.max(requests.cpuMilli() * perCpuMilli, requests.memoryMilli() * perMemoryMilli);
    }
  }

  /** The drain sets tried in one loop and the best moves found. */
  private static final class Search {
    private final DisruptionPass pass;
    private final Deadline deadline;
    /** The drain sets simulated so far, by their candidates' names. */
    private final Set<Set<String>> tried = new HashSet<>();
    /**
     * The outcomes of the simulations that placed every pod, by their candidates' names in order: the
     * off-plan order's simulation of every candidate is, when the budgets leave them all, the waste
     * order's last prefix again (the same candidates in the same order, so the same outcome).
     */
    private final Map<List<String>, Simulation.Outcome> outcomes = new HashMap<>();
    /** The approved command that pays back and saves the most. */
    Command best;
    /** The command saving the most among those that do not pay back. */
    Command unpaid;

    Search(DisruptionPass pass, Deadline deadline) {
      this.pass = pass;
      this.deadline = deadline;
    }

    /**
     * Simulates prefixes of {@code order}: sizes 1, 2, 4, … up to all, then {@value #REFINE_STEPS}
     * bisection steps above the best size found among them.
     */
    void prefixes(List<Candidate> order) {
      List<Integer> sizes = new ArrayList<>();
      for (int k = 1; k < order.size(); k *= 2) {
        sizes.add(k);
      }
      sizes.add(order.size());
      int found = 0;
      for (int k : sizes) {
        if (evaluate(order.subList(0, k))) {
          found = k;
        }
      }
      if (found == 0) {
        return;
      }
      int index = sizes.indexOf(found);
      int hi = index + 1 < sizes.size() ? sizes.get(index + 1) : found;
      int lo = found;
      for (int step = 0; step < REFINE_STEPS && hi - lo > 1; step++) {
        int mid = (lo + hi) >>> 1;
        if (evaluate(order.subList(0, mid))) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
    }

    /**
     * When no move pays back, the move saving the most without paying back is tried again without
     * its dearest candidate, up to {@value #TRIM_STEPS} times: a big node's evictions and the nodes
     * launched for its pods can cost more than the move saves in the horizon, while the rest of the
     * set pays back alone.
     */
    void trimUnpaid() {
      if (best != null || unpaid == null) {
        return;
      }
      List<Candidate> set = new ArrayList<>(unpaid.candidates());
      for (int step = 0; step < TRIM_STEPS && best == null && set.size() > 1; step++) {
        set.remove(set.stream().max(Comparator.comparingDouble(Candidate::price).thenComparing(Candidate::name)).orElseThrow());
        evaluate(List.copyOf(set));
      }
    }

    /** Simulates draining {@code drain}; true when it became the best move. */
    boolean evaluate(List<Candidate> drain) {
      if (deadline.passed()) {
        pass.timedOut(Method.REPACK_CONSOLIDATION);
        return false;
      }
      Set<String> names = new HashSet<>();
      drain.forEach(c -> names.add(c.name()));
      if (!tried.add(names)) {
        return false;
      }
      // A move saves less than its candidates cost: a set costing no more than the best move saves
      // cannot replace it, and once a best move exists the unpaid one no longer matters. Skipped
      // without simulating, the outcome is the same.
      if (best != null && Candidate.totalPrice(drain) <= best.savings() + EPSILON) {
        return false;
      }
      Command command = command(drain);
      if (command == null) {
        return false;
      }
      if (!command.payback().within(pass.input.options().paybackHorizon())) {
        if (unpaid == null || command.savings() > unpaid.savings()) {
          unpaid = command;
        }
        return false;
      }
      if (best != null && command.savings() <= best.savings() + EPSILON) {
        return false;
      }
      if (!pass.approved(command)) {
        return false;
      }
      best = command;
      return true;
    }

    /** Simulates draining {@code drain}, or takes the outcome of an earlier simulation of the same candidates in the same order. */
    Simulation.Outcome simulate(List<Candidate> drain) {
      List<String> key = new ArrayList<>(drain.size());
      drain.forEach(c -> key.add(c.name()));
      Simulation.Outcome known = outcomes.get(key);
      if (known != null) {
        return known;
      }
      Simulation.Outcome outcome = RepackConsolidation.simulate(pass, drain, deadline);
      if (outcome.ok()) {
        outcomes.put(key, outcome);
      }
      return outcome;
    }

    /** The command that drains {@code drain}, or null when its pods do not all fit or it saves nothing. */
    private Command command(List<Candidate> drain) {
      Simulation.Outcome outcome = simulate(drain);
      if (!outcome.ok()) {
        return null;
      }
      double candidatePrice = Candidate.totalPrice(drain);
      boolean anySpot = drain.stream().anyMatch(c -> Labels.CAPACITY_TYPE_SPOT.equals(c.capacityType()));
      double[] cheapest = new double[outcome.replacements().size()];
      // Per replacement, each option's worst launch price, in instanceTypeOptions() order: computed at
      // most once, and only where it matters, here and below (a replacement has up to 600 options).
      double[][] worstPrices = new double[cheapest.length][];
      double cheapestTotal = 0;
      for (int i = 0; i < cheapest.length; i++) {
        PlannedNodeClaim planned = outcome.replacements().get(i);
        if (anySpot && !pass.input.options().spotToSpotConsolidation()
            && planned.requirements().get(Labels.CAPACITY_TYPE).has(Labels.CAPACITY_TYPE_SPOT)) {
          return null; // a spot node replaced by spot capacity needs the SpotToSpotConsolidation gate
        }
        List<InstanceType> options = planned.instanceTypeOptions();
        worstPrices[i] = new double[options.size()];
        cheapest[i] = Double.MAX_VALUE;
        for (int t = 0; t < options.size(); t++) {
          // Only the options that can lower the least worst price so far are priced here; the others
          // stay at MAX_VALUE until the filter below asks again with its cap.
          worstPrices[i][t] = InstanceTypes.worstLaunchPriceBelow(options.get(t), planned.requirements(), cheapest[i]);
          cheapest[i] = Math.min(cheapest[i], worstPrices[i][t]);
        }
        cheapestTotal += cheapest[i];
      }
      double slack = candidatePrice - cheapestTotal;
      if (slack <= EPSILON) {
        return null;
      }
      List<PlannedNodeClaim> replacements = new ArrayList<>(cheapest.length);
      double replacementPrice = 0;
      for (int i = 0; i < cheapest.length; i++) {
        PlannedNodeClaim planned = outcome.replacements().get(i);
        Requirements requirements = planned.requirements();
        double maxPrice = cheapest[i] + slack / (2.0 * cheapest.length);
        List<InstanceType> options = planned.instanceTypeOptions();
        for (int t = 0; t < options.size(); t++) {
          if (worstPrices[i][t] == Double.MAX_VALUE) {
            worstPrices[i][t] = InstanceTypes.worstLaunchPriceBelow(options.get(t), requirements, maxPrice);
          }
        }
        Consolidation.Filtered kept = Consolidation.cheaperThan(planned.instanceTypeOptions(), worstPrices[i], requirements, maxPrice);
        if (kept.error() != null || kept.types().isEmpty()) {
          return null;
        }
        double worst = 0; // the dearest worst launch price among the kept options
        for (double price : worstPrices[i]) {
          if (price < maxPrice) {
            worst = Math.max(worst, price);
          }
        }
        try {
          replacements.add(planned.withInstanceTypeOptions(kept.types(), requirements));
        } catch (IllegalArgumentException e) {
          return null;
        }
        replacementPrice += worst;
      }
      double savings = candidatePrice - replacementPrice;
      if (savings <= EPSILON) {
        return null;
      }
      return new Command(
          Method.REPACK_CONSOLIDATION, Reason.UNDERUTILIZED, drain, replacements, savings, null, Payback.of(drain, replacements, savings));
    }
  }
}
