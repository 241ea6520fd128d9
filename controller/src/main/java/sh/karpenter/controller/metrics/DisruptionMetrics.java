package sh.karpenter.controller.metrics;

import static sh.karpenter.controller.metrics.Metrics.DURATION_BUCKETS;
import static sh.karpenter.controller.metrics.Metrics.NODEPOOL;
import static sh.karpenter.controller.metrics.Metrics.REASON;
import static sh.karpenter.controller.metrics.Metrics.seconds;
import static sh.karpenter.controller.metrics.Metrics.v;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.prometheus.client.Histogram;
import java.time.Duration;

/**
 * The disruption and termination families under upstream's names
 * (docs/behaviour/observability.md#metrics): voluntary disruption decisions, budgets, consolidation
 * scores, evictions and drains. Part of {@link Metrics} ({@link Metrics#disruption()}), in the same
 * registry.
 */
public final class DisruptionMetrics {
  static final String DECISION = "decision";
  static final String CONSOLIDATION_TYPE = "consolidation_type";
  static final String METHOD = "method";
  static final String POLICY = "policy";
  /** The {@code decision} of a consolidation move or score. */
  static final String APPROVED = "approved";
  static final String REJECTED = "rejected";

  private final boolean enabled;
  private final Histogram decisionEvaluation;
  private final Counter decisions;
  private final Counter decisionsByNodePool;
  private final Counter shadowDecisions;
  private final Gauge eligibleNodes;
  private final Counter consolidationTimeouts;
  private final Counter failedValidations;
  private final Counter queueFailures;
  private final Gauge allowedDisruptions;
  private final Gauge nodesConsumingBudgets;
  private final Histogram consolidationScore;
  private final Counter consolidationMoves;
  private final Counter podsDisruptionInitiated;
  private final Counter evictionRequests;
  private final Counter podsDrained;
  private final Counter nodesDrained;
  private final Histogram nodeTerminationDuration;
  private final Histogram instanceTerminationDuration;
  private final Histogram nodeLifetime;

  DisruptionMetrics(CollectorRegistry registry) {
    enabled = registry != null;
    if (!enabled) {
      decisionEvaluation = null;
      decisions = null;
      decisionsByNodePool = null;
      shadowDecisions = null;
      eligibleNodes = null;
      consolidationTimeouts = null;
      failedValidations = null;
      queueFailures = null;
      allowedDisruptions = null;
      nodesConsumingBudgets = null;
      consolidationScore = null;
      consolidationMoves = null;
      podsDisruptionInitiated = null;
      evictionRequests = null;
      podsDrained = null;
      nodesDrained = null;
      nodeTerminationDuration = null;
      instanceTerminationDuration = null;
      nodeLifetime = null;
      return;
    }
    decisionEvaluation = Histogram.build()
        .name("karpenter_voluntary_disruption_decision_evaluation_duration_seconds")
        .help("Duration of the disruption decision evaluation process in seconds. Labeled by method and consolidation type.")
        .labelNames(METHOD, CONSOLIDATION_TYPE).buckets(DURATION_BUCKETS).register(registry);
    decisions = Counter.build().name("karpenter_voluntary_disruption_decisions_total")
        .help("Number of disruption decisions performed. Labeled by disruption decision, reason, and consolidation type.")
        .labelNames(DECISION, REASON, CONSOLIDATION_TYPE).register(registry);
    decisionsByNodePool = Counter.build().name("karpenter_voluntary_disruption_decisions_by_nodepool_total")
        .help("Number of disruption decisions performed by nodepool. Labeled by nodepool name, disruption decision, reason, and consolidation type.")
        .labelNames(NODEPOOL, DECISION, REASON, CONSOLIDATION_TYPE).register(registry);
    shadowDecisions = Counter.build().name("karpenter_voluntary_disruption_shadow_decisions_total")
        .help("Number of disruption decisions shadow mode recorded instead of carrying out (not an upstream metric)."
            + " Labeled by disruption decision, reason, and consolidation type.")
        .labelNames(DECISION, REASON, CONSOLIDATION_TYPE).register(registry);
    eligibleNodes = Gauge.build().name("karpenter_voluntary_disruption_eligible_nodes")
        .help("Number of nodes eligible for disruption by Karpenter. Labeled by disruption reason.")
        .labelNames(REASON).register(registry);
    consolidationTimeouts = Counter.build().name("karpenter_voluntary_disruption_consolidation_timeouts_total")
        .help("Number of times the Consolidation algorithm has reached a timeout. Labeled by consolidation type.")
        .labelNames(CONSOLIDATION_TYPE).register(registry);
    failedValidations = Counter.build().name("karpenter_voluntary_disruption_failed_validations_total")
        .help("Number of candidates that were selected for disruption but failed validation. Labeled by consolidation type.")
        .labelNames(CONSOLIDATION_TYPE).register(registry);
    queueFailures = Counter.build().name("karpenter_voluntary_disruption_queue_failures_total")
        .help("Number of times that an enqueued disruption decision failed. Labeled by disruption method.")
        .labelNames(DECISION, REASON, CONSOLIDATION_TYPE).register(registry);
    allowedDisruptions = Gauge.build().name("karpenter_nodepools_allowed_disruptions")
        .help("The number of nodes for a given NodePool that can be concurrently disrupting at a point in time. Labeled by NodePool and reason.")
        .labelNames(NODEPOOL, REASON).register(registry);
    nodesConsumingBudgets = Gauge.build().name("karpenter_nodepools_nodes_consuming_budgets")
        .help("The number of nodes consuming the budget of a nodepool at a point in time. Labeled by NodePool.")
        .labelNames(NODEPOOL, REASON).register(registry);
    consolidationScore = Histogram.build().name("karpenter_consolidation_score")
        .help("Score of balanced consolidation moves. Labeled by decision, NodePool, and policy.")
        .labelNames(DECISION, NODEPOOL, POLICY).buckets(0.1, 0.25, 0.33, 0.5, 1.0, 2.0, 5.0, 10.0).register(registry);
    consolidationMoves = Counter.build().name("karpenter_consolidation_moves_total")
        .help("Number of balanced consolidation moves. Labeled by decision, NodePool, and policy.")
        .labelNames(DECISION, NODEPOOL, POLICY).register(registry);
    podsDisruptionInitiated = Counter.build().name("karpenter_pods_disruption_initiated_total")
        .help("Number of pod disruptions initiated in total by Karpenter, incremented by the reschedulable pod count whenever the"
            + " underlying nodeclaim is disrupted. Labeled by reason the nodeclaim was disrupted, the owning nodepool, the capacity"
            + " type, the consolidation policy, and the termination mode. Pods owned by DaemonSets and mirror pods are excluded.")
        .labelNames(Metrics.DISRUPTION_LABELS).register(registry);
    evictionRequests = Counter.build().name("karpenter_pods_eviction_requests_total")
        .help("The number of pod eviction requests made by Karpenter. Labeled by the response code.")
        .labelNames("code").register(registry);
    podsDrained = Counter.build().name("karpenter_pods_drained_total")
        .help("Number of pods drained during node termination by Karpenter. Labeled by the reason of the node's disruption.")
        .labelNames(REASON).register(registry);
    nodesDrained = Counter.build().name("karpenter_nodes_drained_total")
        .help("The number of nodes drained by Karpenter. Labeled by the owning nodepool.")
        .labelNames(NODEPOOL).register(registry);
    nodeTerminationDuration = Histogram.build().name("karpenter_nodes_termination_duration_seconds")
        .help("The time taken between a node's deletion request and the removal of its finalizer. Labeled by the owning nodepool.")
        .labelNames(NODEPOOL).buckets(DURATION_BUCKETS).register(registry);
    instanceTerminationDuration = Histogram.build().name("karpenter_nodeclaims_instance_termination_duration_seconds")
        .help("Duration of CloudProvider Instance termination in seconds. Labeled by the owning nodepool.")
        .labelNames(NODEPOOL).buckets(DURATION_BUCKETS).register(registry);
    nodeLifetime = Histogram.build().name("karpenter_nodes_lifetime_duration_seconds")
        .help("The lifetime duration of the nodes since creation. Labeled by the owning nodepool.")
        .labelNames(NODEPOOL).exponentialBuckets(60, 2, 16).register(registry);
  }

  /** {@code ..._decision_evaluation_duration_seconds{method, consolidation_type}}: one method's evaluation. */
  public void decisionEvaluated(String method, String consolidationType, Duration took) {
    if (enabled && took != null) decisionEvaluation.labels(v(method), v(consolidationType)).observe(seconds(took));
  }

  /** {@code karpenter_voluntary_disruption_decisions_total{decision, reason, consolidation_type}}; decision is {@code delete} or {@code replace}. */
  public void decision(String decision, String reason, String consolidationType) {
    if (enabled) decisions.labels(v(decision), v(reason), v(consolidationType)).inc();
  }

  /**
   * {@code karpenter_voluntary_disruption_decisions_by_nodepool_total{nodepool, decision, reason,
   * consolidation_type}}: once per NodePool among a started command's candidates.
   */
  public void decisionByNodePool(String nodePool, String decision, String reason, String consolidationType) {
    if (enabled) decisionsByNodePool.labels(v(nodePool), v(decision), v(reason), v(consolidationType)).inc();
  }

  /**
   * {@code karpenter_voluntary_disruption_shadow_decisions_total{decision, reason, consolidation_type}}
   * (project-only): a command shadow mode reported instead of starting it.
   */
  public void shadowDecision(String decision, String reason, String consolidationType) {
    if (enabled) shadowDecisions.labels(v(decision), v(reason), v(consolidationType)).inc();
  }

  /** {@code karpenter_voluntary_disruption_eligible_nodes{reason}}. */
  public void eligibleNodes(String reason, int count) {
    if (enabled) eligibleNodes.labels(v(reason)).set(count);
  }

  /** {@code karpenter_voluntary_disruption_consolidation_timeouts_total{consolidation_type}}. */
  public void consolidationTimeout(String consolidationType) {
    if (enabled) consolidationTimeouts.labels(v(consolidationType)).inc();
  }

  /** {@code karpenter_voluntary_disruption_failed_validations_total{consolidation_type}}. */
  public void failedValidation(String consolidationType) {
    if (enabled) failedValidations.labels(v(consolidationType)).inc();
  }

  /** {@code karpenter_voluntary_disruption_queue_failures_total{decision, reason, consolidation_type}}. */
  public void queueFailure(String decision, String reason, String consolidationType) {
    if (enabled) queueFailures.labels(v(decision), v(reason), v(consolidationType)).inc();
  }

  /** {@code karpenter_nodepools_allowed_disruptions{nodepool, reason}}. */
  public void allowedDisruptions(String nodePool, String reason, int allowed) {
    if (enabled) allowedDisruptions.labels(v(nodePool), v(reason)).set(allowed);
  }

  /** {@code karpenter_nodepools_nodes_consuming_budgets{nodepool, reason}}: nodes already disrupting, set with the allowed disruptions. */
  public void nodesConsumingBudgets(String nodePool, String reason, int nodes) {
    if (enabled) nodesConsumingBudgets.labels(v(nodePool), v(reason)).set(nodes);
  }

  /** {@code karpenter_consolidation_score{decision, nodepool, policy}}: one Balanced-policy move (policy {@code Balanced}). */
  public void consolidationScore(String nodePool, boolean approved, double score) {
    if (enabled) consolidationScore.labels(approved ? APPROVED : REJECTED, v(nodePool), "Balanced").observe(score);
  }

  /**
   * {@code karpenter_consolidation_moves_total{decision, nodepool, policy}}: one consolidation move
   * judged for a NodePool, {@code decision} {@code approved} or {@code rejected}, {@code policy} the
   * pool's consolidation policy as the API spells it.
   */
  public void consolidationMove(String nodePool, String policy, boolean approved) {
    if (enabled) consolidationMoves.labels(approved ? APPROVED : REJECTED, v(nodePool), v(policy)).inc();
  }

  /**
   * {@code karpenter_pods_disruption_initiated_total{reason, nodepool, capacity_type,
   * consolidation_policy, termination_mode}}, by the number of reschedulable pods of the disrupted
   * NodeClaim (the same labels as its {@code nodeclaims_disrupted_total}).
   */
  public void podsDisruptionInitiated(DisruptionLabels labels, int pods) {
    if (enabled && pods > 0) podsDisruptionInitiated.labels(labels.values()).inc(pods);
  }

  /** {@code karpenter_pods_eviction_requests_total{code}}: one Eviction API call and its HTTP status (200, 429, 404, 500 ...). */
  public void evictionRequest(int code) {
    if (enabled) evictionRequests.labels(Integer.toString(code)).inc();
  }

  /** {@code karpenter_pods_drained_total{reason}}: a pod evicted or deleted by a drain. */
  public void podDrained(String reason) {
    if (enabled) podsDrained.labels(v(reason)).inc();
  }

  /** {@code karpenter_nodes_drained_total{nodepool}}. */
  public void nodeDrained(String nodePool) {
    if (enabled) nodesDrained.labels(v(nodePool)).inc();
  }

  /** {@code karpenter_nodes_termination_duration_seconds{nodepool}}: deletion request to finalizer removal. */
  public void nodeTerminated(String nodePool, Duration took) {
    if (enabled && took != null) nodeTerminationDuration.labels(v(nodePool)).observe(seconds(took));
  }

  /** {@code karpenter_nodeclaims_instance_termination_duration_seconds{nodepool}}. */
  public void instanceTerminated(String nodePool, Duration took) {
    if (enabled && took != null) instanceTerminationDuration.labels(v(nodePool)).observe(seconds(took));
  }

  /** {@code karpenter_nodes_lifetime_duration_seconds{nodepool}}: creation to termination. */
  public void nodeLifetime(String nodePool, Duration lifetime) {
    if (enabled && lifetime != null) nodeLifetime.labels(v(nodePool)).observe(seconds(lifetime));
  }
}
