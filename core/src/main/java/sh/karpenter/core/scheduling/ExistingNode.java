package sh.karpenter.core.scheduling;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;

/**
 * A node (or an in-flight NodeClaim not yet registered) pending pods may be placed on.
 *
 * @param pods the pods bound to it
 * @param initialized false for in-flight capacity; initialized nodes are tried first
 * @param nodePoolName the owning NodePool, or null for capacity Karpenter does not manage
 */
public record ExistingNode(
    String name,
    Map<String, String> labels,
    List<Taint> taints,
    Resources allocatable,
    List<Pod> pods,
    boolean initialized,
    String nodePoolName) {
  public ExistingNode {
    Objects.requireNonNull(name, "name");
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    taints = taints == null ? List.of() : List.copyOf(taints);
    allocatable = allocatable == null ? Resources.EMPTY : allocatable;
    pods = pods == null ? List.of() : List.copyOf(pods);
  }
}
