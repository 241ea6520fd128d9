package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The Balanced consolidation policy (docs/behaviour/disruption.md#balanced-policy): a move is worth
 * its disruption when its share of the NodePool's cost saved, over its share of the NodePool's
 * disruption cost, reaches {@code 1/k} ({@code k = 2}).
 *
 * <p>A move's disruption cost is 1 per node plus the positive eviction costs of the pods it moves (no
 * lifetime scaling); the NodePool totals add up the same over every candidate of the pool whose price is
 * known. A move across NodePools is scored per Balanced pool, with the savings shared out by the pool's
 * part of the candidates' price; every Balanced pool must approve.
 */
final class Balanced {
  /** Upstream's {@code BalancedK}. */
  static final int K = 2;

  private Balanced() {}

  /** A NodePool's total hourly cost and disruption cost over its candidates. */
  record Totals(double cost, double disruption) {}

  static Map<String, Totals> totals(List<Candidate> candidates) {
    Map<String, double[]> sums = new HashMap<>();
    for (Candidate candidate : candidates) {
      if (candidate.price() <= 0) {
        continue;
      }
      double[] sum = sums.computeIfAbsent(candidate.nodePoolName(), k -> new double[2]);
      sum[0] += candidate.price();
      sum[1] += Costs.rescheduleDisruptionCost(candidate.reschedulablePods());
    }
    Map<String, Totals> totals = new HashMap<>();
    sums.forEach((pool, sum) -> totals.put(pool, new Totals(sum[0], sum[1])));
    return totals;
  }

  /** {@code (savings / totalCost) / (disruption / totalDisruption)}; 0 without savings or cost. */
  static double score(double savings, double disruption, Totals totals) {
    if (totals == null || totals.cost() <= 0 || savings <= 0) {
      return 0;
    }
    if (totals.disruption() <= 0 || disruption <= 0) {
      return Double.POSITIVE_INFINITY;
    }
    return (savings / totals.cost()) / (disruption / totals.disruption());
  }

  /** One score per Balanced NodePool among the command's candidates (none when no pool is Balanced). */
  static List<ScoredMove> evaluate(Command command, Map<String, Totals> totals) {
    Map<String, List<Candidate>> byPool = new LinkedHashMap<>();
    for (Candidate candidate : command.candidates()) {
      byPool.computeIfAbsent(candidate.nodePoolName(), k -> new ArrayList<>()).add(candidate);
    }
    double commandPrice = Candidate.totalPrice(command.candidates());
    List<ScoredMove> scores = new ArrayList<>();
    for (Map.Entry<String, List<Candidate>> pool : byPool.entrySet()) {
      List<Candidate> candidates = pool.getValue();
      if (candidates.getFirst().pool().policy() != ConsolidationPolicy.BALANCED) {
        continue;
      }
      double poolPrice = Candidate.totalPrice(candidates);
      double disruption = 0;
      List<String> names = new ArrayList<>();
      for (Candidate candidate : candidates) {
        disruption += Costs.rescheduleDisruptionCost(candidate.reschedulablePods());
        names.add(candidate.nodeClaimName());
      }
      double savings = command.savings();
      if (byPool.size() > 1 && commandPrice > 0) {
        savings *= poolPrice / commandPrice;
      }
      double score = score(savings, disruption, totals.get(pool.getKey()));
      scores.add(new ScoredMove(pool.getKey(), names, score, score >= ScoredMove.THRESHOLD));
    }
    return scores;
  }
}
