package sh.karpenter.controller.snapshot;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import sh.karpenter.core.resources.Resources;

/**
 * Resource totals of Kubernetes objects outside a snapshot (for metrics), computed by the same code
 * the snapshot conversion uses, so a pod's requests here are the ones the scheduler packs.
 */
public final class PodResources {
  private PodResources() {}

  /**
   * A pod's effective requests as the scheduler counts them: containers, sidecar-aware init
   * containers, pod-level requests and overhead, plus {@code pods: 1}.
   *
   * @throws SnapshotInputException naming the pod and field when a quantity is invalid
   */
  public static Resources requests(Pod pod) {
    return PodConverter.requests(pod, origin(pod));
  }

  /** A pod's effective limits (Kubernetes' {@code PodLimits}), plus {@code pods: 1}. */
  public static Resources limits(Pod pod) {
    return PodConverter.limits(pod, origin(pod));
  }

  /** A resource list such as a node's {@code status.allocatable}; {@code field} names it in errors. */
  public static Resources of(Map<String, Quantity> list, String origin, String field) {
    return ValueConverter.resources(list, origin, field);
  }

  private static String origin(Pod pod) {
    return pod.getMetadata() == null ? "Pod" : "Pod " + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
  }
}
