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
 * @param volumeLimits how many volumes each CSI driver can attach to the node (its CSINode's
 *     {@code spec.drivers[].allocatable.count}); {@link Integer#MAX_VALUE} for a driver the CSINode
 *     publishes without a count (unlimited). A driver without an entry falls back to the volume
 *     attachment limit of the node's instance type (upstream v1.15, {@code
 *     InstanceType.volumeAttachmentLimits}), else is unlimited. The scheduler never lets the distinct
 *     persistent volume claims of the node's pods, per driver, exceed these.
 */
public record ExistingNode(
    String name,
    Map<String, String> labels,
    List<Taint> taints,
    Resources allocatable,
    List<Pod> pods,
    boolean initialized,
    String nodePoolName,
    Map<String, Integer> volumeLimits) {
  public ExistingNode {
    Objects.requireNonNull(name, "name");
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    taints = taints == null ? List.of() : List.copyOf(taints);
    allocatable = allocatable == null ? Resources.EMPTY : allocatable;
    pods = pods == null ? List.of() : List.copyOf(pods);
    volumeLimits = volumeLimits == null ? Map.of() : Map.copyOf(volumeLimits);
  }

  /** A node without known CSI volume limits (no CSINode yet, or no driver reporting a count). */
  public ExistingNode(
      String name,
      Map<String, String> labels,
      List<Taint> taints,
      Resources allocatable,
      List<Pod> pods,
      boolean initialized,
      String nodePoolName) {
    this(name, labels, taints, allocatable, pods, initialized, nodePoolName, Map.of());
  }

  /** This node with the CSI volume limits of its CSINode. */
  public ExistingNode withVolumeLimits(Map<String, Integer> volumeLimits) {
    return new ExistingNode(name, labels, taints, allocatable, pods, initialized, nodePoolName, volumeLimits);
  }
}
