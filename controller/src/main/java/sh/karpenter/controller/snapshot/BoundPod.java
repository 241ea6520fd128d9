package sh.karpenter.controller.snapshot;

import io.fabric8.kubernetes.api.model.Pod;
import java.util.Objects;

/**
 * A pod bound to a node, as Kubernetes has it and as the scheduler sees it: the conversion keeps the
 * pair together, so whoever needs both (disruption reads the Kubernetes pod's annotations and owners
 * and the converted pod's tolerations and requests) never joins them again by key.
 *
 * @param object the Kubernetes pod
 * @param pod its conversion, one of its node's {@code ExistingNode#pods()}
 */
public record BoundPod(Pod object, sh.karpenter.core.pod.Pod pod) {
  public BoundPod {
    Objects.requireNonNull(object, "object");
    Objects.requireNonNull(pod, "pod");
  }
}
