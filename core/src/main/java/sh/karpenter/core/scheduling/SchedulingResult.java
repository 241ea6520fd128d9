package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import sh.karpenter.core.pod.Pod;

/**
 * The outcome of a pass: NodeClaims to launch, pods placed on existing nodes (by node name), the
 * pods that could not be placed, and the pods deferred to the next pass. Every pending pod appears
 * exactly once.
 *
 * @param deferred pods left unplaced by a reserved-offering error
 *     (docs/behaviour/scheduling.md#reserved-capacity): reserved capacity compatible with them
 *     exists but NodeClaims of this pass hold all of it. They are not unschedulable (no
 *     FailedScheduling, no unschedulable metric); the next pass retries them.
 * @param costRepackingOutOfBudget the NodePools whose cost post-pass
 *     (docs/behaviour/scheduling.md#cost-post-pass) stopped at its step budget before it finished:
 *     their NodeClaims are the cheapest plan found by then (first fit's when no packing was
 *     finished). Empty when the post-pass is off or finished everywhere.
 * @param timedOut the pass stopped at its {@link Deadline} (docs/behaviour/scheduling.md#solve-timeout):
 *     its placements stand, the pods it had not tried are in {@code deferred} with the reason
 *     "scheduling simulation timed out before this pod was tried", and the cost post-pass did not run
 */
public record SchedulingResult(
    List<PlannedNodeClaim> newNodeClaims,
    Map<String, List<Pod>> existingNodePlacements,
    List<PodError> unschedulable,
    List<PodError> deferred,
    List<String> costRepackingOutOfBudget,
    boolean timedOut) {
  public SchedulingResult {
    newNodeClaims = List.copyOf(newNodeClaims);
    existingNodePlacements = Map.copyOf(existingNodePlacements);
    unschedulable = List.copyOf(unschedulable);
    deferred = deferred == null ? List.of() : List.copyOf(deferred);
    costRepackingOutOfBudget = costRepackingOutOfBudget == null ? List.of() : List.copyOf(costRepackingOutOfBudget);
  }

  /** A result of a pass that did not time out. */
  public SchedulingResult(
      List<PlannedNodeClaim> newNodeClaims,
      Map<String, List<Pod>> existingNodePlacements,
      List<PodError> unschedulable,
      List<PodError> deferred,
      List<String> costRepackingOutOfBudget) {
    this(newNodeClaims, existingNodePlacements, unschedulable, deferred, costRepackingOutOfBudget, false);
  }

  /** A result whose cost post-pass, if any, finished. */
  public SchedulingResult(
      List<PlannedNodeClaim> newNodeClaims, Map<String, List<Pod>> existingNodePlacements, List<PodError> unschedulable, List<PodError> deferred) {
    this(newNodeClaims, existingNodePlacements, unschedulable, deferred, List.of());
  }

  /** A result with nothing deferred. */
  public SchedulingResult(List<PlannedNodeClaim> newNodeClaims, Map<String, List<Pod>> existingNodePlacements, List<PodError> unschedulable) {
    this(newNodeClaims, existingNodePlacements, unschedulable, List.of());
  }

  /**
   * Every placed pod: those on new NodeClaims (in plan order), then those on existing nodes by node
   * name (the map's own order changes from one JVM to the next), so the list is the same on every run.
   * What a lower bound is taken over; the bound sorts the pods itself and depends only on which they are.
   */
  public List<Pod> placedPods() {
    List<Pod> placed = new ArrayList<>();
    for (PlannedNodeClaim claim : newNodeClaims) {
      placed.addAll(claim.pods());
    }
    existingNodePlacements.entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> placed.addAll(e.getValue()));
    return placed;
  }
}
