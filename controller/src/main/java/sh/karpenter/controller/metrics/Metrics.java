package sh.karpenter.controller.metrics;

import java.time.Duration;

/**
 * Karpenter's metrics under upstream's {@code karpenter_*} names (karpenter-behaviour.md §8). Callers
 * record through these methods; the exposition lives behind them.
 *
 * <p>SKELETON: signatures are the contract other packages code against; bodies are filled in by the
 * metrics work.
 */
public class Metrics {

  /** A registry-free instance for tests that do not look at metrics. */
  public static Metrics noop() {
    return new Metrics();
  }

  /** {@code karpenter_nodeclaims_created_total{nodepool, reason, min_values_relaxed}}; reason is e.g. {@code provisioning}. */
  public void nodeClaimCreated(String nodePool, String reason, boolean minValuesRelaxed) {}

  /** {@code karpenter_nodeclaims_terminated_total{nodepool, capacity_type}}. */
  public void nodeClaimTerminated(String nodePool, String capacityType) {}

  /** {@code karpenter_nodeclaims_disrupted_total{nodepool, reason, capacity_type}}; reason e.g. {@code insufficient_capacity}, {@code registration_timeout}. */
  public void nodeClaimDisrupted(String nodePool, String reason, String capacityType) {}

  /** {@code karpenter_nodes_created_total{nodepool}}. */
  public void nodeCreated(String nodePool) {}

  /** {@code karpenter_nodes_terminated_total{nodepool}}. */
  public void nodeTerminated(String nodePool) {}

  /**
   * {@code operator_<kind>_status_condition_transitions_total{type, status, reason}} and
   * {@code operator_<kind>_status_condition_transition_seconds} (time spent in the previous status).
   *
   * @param kind {@code nodeclaim}, {@code nodepool} or {@code node}
   * @param sincePrevious time in the previous status, or null when unknown
   */
  public void conditionTransition(String kind, String type, String status, String reason, Duration sincePrevious) {}

  /** {@code karpenter_scheduler_scheduling_duration_seconds{controller}}: one scheduling simulation. */
  public void schedulingDuration(String controller, Duration duration) {}

  /** {@code karpenter_pods_scheduling_decision_duration_seconds}: from a pod seen pending to its decision. */
  public void podSchedulingDecision(Duration duration) {}

  /** {@code karpenter_scheduler_queue_depth{controller}}: pods in the current pass. */
  public void schedulerQueueDepth(String controller, int pods) {}

  /** {@code karpenter_scheduler_unschedulable_pods_count{controller}}. */
  public void unschedulablePods(String controller, int pods) {}

  /** {@code karpenter_scheduler_ignored_pods_count}: pods Karpenter refuses to consider. */
  public void ignoredPods(int pods) {}

  /** {@code karpenter_nodepools_usage{nodepool, resource_type}}. */
  public void nodePoolUsage(String nodePool, String resourceType, double value) {}

  /** {@code karpenter_nodepools_limit{nodepool, resource_type}}. */
  public void nodePoolLimit(String nodePool, String resourceType, double value) {}

  /** Drops every gauge series of a deleted NodePool. */
  public void nodePoolDeleted(String nodePool) {}

  /** {@code karpenter_cluster_state_synced} (1 or 0) and {@code karpenter_cluster_state_node_count}. */
  public void clusterState(boolean synced, int nodeCount) {}
}
