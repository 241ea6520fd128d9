package sh.karpenter.controller.objects;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * The controller's words for Kubernetes pods (upstream pkg/utils/pod), written once: provisioning,
 * cluster state, disruption, termination, pod events and the snapshot conversion all ask here.
 *
 * <p>A pod is keyed by {@link #key(Pod) namespace/name} everywhere (nominations, prebindings,
 * disruption inputs, evictions, log lines), the same key core's {@code Pod#key()} gives; a pod
 * without a namespace is in {@code default}, where the API server would put it.
 *
 * <p>An owner reference names its owner by API version and kind, as upstream's {@code IsOwnedBy}
 * compares them; one without an API version (hand-written manifests for {@code karpenter plan}),
 * which fabric8 reads as {@code v1}, is matched by kind alone.
 */
public final class Pods {
  private Pods() {}

  /** The annotation the kubelet puts on the mirror pod of a static pod. */
  public static final String MIRROR_ANNOTATION = "kubernetes.io/config.mirror";
  /** Where a pod without {@code metadata.namespace} lives. */
  public static final String DEFAULT_NAMESPACE = "default";
  /** The taint of a node being disrupted; pods tolerating it are neither drained nor rescheduled. */
  public static final Taint DISRUPTED = Taint.of(TaintKeys.DISRUPTED, Taint.Effect.NoSchedule);
  /** How long past its deletionTimestamp a terminating pod is still waited for (upstream's IsStuckTerminating). */
  public static final Duration STUCK_TERMINATING_AFTER = Duration.ofMinutes(1);

  /** {@code namespace/name}. */
  public static String key(Pod pod) {
    return key(pod.getMetadata().getNamespace(), pod.getMetadata().getName());
  }

  /** {@code namespace/name}, with {@code default} for a missing namespace. */
  public static String key(String namespace, String name) {
    return (namespace == null || namespace.isEmpty() ? DEFAULT_NAMESPACE : namespace) + "/" + name;
  }

  /** The node the pod is bound to ({@code spec.nodeName}), or null when it is not bound. */
  public static String nodeName(Pod pod) {
    String name = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return name == null || name.isEmpty() ? null : name;
  }

  public static boolean bound(Pod pod) {
    return nodeName(pod) != null;
  }

  /** Succeeded or Failed. */
  public static boolean terminal(Pod pod) {
    String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
    return "Succeeded".equals(phase) || "Failed".equals(phase);
  }

  /** It has a deletionTimestamp. */
  public static boolean terminating(Pod pod) {
    String deletion = pod.getMetadata().getDeletionTimestamp();
    return deletion != null && !deletion.isEmpty();
  }

  /** When the pod is due to be gone (its deletionTimestamp), or null when it is not terminating. */
  public static Instant deletionTimestamp(Pod pod) {
    return terminating(pod) ? Instant.parse(pod.getMetadata().getDeletionTimestamp()) : null;
  }

  /** Terminating for more than {@link #STUCK_TERMINATING_AFTER}. */
  public static boolean stuckTerminating(Pod pod, Instant now) {
    Instant deletion = deletionTimestamp(pod);
    return deletion != null && now.isAfter(deletion.plus(STUCK_TERMINATING_AFTER));
  }

  /** Upstream's {@code IsActive}: neither terminal nor terminating. */
  public static boolean active(Pod pod) {
    return !terminal(pod) && !terminating(pod);
  }

  /** kube-scheduler is making room for it ({@code status.nominatedNodeName}). */
  public static boolean preempting(Pod pod) {
    String nominated = pod.getStatus() == null ? null : pod.getStatus().getNominatedNodeName();
    return nominated != null && !nominated.isEmpty();
  }

  /** kube-scheduler gave up on the pod: {@code PodScheduled=False} with reason {@code Unschedulable}. */
  public static boolean failedToSchedule(Pod pod) {
    if (pod.getStatus() == null || pod.getStatus().getConditions() == null) {
      return false;
    }
    return pod.getStatus().getConditions().stream()
        .anyMatch(c -> "PodScheduled".equals(c.getType()) && "False".equals(c.getStatus()) && "Unschedulable".equals(c.getReason()));
  }

  /**
   * Upstream's {@code IsProvisionable} for a pod without a node, as the snapshot reads pods: not
   * terminating, not preempting, neither a DaemonSet's nor a mirror pod. kube-scheduler's verdict is
   * asked separately ({@link #failedToSchedule}), since {@code karpenter plan}'s input carries none.
   */
  public static boolean provisionable(Pod pod) {
    return !terminating(pod) && !preempting(pod) && !ownedByDaemonSet(pod) && !mirror(pod);
  }

  /**
   * Upstream's {@code IsReschedulable}: active (or a terminating StatefulSet pod, whose replacement
   * cannot start before it is gone), not a DaemonSet pod, not a mirror pod.
   */
  public static boolean reschedulable(Pod pod) {
    return !terminal(pod) && (!terminating(pod) || ownedByStatefulSet(pod)) && !ownedByDaemonSet(pod) && !mirror(pod);
  }

  /** A static pod's mirror: owned by its Node, or annotated {@code kubernetes.io/config.mirror}. The API server cannot delete it. */
  public static boolean mirror(Pod pod) {
    return ownedBy(pod, "v1", "Node") || annotations(pod).containsKey(MIRROR_ANNOTATION);
  }

  public static boolean ownedByDaemonSet(Pod pod) {
    return ownedBy(pod, "apps/v1", "DaemonSet");
  }

  /** Its controller is a DaemonSet: the pods whose newest one gives the DaemonSet's overhead on new nodes. */
  public static boolean controlledByDaemonSet(Pod pod) {
    return owners(pod).stream().anyMatch(o -> Boolean.TRUE.equals(o.getController()) && is(o, "apps/v1", "DaemonSet"));
  }

  public static boolean ownedByStatefulSet(Pod pod) {
    return ownedBy(pod, "apps/v1", "StatefulSet");
  }

  /**
   * {@code karpenter.sh/do-not-disrupt}: {@code "true"}, or a duration from pod start that has not
   * elapsed (a pod not started yet is protected: its window has not begun; upstream's
   * IsDoNotDisruptActive). Any other value protects nothing.
   */
  public static boolean doNotDisrupt(Pod pod, Instant now) {
    String value = annotations(pod).get(Annotations.DO_NOT_DISRUPT);
    if (value == null) {
      return false;
    }
    if ("true".equals(value)) {
      return true;
    }
    try {
      Duration grace = GoDuration.parse(value).duration();
      String started = pod.getStatus() == null ? null : pod.getStatus().getStartTime();
      return started == null || now.isBefore(OffsetDateTime.parse(started).toInstant().plus(grace));
    } catch (IllegalArgumentException | DateTimeParseException e) {
      return false;
    }
  }

  /** Tolerates {@code karpenter.sh/disrupted:NoSchedule}; a toleration the API server would have rejected tolerates nothing. */
  public static boolean toleratesDisruptedTaint(Pod pod) {
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
        // not a valid toleration
      }
    }
    return false;
  }

  private static boolean ownedBy(Pod pod, String apiVersion, String kind) {
    for (OwnerReference owner : owners(pod)) {
      if (is(owner, apiVersion, kind)) {
        return true;
      }
    }
    return false;
  }

  private static boolean is(OwnerReference owner, String apiVersion, String kind) {
    String version = owner.getApiVersion();
    return kind.equals(owner.getKind()) && (version == null || version.isEmpty() || "v1".equals(version) || apiVersion.equals(version));
  }

  private static List<OwnerReference> owners(Pod pod) {
    List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
    return owners == null ? List.of() : owners;
  }

  private static Map<String, String> annotations(Pod pod) {
    Map<String, String> annotations = pod.getMetadata().getAnnotations();
    return annotations == null ? Map.of() : annotations;
  }
}
