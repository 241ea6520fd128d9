package sh.karpenter.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * The exported metric families must be exactly upstream Karpenter's names, types and label names
 * (docs/behaviour/observability.md#metrics; the disruption counters' and cloud provider errors' labels
 * as of v1.15, docs/upstream-v1.15.md), checked on a real scrape.
 */
class MetricsParityTest {

  /**
   * Upstream's {@code metrics.node} labels: the well-known labels as {@code getWellKnownLabels}
   * names them, then {@code node_name}, {@code phase} and {@code managed}.
   */
  private static final Set<String> NODE_LABELS = Set.of("nodepool", "zone", "region", "instance_type", "arch", "os",
      "capacity_type", "windows_build", "node_name", "phase", "managed");

  private static final Set<String> NODE_LABELS_WITH_RESOURCE_TYPE =
      java.util.stream.Stream.concat(NODE_LABELS.stream(), java.util.stream.Stream.of("resource_type"))
          .collect(java.util.stream.Collectors.toUnmodifiableSet());

  private static final Map<String, Set<String>> UPSTREAM_LABELS =
      new TreeMap<>(
          Map.ofEntries(
              Map.entry("karpenter_nodeclaims_created_total", Set.of("nodepool", "reason", "min_values_relaxed")),
              Map.entry("karpenter_nodeclaims_terminated_total", Set.of("nodepool", "capacity_type")),
              Map.entry("karpenter_nodeclaims_disrupted_total",
                  Set.of("nodepool", "reason", "capacity_type", "consolidation_policy", "termination_mode")),
              Map.entry("karpenter_nodeclaims_unhealthy_disrupted_total",
                  Set.of("condition", "nodepool", "capacity_type", "image_id", "termination_mode")),
              Map.entry("karpenter_nodes_created_total", Set.of("nodepool")),
              Map.entry("karpenter_nodes_terminated_total", Set.of("nodepool")),
              Map.entry("karpenter_pods_scheduling_decision_duration_seconds", Set.of()),
              Map.entry("karpenter_scheduler_scheduling_duration_seconds", Set.of("controller")),
              Map.entry("karpenter_scheduler_queue_depth", Set.of("controller")),
              Map.entry("karpenter_scheduler_unschedulable_pods_count", Set.of("controller")),
              Map.entry("karpenter_scheduler_ignored_pods_count", Set.of()),
              Map.entry("karpenter_nodepools_usage", Set.of("nodepool", "resource_type")),
              Map.entry("karpenter_nodepools_limit", Set.of("nodepool", "resource_type")),
              Map.entry("karpenter_cluster_state_synced", Set.of()),
              Map.entry("karpenter_cluster_state_node_count", Set.of()),
              Map.entry("karpenter_cloudprovider_duration_seconds", Set.of("controller", "method", "provider")),
              Map.entry("karpenter_cloudprovider_errors_total", Set.of("controller", "method", "provider", "error", "nodepool")),
              Map.entry("operator_nodeclaim_status_condition_transitions_total", Set.of("type", "status", "reason")),
              Map.entry("operator_nodeclaim_status_condition_transition_seconds", Set.of("type", "status", "reason")),
              Map.entry("operator_nodepool_status_condition_transitions_total", Set.of("type", "status", "reason")),
              Map.entry("operator_nodepool_status_condition_transition_seconds", Set.of("type", "status", "reason")),
              Map.entry("operator_node_status_condition_transitions_total", Set.of("type", "status", "reason")),
              Map.entry("operator_node_status_condition_transition_seconds", Set.of("type", "status", "reason")),
              Map.entry("controller_runtime_reconcile_total", Set.of("controller", "result")),
              Map.entry("controller_runtime_reconcile_errors_total", Set.of("controller")),
              Map.entry("controller_runtime_reconcile_time_seconds", Set.of("controller")),
              Map.entry("workqueue_depth", Set.of("name")),
              Map.entry("karpenter_voluntary_disruption_decision_evaluation_duration_seconds", Set.of("method", "consolidation_type")),
              Map.entry("karpenter_voluntary_disruption_decisions_total", Set.of("decision", "reason", "consolidation_type")),
              Map.entry("karpenter_voluntary_disruption_eligible_nodes", Set.of("reason")),
              Map.entry("karpenter_voluntary_disruption_consolidation_timeouts_total", Set.of("consolidation_type")),
              Map.entry("karpenter_voluntary_disruption_failed_validations_total", Set.of("consolidation_type")),
              Map.entry("karpenter_voluntary_disruption_queue_failures_total", Set.of("decision", "reason", "consolidation_type")),
              Map.entry("karpenter_nodepools_allowed_disruptions", Set.of("nodepool", "reason")),
              Map.entry("karpenter_voluntary_disruption_decisions_by_nodepool_total", Set.of("nodepool", "decision", "reason", "consolidation_type")),
              Map.entry("karpenter_nodepools_nodes_consuming_budgets", Set.of("nodepool", "reason")),
              Map.entry("karpenter_consolidation_score", Set.of("decision", "nodepool", "policy")),
              Map.entry("karpenter_consolidation_moves_total", Set.of("decision", "nodepool", "policy")),
              Map.entry("karpenter_pods_disruption_initiated_total",
                  Set.of("reason", "nodepool", "capacity_type", "consolidation_policy", "termination_mode")),
              Map.entry("karpenter_pods_eviction_requests_total", Set.of("code")),
              Map.entry("karpenter_pods_drained_total", Set.of("reason")),
              Map.entry("karpenter_nodes_drained_total", Set.of("nodepool")),
              Map.entry("karpenter_nodes_termination_duration_seconds", Set.of("nodepool")),
              Map.entry("karpenter_nodeclaims_instance_termination_duration_seconds", Set.of("nodepool")),
              Map.entry("karpenter_nodes_lifetime_duration_seconds", Set.of("nodepool")),
              Map.entry("karpenter_nodes_allocatable", NODE_LABELS_WITH_RESOURCE_TYPE),
              Map.entry("karpenter_nodes_total_pod_requests", NODE_LABELS_WITH_RESOURCE_TYPE),
              Map.entry("karpenter_nodes_total_pod_limits", NODE_LABELS_WITH_RESOURCE_TYPE),
              Map.entry("karpenter_nodes_total_daemon_requests", NODE_LABELS_WITH_RESOURCE_TYPE),
              Map.entry("karpenter_nodes_total_daemon_limits", NODE_LABELS_WITH_RESOURCE_TYPE),
              Map.entry("karpenter_nodes_system_overhead", NODE_LABELS_WITH_RESOURCE_TYPE),
              Map.entry("karpenter_nodes_current_lifetime_seconds", NODE_LABELS),
              Map.entry("karpenter_cluster_utilization_percent", Set.of("resource_type"))));

  /**
   * The project's own families, not upstream's (docs/behaviour/observability.md#project-families):
   * exported next to upstream's, all gauges but the counter.
   */
  private static final Map<String, Set<String>> PROJECT_LABELS =
      Map.of(
          "karpenter_voluntary_disruption_shadow_decisions_total", Set.of("decision", "reason", "consolidation_type"),
          "karpenter_kube_client_requests_total", Set.of("verb", "resource"),
          "karpenter_nodepools_cost_current", Set.of("nodepool"),
          "karpenter_nodepools_cost_lower_bound", Set.of("nodepool"),
          "karpenter_nodepools_cost_gap_ratio", Set.of("nodepool"));

  private static final Map<String, String> UPSTREAM_TYPES =
      Map.ofEntries(
          Map.entry("karpenter_pods_scheduling_decision_duration_seconds", "histogram"),
          Map.entry("karpenter_scheduler_scheduling_duration_seconds", "histogram"),
          Map.entry("karpenter_cloudprovider_duration_seconds", "histogram"),
          Map.entry("operator_nodeclaim_status_condition_transition_seconds", "histogram"),
          Map.entry("operator_nodepool_status_condition_transition_seconds", "histogram"),
          Map.entry("operator_node_status_condition_transition_seconds", "histogram"),
          Map.entry("controller_runtime_reconcile_time_seconds", "histogram"),
          Map.entry("karpenter_scheduler_queue_depth", "gauge"),
          Map.entry("karpenter_scheduler_unschedulable_pods_count", "gauge"),
          Map.entry("karpenter_scheduler_ignored_pods_count", "gauge"),
          Map.entry("karpenter_nodepools_usage", "gauge"),
          Map.entry("karpenter_nodepools_limit", "gauge"),
          Map.entry("karpenter_cluster_state_synced", "gauge"),
          Map.entry("karpenter_cluster_state_node_count", "gauge"),
          Map.entry("workqueue_depth", "gauge"),
          Map.entry("karpenter_voluntary_disruption_decision_evaluation_duration_seconds", "histogram"),
          Map.entry("karpenter_voluntary_disruption_eligible_nodes", "gauge"),
          Map.entry("karpenter_nodepools_allowed_disruptions", "gauge"),
          Map.entry("karpenter_nodepools_nodes_consuming_budgets", "gauge"),
          Map.entry("karpenter_consolidation_score", "histogram"),
          Map.entry("karpenter_nodes_termination_duration_seconds", "histogram"),
          Map.entry("karpenter_nodeclaims_instance_termination_duration_seconds", "histogram"),
          Map.entry("karpenter_nodes_lifetime_duration_seconds", "histogram"),
          Map.entry("karpenter_nodes_allocatable", "gauge"),
          Map.entry("karpenter_nodes_total_pod_requests", "gauge"),
          Map.entry("karpenter_nodes_total_pod_limits", "gauge"),
          Map.entry("karpenter_nodes_total_daemon_requests", "gauge"),
          Map.entry("karpenter_nodes_total_daemon_limits", "gauge"),
          Map.entry("karpenter_nodes_system_overhead", "gauge"),
          Map.entry("karpenter_nodes_current_lifetime_seconds", "gauge"),
          Map.entry("karpenter_cluster_utilization_percent", "gauge"));

  private final Metrics metrics = new Metrics(new CollectorRegistry());

  private void touchEveryMethod() {
    metrics.nodeClaimCreated("default", "provisioning", false);
    metrics.nodeClaimTerminated("default", "spot");
    metrics.nodeClaimDisrupted(new DisruptionLabels("insufficient_capacity", "default", "on-demand", "", "graceful"));
    metrics.nodeCreated("default");
    metrics.nodeTerminated("default");
    for (String kind : List.of("nodeclaim", "nodepool", "node")) {
      metrics.conditionTransition(kind, "Ready", "True", "Ready", Duration.ofSeconds(3));
    }
    metrics.schedulingDuration("provisioner", Duration.ofMillis(120));
    metrics.podSchedulingDecision(Duration.ofSeconds(2));
    metrics.schedulerQueueDepth("provisioner", 7);
    metrics.unschedulablePods("provisioner", 2);
    metrics.ignoredPods(1);
    metrics.nodePoolUsage("default", "cpu", 4);
    metrics.nodePoolLimit("default", "cpu", 100);
    metrics.clusterState(true, 3);
    metrics.cloudProviderCall("nodeclaim.lifecycle", "Create", "kwok", Duration.ofMillis(40));
    metrics.cloudProviderError("nodeclaim.lifecycle", "Create", "kwok", "InsufficientCapacityError", "default");
    metrics.controllerRuntime().reconciled("nodeclaim.lifecycle", Duration.ofMillis(5), null);
    metrics.controllerRuntime().reconciled("nodeclaim.lifecycle", Duration.ofMillis(5), new IllegalStateException());
    metrics.controllerRuntime().queueDepth("nodeclaim.lifecycle", 4);
    DisruptionMetrics d = metrics.disruption();
    d.decisionEvaluated("emptiness", "empty", Duration.ofMillis(3));
    d.decision("delete", "empty", "empty");
    d.eligibleNodes("empty", 2);
    d.consolidationTimeout("multi");
    d.failedValidation("single");
    d.queueFailure("replace", "underutilized", "single");
    d.allowedDisruptions("default", "Empty", 1);
    d.decisionByNodePool("default", "delete", "empty", "empty");
    d.nodesConsumingBudgets("default", "empty", 1);
    d.consolidationScore("default", true, 0.8);
    d.consolidationMove("default", "Balanced", false);
    d.podsDisruptionInitiated(new DisruptionLabels("empty", "default", "spot", "when_empty", "eventual"), 2);
    d.evictionRequest(429);
    d.podDrained("drifted");
    d.nodeDrained("default");
    d.nodeTerminated("default", Duration.ofSeconds(30));
    d.instanceTerminated("default", Duration.ofSeconds(2));
    d.nodeLifetime("default", Duration.ofHours(3));
    metrics.repair().unhealthyDisrupted("Ready", "default", "spot", "ami-1", "graceful");
    d.shadowDecision("delete", "empty", "empty");
    metrics.cost().nodePoolCost("default", 1.2, 0.8, 1 / 3.0);
    metrics.apiRequests().requested("patch", "nodeclaims/status");
    new NodeMetrics(metrics, java.time.Clock.systemUTC()).update(
        List.of(new io.fabric8.kubernetes.api.model.NodeBuilder().withNewMetadata().withName("n1").endMetadata()
            .withNewStatus().withAllocatable(Map.of("cpu", new io.fabric8.kubernetes.api.model.Quantity("1")))
            .withCapacity(Map.of("cpu", new io.fabric8.kubernetes.api.model.Quantity("2"))).endStatus().build()),
        List.of(new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withNamespace("default").withName("p")
            .endMetadata().withNewSpec().withNodeName("n1").addNewContainer().withName("c").withNewResources()
            .withLimits(Map.of("cpu", new io.fabric8.kubernetes.api.model.Quantity("1"))).endResources().endContainer()
            .endSpec().build(),
            new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().withNamespace("default").withName("d")
            .addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("ds").endOwnerReference()
            .endMetadata().withNewSpec().withNodeName("n1").addNewContainer().withName("c").withNewResources()
            .withLimits(Map.of("cpu", new io.fabric8.kubernetes.api.model.Quantity("100m"))).endResources().endContainer()
            .endSpec().build()),
        List.of());
  }

  @Test
  void exportsExactlyUpstreamsFamiliesAndLabelNames() {
    touchEveryMethod();
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    Map<String, Set<String>> expected = new TreeMap<>(UPSTREAM_LABELS);
    expected.putAll(PROJECT_LABELS);
    assertThat(scraped.labelNames()).isEqualTo(expected);
    assertThat(PROJECT_LABELS.keySet()).doesNotContainAnyElementsOf(UPSTREAM_LABELS.keySet());
    UPSTREAM_LABELS.keySet().forEach(family -> {
      String type = UPSTREAM_TYPES.getOrDefault(family, family.endsWith("_total") ? "counter" : "?");
      assertThat(scraped.types()).as(family).containsEntry(family, type);
    });
    PROJECT_LABELS.keySet().forEach(family ->
        assertThat(scraped.types()).as(family).containsEntry(family, family.endsWith("_total") ? "counter" : "gauge"));
  }

  @Test
  void countsTheControllersApiRequestsByVerbAndResource() {
    metrics.apiRequests().requested("patch", "nodeclaims/status");
    metrics.apiRequests().requested("patch", "nodeclaims/status");
    metrics.apiRequests().requested("list", "pods");

    ScrapedText scraped = ScrapedText.parse(metrics.scrape());
    assertThat(scraped.value("karpenter_kube_client_requests_total", Map.of("verb", "patch", "resource", "nodeclaims/status"))).contains(2.0);
    assertThat(scraped.value("karpenter_kube_client_requests_total", Map.of("verb", "list", "resource", "pods"))).contains(1.0);
    Metrics.noop().apiRequests().requested("list", "pods"); // records nothing, does not fail
  }

  @Test
  void aDeletedNodePoolLosesItsCostSeries() {
    metrics.cost().nodePoolCost("default", 1.2, 0.8, 1 / 3.0);
    metrics.cost().nodePoolCost("other", 1, 1, 0);

    metrics.nodePoolDeleted("default");

    ScrapedText scraped = ScrapedText.parse(metrics.scrape());
    assertThat(scraped.value("karpenter_nodepools_cost_current", Map.of("nodepool", "default"))).isEmpty();
    assertThat(scraped.value("karpenter_nodepools_cost_gap_ratio", Map.of("nodepool", "default"))).isEmpty();
    assertThat(scraped.value("karpenter_nodepools_cost_lower_bound", Map.of("nodepool", "other"))).contains(1.0);
  }

  @Test
  void createdTotalCountersKeepTheirNameAndNoCreatedFamiliesAppear() {
    metrics.nodeClaimCreated("default", "provisioning", true);
    metrics.nodeCreated("default");
    String text = metrics.scrape();

    assertThat(text)
        .contains("# TYPE karpenter_nodeclaims_created_total counter")
        .contains("karpenter_nodeclaims_created_total{reason=\"provisioning\",nodepool=\"default\",min_values_relaxed=\"true\",} 1.0")
        .contains("karpenter_nodes_created_total{nodepool=\"default\",} 1.0")
        .doesNotContain("_created_created")
        .doesNotContain("karpenter_nodeclaims_total")
        .doesNotContain("_seconds_created")
        .doesNotContain("_max");
  }

  @Test
  void recordsTheValuesItIsGiven() {
    touchEveryMethod();
    metrics.nodeClaimCreated("default", "provisioning", false);
    metrics.clusterState(false, 5);
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.value(
            "karpenter_nodeclaims_created_total",
            Map.of("nodepool", "default", "reason", "provisioning", "min_values_relaxed", "false")))
        .contains(2.0);
    assertThat(scraped.value("karpenter_cluster_state_synced", Map.of())).contains(0.0);
    assertThat(scraped.value("karpenter_cluster_state_node_count", Map.of())).contains(5.0);
    assertThat(scraped.value("karpenter_scheduler_queue_depth", Map.of("controller", "provisioner"))).contains(7.0);
    assertThat(scraped.value("karpenter_nodepools_limit", Map.of("nodepool", "default", "resource_type", "cpu")))
        .contains(100.0);
    assertThat(scraped.value("karpenter_scheduler_scheduling_duration_seconds_sum", Map.of("controller", "provisioner")))
        .contains(0.12);
    assertThat(scraped.value(
            "operator_nodeclaim_status_condition_transition_seconds_sum",
            Map.of("type", "Ready", "status", "True", "reason", "Ready")))
        .contains(3.0);
  }

  @Test
  void disruptionCountersCarryUpstreamsFiveLabelsInOrder() {
    DisruptionLabels labels = new DisruptionLabels("underutilized", "default", "spot", "balanced", "forceful");
    metrics.nodeClaimDisrupted(labels);
    metrics.disruption().podsDisruptionInitiated(labels, 3);
    metrics.disruption().podsDisruptionInitiated(labels, 0);
    String text = metrics.scrape();

    assertThat(text)
        .contains("karpenter_nodeclaims_disrupted_total{reason=\"underutilized\",nodepool=\"default\",capacity_type=\"spot\","
            + "consolidation_policy=\"balanced\",termination_mode=\"forceful\",} 1.0")
        .contains("karpenter_pods_disruption_initiated_total{reason=\"underutilized\",nodepool=\"default\",capacity_type=\"spot\","
            + "consolidation_policy=\"balanced\",termination_mode=\"forceful\",} 3.0");
  }

  @Test
  void durationHistogramsUseUpstreamsDurationBuckets() {
    metrics.podSchedulingDecision(Duration.ofMillis(7));
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    List<String> les = scraped.samples("karpenter_pods_scheduling_decision_duration_seconds_bucket").stream()
        .map(s -> s.labels().get("le"))
        .toList();
    assertThat(les).hasSize(Metrics.DURATION_BUCKETS.length + 1);
    assertThat(les.getFirst()).isEqualTo("0.005");
    assertThat(les).contains("60.0", "600.0");
    assertThat(les.getLast()).isEqualTo("+Inf");
    assertThat(scraped.value("karpenter_pods_scheduling_decision_duration_seconds_bucket", Map.of("le", "0.005")))
        .contains(0.0);
    assertThat(scraped.value("karpenter_pods_scheduling_decision_duration_seconds_bucket", Map.of("le", "0.01")))
        .contains(1.0);
  }

  @Test
  void statusConditionHistogramsUseFifteenDoublingBucketsFromHalfASecond() {
    metrics.conditionTransition("nodeclaim", "Launched", "False", "", Duration.ofSeconds(1));
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    List<String> les = scraped.samples("operator_nodeclaim_status_condition_transition_seconds_bucket").stream()
        .map(s -> s.labels().get("le"))
        .toList();
    assertThat(les)
        .containsExactly(
            "0.5", "1.0", "2.0", "4.0", "8.0", "16.0", "32.0", "64.0", "128.0", "256.0", "512.0", "1024.0",
            "2048.0", "4096.0", "8192.0", "+Inf");
  }

  @Test
  void conditionTransitionWithoutPreviousDurationOnlyCounts() {
    metrics.conditionTransition("nodepool", "Ready", "False", "NodeClassNotReady", null);
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    Map<String, String> labels = Map.of("type", "Ready", "status", "False", "reason", "NodeClassNotReady");
    assertThat(scraped.value("operator_nodepool_status_condition_transitions_total", labels)).contains(1.0);
    assertThat(scraped.samples("operator_nodepool_status_condition_transition_seconds_count")).isEmpty();
  }

  @Test
  void otherKindsGetTheirOwnFamiliesAndABlankKindIsIgnored() {
    metrics.conditionTransition("CapacityBuffer", "Ready", "True", "", Duration.ZERO);
    metrics.conditionTransition(" ", "Ready", "True", "", Duration.ZERO);
    metrics.conditionTransition(null, "Ready", "True", "", Duration.ZERO);
    metrics.conditionTransition("-", "Ready", "True", "", Duration.ZERO);
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.types()).containsKey("operator_capacitybuffer_status_condition_transitions_total");
    assertThat(scraped.types().keySet()).allMatch(name -> !name.startsWith("operator__"));
  }

  @Test
  void nullLabelValuesBecomeEmptyStrings() {
    metrics.nodeClaimCreated(null, null, false);
    metrics.nodePoolUsage("default", null, 1);
    metrics.cloudProviderError(null, null, null, null, null);
    metrics.nodeClaimDisrupted(new DisruptionLabels(null, null, null, null, null));
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.value(
            "karpenter_nodeclaims_created_total", Map.of("nodepool", "", "reason", "", "min_values_relaxed", "false")))
        .contains(1.0);
    assertThat(scraped.value("karpenter_nodepools_usage", Map.of("nodepool", "default", "resource_type", "")))
        .contains(1.0);
    assertThat(scraped.value(
            "karpenter_cloudprovider_errors_total", Map.of("controller", "", "method", "", "provider", "", "error", "", "nodepool", "")))
        .contains(1.0);
    assertThat(scraped.value("karpenter_nodeclaims_disrupted_total", Map.of(
            "reason", "", "nodepool", "", "capacity_type", "", "consolidation_policy", "", "termination_mode", "")))
        .contains(1.0);
  }

  @Test
  void deletingANodePoolDropsOnlyItsGaugeSeries() {
    metrics.nodePoolUsage("a", "cpu", 1);
    metrics.nodePoolUsage("a", "memory", 2);
    metrics.nodePoolLimit("a", "nodes", 3);
    metrics.nodePoolUsage("b", "cpu", 4);
    metrics.nodeClaimCreated("a", "provisioning", false);

    metrics.nodePoolDeleted("a");
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.samples("karpenter_nodepools_usage"))
        .extracting(s -> s.labels().get("nodepool"))
        .containsExactly("b");
    assertThat(scraped.samples("karpenter_nodepools_limit")).isEmpty();
    assertThat(scraped.samples("karpenter_nodeclaims_created_total")).hasSize(1);
  }

  @Test
  void negativeDurationsCountAsZero() {
    metrics.schedulingDuration("provisioner", Duration.ofSeconds(-1));
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.value("karpenter_scheduler_scheduling_duration_seconds_sum", Map.of("controller", "provisioner")))
        .contains(0.0);
  }

  @Test
  void noopRecordsNothingAndAcceptsAnything() {
    Metrics noop = Metrics.noop();
    assertThatCode(() -> {
          noop.nodeClaimCreated(null, null, true);
          noop.nodeClaimTerminated(null, null);
          noop.nodeClaimDisrupted(new DisruptionLabels(null, null, null, null, null));
          noop.nodeCreated(null);
          noop.nodeTerminated(null);
          noop.conditionTransition(null, null, null, null, null);
          noop.schedulingDuration(null, null);
          noop.podSchedulingDecision(null);
          noop.schedulerQueueDepth(null, 1);
          noop.unschedulablePods(null, 1);
          noop.ignoredPods(1);
          noop.nodePoolUsage(null, null, 1);
          noop.nodePoolLimit(null, null, 1);
          noop.nodePoolDeleted(null);
          noop.clusterState(true, 1);
          noop.cloudProviderCall(null, null, null, Duration.ZERO);
          noop.cloudProviderError(null, null, null, null, null);
          noop.controllerRuntime().reconciled(null, null, new RuntimeException());
          noop.controllerRuntime().queueDepth(null, 1);
        })
        .doesNotThrowAnyException();
    assertThat(noop.scrape()).isEmpty();
  }

  @Test
  void twoInstancesDoNotShareState() {
    Metrics other = new Metrics(new CollectorRegistry());
    other.nodeCreated("x");

    assertThat(metrics.scrape()).doesNotContain("nodepool=\"x\"");
  }
}
