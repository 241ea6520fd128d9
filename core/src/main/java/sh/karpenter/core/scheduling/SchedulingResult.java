package sh.karpenter.core.scheduling;

import java.util.List;
import java.util.Map;
import sh.karpenter.core.pod.Pod;

/**
 * The outcome of a pass: NodeClaims to launch, pods placed on existing nodes (by node name), and the
 * pods that could not be placed. Every pending pod appears exactly once.
 */
public record SchedulingResult(
    List<PlannedNodeClaim> newNodeClaims, Map<String, List<Pod>> existingNodePlacements, List<PodError> unschedulable) {
  public SchedulingResult {
    newNodeClaims = List.copyOf(newNodeClaims);
    existingNodePlacements = Map.copyOf(existingNodePlacements);
    unschedulable = List.copyOf(unschedulable);
  }
}
