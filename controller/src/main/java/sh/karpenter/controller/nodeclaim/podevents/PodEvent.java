package sh.karpenter.controller.nodeclaim.podevents;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import sh.karpenter.controller.objects.Pods;

/**
 * A pod bound to or removed from a node, read off one pod informer notification: what {@code
 * status.lastPodEventTime} records for the node's NodeClaim (upstream nodeclaim/podevents).
 *
 * <ul>
 *   <li>bound: the pod gained a {@code spec.nodeName}, or is seen for the first time already bound
 *       and running. The time is the pod's {@code PodScheduled=True} transition (else its creation,
 *       for a pod created onto its node), so that re-listing every pod when the controller restarts
 *       replays the same times instead of resetting every node's consolidation clock;
 *   <li>removed: a bound pod became terminal (Succeeded, Failed) or terminating, or was deleted
 *       without either being seen first; the time is now.
 * </ul>
 *
 * DaemonSet pods are ignored: every node runs them, so they say nothing about whether it is needed.
 *
 * @param nodeName the node the pod was bound to or removed from
 * @param time when
 */
public record PodEvent(String nodeName, Instant time) {
  private static final String POD_SCHEDULED = "PodScheduled";

  /** A pod the informer saw appear (created, or listed at start). */
  public static Optional<PodEvent> added(Pod pod, Instant now) {
    if (ignored(pod) || Pods.terminal(pod) || Pods.terminating(pod)) {
      return Optional.empty();
    }
    return Optional.of(new PodEvent(Pods.nodeName(pod), scheduledAt(pod).or(() -> created(pod)).orElse(now)));
  }

  /** A pod the informer saw change from {@code old} to {@code pod}. */
  public static Optional<PodEvent> updated(Pod old, Pod pod, Instant now) {
    if (ignored(pod)) {
      return Optional.empty();
    }
    if (Pods.nodeName(old) == null) {
      return Optional.of(new PodEvent(Pods.nodeName(pod), scheduledAt(pod).orElse(now)));
    }
    boolean removed = (!Pods.terminal(old) && Pods.terminal(pod)) || (!Pods.terminal(old) && !Pods.terminating(old) && Pods.terminating(pod));
    return removed ? Optional.of(new PodEvent(Pods.nodeName(pod), now)) : Optional.empty();
  }

  /** A pod the informer saw go; one already terminal or terminating was counted when it became so. */
  public static Optional<PodEvent> deleted(Pod pod, Instant now) {
    if (ignored(pod) || Pods.terminal(pod) || Pods.terminating(pod)) {
      return Optional.empty();
    }
    return Optional.of(new PodEvent(Pods.nodeName(pod), now));
  }

  /** Unbound pods and DaemonSet pods. */
  private static boolean ignored(Pod pod) {
    return !Pods.bound(pod) || Pods.controlledByDaemonSet(pod);
  }

  private static Optional<Instant> scheduledAt(Pod pod) {
    List<PodCondition> conditions = pod.getStatus() == null ? null : pod.getStatus().getConditions();
    return conditions == null
        ? Optional.empty()
        : conditions.stream()
            .filter(c -> POD_SCHEDULED.equals(c.getType()) && "True".equals(c.getStatus()) && c.getLastTransitionTime() != null)
            .findFirst()
            .map(c -> Instant.parse(c.getLastTransitionTime()));
  }

  private static Optional<Instant> created(Pod pod) {
    return Optional.ofNullable(pod.getMetadata().getCreationTimestamp()).filter(t -> !t.isEmpty()).map(Instant::parse);
  }
}
