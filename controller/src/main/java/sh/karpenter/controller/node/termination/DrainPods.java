package sh.karpenter.controller.node.termination;

import io.fabric8.kubernetes.api.model.Pod;
import java.time.Instant;
import java.util.Set;
import sh.karpenter.controller.objects.Pods;

/**
 * Which pods of a terminating Node the drain waits for and may evict (upstream pkg/utils/pod), in
 * the words of {@link Pods}:
 *
 * <ul>
 *   <li><b>awaiting eviction</b>: not terminal (Succeeded/Failed) and drainable;
 *   <li><b>drainable</b>: does not tolerate {@code karpenter.sh/disrupted:NoSchedule}, is not stuck
 *       terminating (deletionTimestamp more than a minute ago), is not a mirror (static) pod;
 *       do-not-disrupt pods are drainable: the drain waits for them, it just never evicts them;
 *   <li><b>evictable</b>: active (neither terminal nor terminating), not tolerating the taint, not a
 *       mirror pod, not protected by {@code karpenter.sh/do-not-disrupt} ({@code "true"}, or a
 *       duration from pod start that has not elapsed: {@link Pods#doNotDisrupt}).
 * </ul>
 */
final class DrainPods {
  private DrainPods() {}

  /** Priority classes whose pods drain after every other pod (graceful node shutdown's order). */
  static final Set<String> CRITICAL_PRIORITY_CLASSES = Set.of("system-cluster-critical", "system-node-critical");
  /** What the API server defaults {@code terminationGracePeriodSeconds} to. */
  static final long DEFAULT_GRACE_SECONDS = 30;

  static boolean awaitingEviction(Pod pod, Instant now) {
    return !Pods.terminal(pod) && drainable(pod, now);
  }

  static boolean drainable(Pod pod, Instant now) {
    return !Pods.toleratesDisruptedTaint(pod) && !Pods.stuckTerminating(pod, now) && !Pods.mirror(pod);
  }

  static boolean evictable(Pod pod, Instant now) {
    return Pods.active(pod) && !Pods.toleratesDisruptedTaint(pod) && !Pods.mirror(pod) && !Pods.doNotDisrupt(pod, now);
  }

  static boolean critical(Pod pod) {
    String priorityClass = pod.getSpec() == null ? null : pod.getSpec().getPriorityClassName();
    return priorityClass != null && CRITICAL_PRIORITY_CLASSES.contains(priorityClass);
  }

  /** The pod's {@code terminationGracePeriodSeconds}, or the API server's default of 30. */
  static long gracePeriodSeconds(Pod pod) {
    Long grace = pod.getSpec() == null ? null : pod.getSpec().getTerminationGracePeriodSeconds();
    return grace == null ? DEFAULT_GRACE_SECONDS : grace;
  }
}
