package sh.karpenter.controller.node.termination;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * Which pods of a terminating Node the drain waits for and may evict (upstream pkg/utils/pod):
 *
 * <ul>
 *   <li><b>awaiting eviction</b>: not terminal (Succeeded/Failed) and drainable;
 *   <li><b>drainable</b>: does not tolerate {@code karpenter.sh/disrupted:NoSchedule}, is not stuck
 *       terminating (deletionTimestamp more than a minute ago), is not a mirror (static) pod;
 *       do-not-disrupt pods are drainable: the drain waits for them, it just never evicts them;
 *   <li><b>evictable</b>: active (neither terminal nor terminating), not tolerating the taint, not a
 *       mirror pod, not protected by {@code karpenter.sh/do-not-disrupt} ({@code "true"}, or a
 *       duration from pod start that has not elapsed: {@link ClusterState#doNotDisrupt}).
 * </ul>
 */
final class DrainPods {
  private DrainPods() {}

  /** The taint a terminating Node carries; pods tolerating it are left to run until the instance goes. */
  static final Taint DISRUPTED = Taint.of(TaintKeys.DISRUPTED, Taint.Effect.NoSchedule);
  /** Priority classes whose pods drain after every other pod (graceful node shutdown's order). */
  static final Set<String> CRITICAL_PRIORITY_CLASSES = Set.of("system-cluster-critical", "system-node-critical");
  /** How long past its deletionTimestamp a terminating pod is still waited for. */
  static final Duration STUCK_TERMINATING_AFTER = Duration.ofMinutes(1);
  /** What the API server defaults {@code terminationGracePeriodSeconds} to. */
  static final long DEFAULT_GRACE_SECONDS = 30;

  private static final String MIRROR_POD_ANNOTATION = "kubernetes.io/config.mirror";

  /** {@code namespace/name}, the pod's key in the informer cache. */
  static String key(Pod pod) {
    String namespace = pod.getMetadata().getNamespace();
    return (namespace == null ? "" : namespace) + "/" + pod.getMetadata().getName();
  }

  static boolean awaitingEviction(Pod pod, Instant now) {
    return !terminal(pod) && drainable(pod, now);
  }

  static boolean drainable(Pod pod, Instant now) {
    return !toleratesDisruptedTaint(pod) && !stuckTerminating(pod, now) && !mirror(pod);
  }

  static boolean evictable(Pod pod, Instant now) {
    return !terminal(pod) && !terminating(pod) && !toleratesDisruptedTaint(pod) && !mirror(pod) && !ClusterState.doNotDisrupt(pod, now);
  }

  static boolean terminal(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  static boolean terminating(Pod pod) {
    String deletion = pod.getMetadata().getDeletionTimestamp();
    return deletion != null && !deletion.isEmpty();
  }

  /** When the pod is due to be gone (its deletionTimestamp), or null when it is not terminating. */
  static Instant deletionTimestamp(Pod pod) {
    return terminating(pod) ? Instant.parse(pod.getMetadata().getDeletionTimestamp()) : null;
  }

  static boolean stuckTerminating(Pod pod, Instant now) {
    Instant deletion = deletionTimestamp(pod);
    return deletion != null && now.isAfter(deletion.plus(STUCK_TERMINATING_AFTER));
  }

  /** A static pod the kubelet runs (owned by its Node): the API server cannot delete it. */
  static boolean mirror(Pod pod) {
    return ownedBy(pod, "v1", "Node") || annotations(pod).containsKey(MIRROR_POD_ANNOTATION);
  }

  static boolean daemonSet(Pod pod) {
    return ownedBy(pod, "apps/v1", "DaemonSet");
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

  static boolean toleratesDisruptedTaint(Pod pod) {
    if (pod.getSpec() == null || pod.getSpec().getTolerations() == null) {
      return false;
    }
    for (io.fabric8.kubernetes.api.model.Toleration t : pod.getSpec().getTolerations()) {
      try {
        Taint.Effect effect = t.getEffect() == null || t.getEffect().isEmpty() ? null : Taint.Effect.parse(t.getEffect());
        if (new Toleration(t.getKey(), Toleration.Operator.parse(t.getOperator()), t.getValue(), effect, null).tolerates(DISRUPTED)) {
          return true;
        }
      } catch (IllegalArgumentException e) {
        // A toleration the API server would have rejected tolerates nothing.
      }
    }
    return false;
  }

  private static boolean ownedBy(Pod pod, String apiVersion, String kind) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    return owners != null && owners.stream().anyMatch(o -> apiVersion.equals(o.getApiVersion()) && kind.equals(o.getKind()));
  }

  private static Map<String, String> annotations(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    return annotations == null ? Map.of() : annotations;
  }
}
