package sh.karpenter.core.disruption;

import java.time.Duration;
import java.util.List;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/**
 * Whether a consolidation move pays for itself (docs/behaviour/disruption.md#payback): its savings
 * over a horizon must exceed what the move costs in dollars.
 *
 * <p>The disruption cost, USD: every evicted pod loses the capacity it holds for {@link #POD_RESTART}
 * (it stops, waits for a place, starts and warms up again), valued at the pod's share of its node's
 * price (the largest of its CPU and memory requests over the node's allocatable, times the node's
 * hourly price) and weighted by its eviction cost as upstream computes it ({@link
 * Costs#evictionCost}, 1 for an ordinary pod, up to 10 for pods of high priority or deletion cost,
 * negative counts as 0); and the replacements run for {@link #REPLACEMENT_LAUNCH} before the
 * candidates can go, at their price, while the candidates are still paid for. The payback time is
 * that cost over the hourly savings.
 *
 * @param savingsPerHour what the move saves, USD per hour
 * @param disruptionCost what the move costs once, USD
 * @param paybackTime {@code disruptionCost / savingsPerHour}; null when the move saves nothing
 */
public record Payback(double savingsPerHour, double disruptionCost, Duration paybackTime) {
  /** How long an evicted pod is counted as lost: stop, reschedule, start and warm up. */
  public static final Duration POD_RESTART = Duration.ofMinutes(5);
  /** How long a replacement runs beside the candidates: launch, register and initialize. */
  public static final Duration REPLACEMENT_LAUNCH = Duration.ofMinutes(3);

  private static final double HOUR_MILLIS = Duration.ofHours(1).toMillis();

  /** The payback of draining {@code candidates} onto the cluster and {@code replacements}, saving {@code savingsPerHour}. */
  public static Payback of(List<Candidate> candidates, List<PlannedNodeClaim> replacements, double savingsPerHour) {
    double restartHours = POD_RESTART.toMillis() / HOUR_MILLIS;
    double cost = 0;
    for (Candidate candidate : candidates) {
      Resources allocatable = candidate.state().node().allocatable();
      for (Pod pod : Simulation.podsToMove(candidate)) {
        cost += Math.max(0, Costs.evictionCost(pod)) * share(pod.requests(), allocatable) * candidate.price() * restartHours;
      }
    }
    double launchHours = REPLACEMENT_LAUNCH.toMillis() / HOUR_MILLIS;
    for (PlannedNodeClaim replacement : replacements) {
      cost += replacement.price() * launchHours;
    }
    Duration payback = savingsPerHour <= 0 ? null : Duration.ofMillis(Math.round(Math.min(cost / savingsPerHour, 1e6) * HOUR_MILLIS));
    return new Payback(savingsPerHour, cost, payback);
  }

  /** Whether the move pays back within {@code horizon}: savings × horizon exceed the disruption cost. */
  public boolean within(Duration horizon) {
    return paybackTime != null && savingsPerHour * (horizon.toMillis() / HOUR_MILLIS) > disruptionCost;
  }

  /** For logs and events, e.g. {@code saves 0.1920 $/h, disruption cost 0.0123 $, payback 3m50s}. */
  public String describe() {
    return String.format(
        java.util.Locale.ROOT, "saves %.4f $/h, disruption cost %.4f $, payback %s", savingsPerHour, disruptionCost, human(paybackTime));
  }

  /** A duration as {@code 1h2m3s}; "never" for null. */
  static String human(Duration d) {
    if (d == null) {
      return "never";
    }
    long s = d.toSeconds();
    StringBuilder out = new StringBuilder();
    if (s >= 3600) {
      out.append(s / 3600).append('h');
    }
    if (s % 3600 >= 60) {
      out.append(s % 3600 / 60).append('m');
    }
    if (s % 60 != 0 || out.isEmpty()) {
      out.append(s % 60).append('s');
    }
    return out.toString();
  }

  /** The largest fraction of the node's CPU or memory the requests take, in [0, 1]. */
  private static double share(Resources requests, Resources allocatable) {
    double cpu = allocatable.cpuMilli() <= 0 ? 0 : (double) requests.cpuMilli() / allocatable.cpuMilli();
    double memory = allocatable.memoryMilli() <= 0 ? 0 : (double) requests.memoryMilli() / allocatable.memoryMilli();
    return Math.min(1, Math.max(cpu, memory));
  }
}
