package sh.karpenter.core.disruption;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Disruption budgets (docs/behaviour/disruption.md#budgets, upstream {@code
 * BuildDisruptionBudgetMapping}): how many of a NodePool's nodes may be voluntarily disrupted now,
 * per reason.
 *
 * <p>A budget's value is its {@code nodes} resolved against the pool's node count (a percentage rounds
 * up: 5% of 10 nodes gives 1); a budget outside its schedule window contributes {@link
 * Integer#MAX_VALUE}; a budget that does not parse fails closed and contributes 0. The pool allows, for
 * a reason, the minimum over the budgets whose reasons include it (or name none), less the nodes
 * already disrupting for that reason (deleting, marked for deletion, or NotReady except for {@link
 * Reason#UNHEALTHY}), floored at 0.
 */
public final class Budgets {
  private static final Pattern NODES = Pattern.compile("^(?:(100|[0-9]{1,2})%|([0-9]+))$");
  /** The reasons some {@link Method} disrupts for. */
  private static final Set<Reason> METHOD_REASONS = methodReasons();
  /** {@link #METHOD_REASONS} without node repair's. */
  private static final Set<Reason> VOLUNTARY_REASONS = Collections.unmodifiableSet(
      EnumSet.copyOf(METHOD_REASONS.stream().filter(r -> r != Reason.UNHEALTHY).toList()));

  private Budgets() {}

  /**
   * Whether the budget is active at {@code now}: always without a schedule; with one, when the first
   * schedule hit after {@code now − duration} is not later than {@code now}.
   *
   * @throws IllegalArgumentException when the schedule does not parse
   */
  public static boolean isActive(Budget budget, Instant now) {
    if (budget.schedule() == null) {
      return true;
    }
    Duration duration = budget.duration() == null ? Duration.ZERO : budget.duration();
    Instant hit = Cron.parse(budget.schedule()).next(now.minus(duration));
    return hit != null && !hit.isAfter(now);
  }

  /**
   * The number of nodes one budget allows out of {@code numNodes}: {@link Integer#MAX_VALUE} while it
   * is inactive, 0 when its schedule or {@code nodes} does not parse.
   */
  public static int value(Budget budget, int numNodes, Instant now) {
    boolean active;
    try {
      active = isActive(budget, now);
    } catch (IllegalArgumentException e) {
      return 0;
    }
    if (!active) {
      return Integer.MAX_VALUE;
    }
    Matcher m = budget.nodes() == null ? null : NODES.matcher(budget.nodes().trim());
    if (m == null || !m.matches()) {
      return 0;
    }
    if (m.group(1) != null) {
      long percent = Long.parseLong(m.group(1));
      return (int) Math.ceilDiv(percent * numNodes, 100L);
    }
    try {
      return Integer.parseInt(m.group(2));
    } catch (NumberFormatException e) {
      return Integer.MAX_VALUE; // more digits than an int holds: no limit worth stating
    }
  }

  /**
   * What the pool's budgets allow for {@code reason} out of {@code numNodes}, before subtracting the
   * nodes already disrupting: the minimum over the budgets that apply to the reason, or {@link
   * Integer#MAX_VALUE} when none does.
   */
  public static int allowed(PoolPolicy pool, Reason reason, int numNodes, Instant now) {
    int allowed = Integer.MAX_VALUE;
    for (Budget budget : pool.budgets()) {
      if (budget.reasons() == null || budget.reasons().contains(reason)) {
        allowed = Math.min(allowed, value(budget, numNodes, now));
      }
    }
    return allowed;
  }

  /**
   * Per NodePool and the reason of each disruption {@link Method}, what the budgets allow now before
   * subtracting the nodes already disrupting (upstream's {@code karpenter_nodepools_allowed_disruptions},
   * which upstream sets for the reasons of the methods it runs: {@link Reason#UNHEALTHY} only with node
   * repair on).
   */
  public static Map<String, Map<Reason, Integer>> allowed(DisruptionInput input) {
    Map<String, Integer> numNodes = new HashMap<>();
    for (StateNode node : input.nodes()) {
      if (counts(node)) {
        numNodes.merge(node.nodePoolName(), 1, Integer::sum);
      }
    }
    Map<String, Map<Reason, Integer>> result = new TreeMap<>();
    for (PoolPolicy pool : input.pools().values()) {
      int count = numNodes.getOrDefault(pool.nodePoolName(), 0);
      Map<Reason, Integer> byReason = new EnumMap<>(Reason.class);
      for (Reason reason : methodReasons(input)) {
        byReason.put(reason, allowed(pool, reason, count, input.now()));
      }
      result.put(pool.nodePoolName(), Map.copyOf(byReason));
    }
    return result;
  }

  /**
   * Per NodePool and the reason of each method, how many of the pool's {@linkplain #counts counted}
   * nodes already use up its budget ({@linkplain #disrupting disrupting}): upstream's {@code
   * karpenter_nodepools_nodes_consuming_budgets}, set next to {@link #allowed(DisruptionInput)}.
   */
  public static Map<String, Map<Reason, Integer>> consuming(DisruptionInput input) {
    Set<Reason> reasons = methodReasons(input);
    Map<String, Map<Reason, Integer>> result = new TreeMap<>();
    for (PoolPolicy pool : input.pools().values()) {
      Map<Reason, Integer> byReason = new EnumMap<>(Reason.class);
      reasons.forEach(reason -> byReason.put(reason, 0));
      result.put(pool.nodePoolName(), byReason);
    }
    for (StateNode node : input.nodes()) {
      Map<Reason, Integer> byReason = counts(node) ? result.get(node.nodePoolName()) : null;
      if (byReason != null) {
        for (Reason reason : reasons) {
          if (disrupting(node, reason)) {
            byReason.merge(reason, 1, Integer::sum);
          }
        }
      }
    }
    result.replaceAll((pool, byReason) -> Map.copyOf(byReason));
    return result;
  }

  /** The reasons of the methods the loop runs: {@link Reason#UNHEALTHY} only with node repair on, as upstream. */
  private static Set<Reason> methodReasons(DisruptionInput input) {
    boolean repair = input.options() != null && input.options().nodeRepair();
    return repair ? METHOD_REASONS : VOLUNTARY_REASONS;
  }

  /**
   * Per NodePool, how many more nodes {@code reason} may disrupt now (upstream's {@code
   * BuildDisruptionBudgetMapping}): {@link #allowed(PoolPolicy, Reason, int, Instant)} out of the
   * pool's {@linkplain #counts counted} nodes, less those of them that are {@linkplain #disrupting
   * disrupting} for the reason, floored at 0. The map is mutable: methods decrement it as they take
   * candidates.
   */
  public static Map<String, Integer> remaining(DisruptionInput input, Reason reason) {
    Map<String, int[]> counts = new HashMap<>();
    for (StateNode node : input.nodes()) {
      if (counts(node)) {
        int[] count = counts.computeIfAbsent(node.nodePoolName(), k -> new int[2]);
        count[0]++;
        if (disrupting(node, reason)) {
          count[1]++;
        }
      }
    }
    Map<String, Integer> result = new HashMap<>();
    for (PoolPolicy pool : input.pools().values()) {
      int[] count = counts.getOrDefault(pool.nodePoolName(), new int[2]);
      int allowed = allowed(pool, reason, count[0], input.now());
      result.put(pool.nodePoolName(), Math.max(0, allowed - count[1]));
    }
    return result;
  }

  /**
   * Whether the node counts towards its NodePool's budgets (upstream's {@code NodePoolStatsFromNodes}):
   * it is managed and initialized, and its instance is not being terminated ({@code
   * InstanceTerminating}). A launched node that is not initialized yet does not count, so replacements
   * on their way in do not round a percentage up.
   */
  static boolean counts(StateNode node) {
    return node.managed() && node.node().initialized() && !node.instanceTerminating() && node.nodePoolName() != null;
  }

  /**
   * Whether a {@linkplain #counts counted} node already uses up a disruption of the budget for {@code
   * reason}: it is deleting or marked for deletion (a disruption in flight), or it is not Ready,
   * except for {@link Reason#UNHEALTHY}: NotReady is what node repair repairs, so counting such nodes
   * against repair's own budget would let a wave of unhealthy nodes block their repair (upstream v1.15).
   */
  static boolean disrupting(StateNode node, Reason reason) {
    return node.deleting() || node.markedForDeletion() || (!node.ready() && reason != Reason.UNHEALTHY);
  }

  private static Set<Reason> methodReasons() {
    Set<Reason> reasons = EnumSet.noneOf(Reason.class);
    for (Method method : Method.values()) {
      reasons.add(method.reason());
    }
    return Collections.unmodifiableSet(reasons);
  }
}
