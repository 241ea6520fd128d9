package sh.karpenter.controller.node.termination;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Set;
import sh.karpenter.controller.objects.Pods;

/**
 * One pass of a Node's drain, decided from the pods bound to it, the time and the node's deadline
 * (upstream terminator.Drain); a pure function, so every pass is derived from API state alone.
 *
 * <p>Pods awaiting eviction ({@link DrainPods#awaitingEviction}) fall into four tiers, drained in
 * order: non-critical non-DaemonSet, non-critical DaemonSet, critical (priority class {@code
 * system-cluster-critical} or {@code system-node-critical}) non-DaemonSet, critical DaemonSet. Only
 * the evictable pods of the first tier that still has pods awaiting eviction are evicted; a later
 * tier starts once every pod of the earlier ones is gone. A do-not-disrupt pod is never evicted, so
 * it holds its tier (and the drain) until the deadline.
 *
 * <p>With a deadline (the NodeClaim's terminationGracePeriod), a pod whose own grace period would
 * overrun it is deleted at {@code deadline − terminationGracePeriodSeconds} with the time left until
 * the deadline as its grace period, whatever its tier, do-not-disrupt and PDBs notwithstanding; at
 * the deadline that is every remaining pod, with no grace. A pod already terminating past the
 * deadline is deleted again, to cut its grace period short.
 *
 * @param evict the pods to hand to the eviction queue now
 * @param delete the pods to delete now, bypassing eviction
 * @param waiting every pod the drain still waits for; the Node is drained when this is empty
 */
public record DrainPlan(List<Pod> evict, List<Deletion> delete, List<Pod> waiting) {

  /** A pod to delete with {@code gracePeriodSeconds} (never more than the time left until the deadline). */
  public record Deletion(Pod pod, long gracePeriodSeconds) {}

  /** The tiers in drain order. */
  public enum Tier {
    NON_CRITICAL,
    NON_CRITICAL_DAEMONSET,
    CRITICAL,
    CRITICAL_DAEMONSET;

    public static Tier of(Pod pod) {
      boolean daemonSet = Pods.ownedByDaemonSet(pod);
      if (DrainPods.critical(pod)) {
        return daemonSet ? CRITICAL_DAEMONSET : CRITICAL;
      }
      return daemonSet ? NON_CRITICAL_DAEMONSET : NON_CRITICAL;
    }
  }

  public DrainPlan {
    evict = List.copyOf(evict);
    delete = List.copyOf(delete);
    waiting = List.copyOf(waiting);
  }

  /** True when no pod is left to wait for. */
  public boolean drained() {
    return waiting.isEmpty();
  }

  /**
   * Plans one pass.
   *
   * @param pods the pods bound to the Node
   * @param deadline when the Node's terminationGracePeriod runs out, or null when it has none
   */
  public static DrainPlan of(Collection<Pod> pods, Instant now, Instant deadline) {
    List<Pod> waiting = pods.stream()
        .filter(p -> DrainPods.awaitingEviction(p, now))
        .sorted(Comparator.comparing(Pods::key))
        .toList();
    List<Deletion> delete = new ArrayList<>();
    Set<Pod> deleting = Collections.newSetFromMap(new IdentityHashMap<>());
    if (deadline != null) {
      long secondsLeft = Math.max(0, Duration.between(now, deadline).getSeconds());
      for (Pod pod : waiting) {
        if (now.isBefore(deadline.minusSeconds(DrainPods.gracePeriodSeconds(pod)))) {
          continue;
        }
        Instant deletion = Pods.deletionTimestamp(pod);
        if (deletion == null || deletion.isAfter(deadline)) {
          delete.add(new Deletion(pod, secondsLeft));
          deleting.add(pod);
        }
      }
    }
    List<Pod> evict = List.of();
    for (Tier tier : Tier.values()) {
      List<Pod> inTier = waiting.stream().filter(p -> Tier.of(p) == tier).toList();
      if (!inTier.isEmpty()) {
        evict = inTier.stream().filter(p -> DrainPods.evictable(p, now)).filter(p -> !deleting.contains(p)).toList();
        break;
      }
    }
    return new DrainPlan(evict, delete, waiting);
  }
}
