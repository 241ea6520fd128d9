package sh.karpenter.core.disruption;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import sh.karpenter.core.cloudprovider.RepairPolicy;

/**
 * The cloud provider's repair policies as node repair matches them (upstream v1.15
 * {@code health.RepairPolicyMatcher}, node/health/policy.go; docs/behaviour/disruption.md#node-repair).
 *
 * <p>A Node condition matches the policies of its type and status. A policy is eligible once the
 * condition has held for its toleration, counted from the condition's last transition, or from the
 * Node's creation when that is later (a condition cannot predate its Node). Of the eligible policies,
 * the one with the highest priority, then the earliest eligible, then the lowest condition type, names
 * the condition the node is repaired for. A node's repair score is the highest {@code rank +
 * (now − eligibleAt) / 30 min} over its eligible policies, where rank is the dense rank of the
 * policy's priority among all the provider's priorities: a node overtakes a freshly eligible rival one
 * rank higher after waiting 30 minutes more.
 */
final class RepairPolicies {
  /** Upstream's {@code agingConstant}: the wait past toleration that earns one rank. */
  static final Duration AGING = Duration.ofMinutes(30);

  private final Map<String, List<RepairPolicy>> byCondition = new HashMap<>();
  private final Map<Integer, Integer> ranks = new HashMap<>();

  RepairPolicies(List<RepairPolicy> policies) {
    TreeSet<Integer> priorities = new TreeSet<>();
    for (RepairPolicy policy : policies) {
      byCondition.computeIfAbsent(key(policy.conditionType(), policy.conditionStatus()), k -> new ArrayList<>()).add(policy);
      priorities.add(policy.priority());
    }
    int rank = 0;
    for (int priority : priorities) {
      ranks.put(priority, rank++);
    }
  }

  private static String key(String type, String status) {
    return type + "\u0000" + status;
  }

  /**
   * Whether one of the Node's conditions is covered by a policy, whatever its toleration: the
   * unhealthy count of the per-NodePool breaker.
   */
  boolean unhealthy(NodeHealth health) {
    for (NodeHealth.Condition condition : health.conditions()) {
      if (byCondition.containsKey(key(condition.type(), condition.status()))) {
        return true;
      }
    }
    return false;
  }

  /** The repair decision for the Node at {@code now}, or null when no policy is eligible yet. */
  Result resolve(NodeHealth health, Instant now) {
    Result result = null;
    for (NodeHealth.Condition condition : health.conditions()) {
      List<RepairPolicy> matching = byCondition.get(key(condition.type(), condition.status()));
      if (matching == null) {
        continue;
      }
      Instant since = condition.lastTransition();
      if (since == null || since.isBefore(health.createdAt())) {
        since = health.createdAt();
      }
      for (RepairPolicy policy : matching) {
        Instant eligibleAt = since.plus(policy.toleration());
        if (eligibleAt.isAfter(now)) {
          continue;
        }
        Result candidate = new Result(condition.type(), condition.status(), policy.priority(), eligibleAt, ranks.get(policy.priority()),
            eligibleAt);
        result = result == null ? candidate : result.merge(candidate, now);
      }
    }
    return result;
  }

  /**
   * A node's repair decision.
   *
   * @param condition the condition type repair acts on (upstream's {@code condition} metric label)
   * @param priority the selected policy's priority
   * @param eligibleAt when the selected policy became eligible
   * @param scoreRank the rank of the eligible policy that scores highest
   * @param scoreEligibleAt when that policy became eligible
   */
  record Result(String condition, String status, int priority, Instant eligibleAt, int scoreRank, Instant scoreEligibleAt) {
    /** The repair score at {@code now}: rank plus the wait past toleration in units of {@link #AGING}. */
    double scoreAt(Instant now) {
      return scoreRank + (double) Duration.between(scoreEligibleAt, now).toMillis() / AGING.toMillis();
    }

    /** This decision merged with another eligible policy's (upstream {@code mergePolicy}). */
    Result merge(Result other, Instant now) {
      boolean otherSelected;
      if (other.priority != priority) {
        otherSelected = other.priority > priority;
      } else if (!other.eligibleAt.equals(eligibleAt)) {
        otherSelected = other.eligibleAt.isBefore(eligibleAt);
      } else {
        otherSelected = other.condition.compareTo(condition) < 0;
      }
      Result selected = otherSelected ? other : this;
      Result scored = other.scoreAt(now) > scoreAt(now) ? other : this;
      return new Result(selected.condition, selected.status, selected.priority, selected.eligibleAt, scored.scoreRank, scored.scoreEligibleAt);
    }
  }
}
