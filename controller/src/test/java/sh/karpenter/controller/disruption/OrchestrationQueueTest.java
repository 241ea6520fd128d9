package sh.karpenter.controller.disruption;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimSpec;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.disruption.Candidate;
import sh.karpenter.core.disruption.Command;
import sh.karpenter.core.disruption.ConsolidationPolicy;
import sh.karpenter.core.disruption.Method;
import sh.karpenter.core.disruption.PoolPolicy;
import sh.karpenter.core.disruption.Reason;
import sh.karpenter.core.disruption.StateNode;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/** The orchestration queue's state machine: mark, launch, mark for deletion, wait, delete; or roll back. */
class OrchestrationQueueTest {
  private static final PoolPolicy POLICY = new PoolPolicy("general", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of());

  private final TestingClock clock = new TestingClock(Instant.parse("2030-01-01T00:00:00Z"));
  // Cluster state over informers that are never started: the queue only uses its deletion marks.
  private final KubernetesClient client =
      new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build()).build();
  private final Informers informers = new Informers(client);
  private final ClusterState state = new ClusterState(informers, clock, pool -> List.of(), Options.defaults());
  private final FakeDisruptionActions actions = new FakeDisruptionActions().candidate("node-a", "claim-a").candidate("node-b", "claim-b");
  private final TestingEventRecorder events = new TestingEventRecorder(clock);
  private final CollectorRegistry registry = new CollectorRegistry();
  private final OrchestrationQueue queue = new OrchestrationQueue(actions, state, events, new Metrics(registry), clock);

  @AfterEach
  void close() {
    informers.close();
    client.close();
  }

  private static Candidate candidate(String node, String claim, PlannedNodeClaim replacement) {
    ExistingNode existing = new ExistingNode(node, Map.of("karpenter.sh/nodepool", "general"), List.of(), Resources.EMPTY,
        replacement == null ? List.of() : replacement.pods(), true, "general");
    StateNode stateNode = new StateNode(existing, claim, Instant.EPOCH, null, Instant.EPOCH, null, true, null, true, false, false, false, false, false, false,
        replacement == null ? List.of() : replacement.pods(), List.of(), null);
    return new Candidate(stateNode, POLICY, null, null, 1);
  }

  private static Command replace() {
    PlannedNodeClaim replacement = TestViews.plannedReplacement();
    return new Command(Method.SINGLE_NODE_CONSOLIDATION, Reason.UNDERUTILIZED, List.of(candidate("node-a", "claim-a", replacement)),
        List.of(replacement), 0.5);
  }

  private static Command delete() {
    return new Command(Method.EMPTINESS, Reason.EMPTY,
        List.of(candidate("node-a", "claim-a", null), candidate("node-b", "claim-b", null)), List.of(), 1);
  }

  /** A sample's value (0 when absent); {@code labels} are name, value pairs in the family's label order. */
  private double sample(String name, String... labels) {
    String[] names = new String[labels.length / 2];
    String[] values = new String[labels.length / 2];
    for (int i = 0; i < names.length; i++) {
      names[i] = labels[2 * i];
      values[i] = labels[2 * i + 1];
    }
    Double value = registry.getSampleValue(name, names, values);
    return value == null ? 0 : value;
  }

  @Test
  void aReplaceLaunchesFirstAndDeletesTheCandidateOnlyOnceTheReplacementIsInitialized() {
    assertThat(queue.start(replace())).isTrue();

    assertThat(actions.calls).containsExactly("mark node-a claim-a Underutilized", "create replacement-1");
    assertThat(state.isMarkedForDeletion("fake://node-a")).isTrue();
    assertThat(queue.holds("claim-a")).isTrue();
    assertThat(sample("karpenter_nodeclaims_created_total",
        "reason", "underutilized", "nodepool", "general", "min_values_relaxed", "false")).isEqualTo(1);
    assertThat(sample("karpenter_voluntary_disruption_decisions_total",
        "decision", "replace", "reason", "underutilized", "consolidation_type", "single")).isEqualTo(1);

    clock.step(Duration.ofMinutes(5));
    queue.reconcile();
    assertThat(actions.calls).doesNotContain("delete claim-a");
    assertThat(events.forObject("replacement-1")).extracting(TestingEventRecorder.RecordedEvent::reason)
        .containsExactly("DisruptionLaunching", "DisruptionWaitingReadiness");

    actions.initialize("replacement-1");
    queue.reconcile();

    assertThat(actions.calls).containsExactly("mark node-a claim-a Underutilized", "create replacement-1", "delete claim-a");
    assertThat(queue.holds("claim-a")).isFalse();
    assertThat(queue.size()).isZero();
    assertThat(state.isMarkedForDeletion("fake://node-a")).isTrue(); // until the Node is gone
    assertThat(sample("karpenter_nodeclaims_disrupted_total", "reason", "underutilized", "nodepool", "general", "capacity_type", "spot",
        "consolidation_policy", "when_empty_or_underutilized", "termination_mode", "graceful")).isEqualTo(1);
    assertThat(sample("karpenter_pods_disruption_initiated_total", "reason", "underutilized", "nodepool", "general", "capacity_type", "spot",
        "consolidation_policy", "when_empty_or_underutilized", "termination_mode", "graceful")).isEqualTo(1);
    assertThat(events.forObject("node-a")).extracting(TestingEventRecorder.RecordedEvent::message).containsExactly("Disrupting Node: Underutilized");
    assertThat(events.forObject("claim-a")).extracting(TestingEventRecorder.RecordedEvent::message)
        .containsExactly("Disrupting NodeClaim: Underutilized");
  }

  @Test
  void aRepairCountsTheUnhealthyNodeClaimUnderItsConditionOnceItIsDeleted() {
    actions.nodeClaims.get("claim-a").getStatus().setImageID("ami-123");
    Command repair = new Command(Method.REPAIR, Reason.UNHEALTHY, List.of(candidate("node-a", "claim-a", null)), List.of(), 0,
        "AcceleratedHardwareReady");

    assertThat(queue.start(repair)).isTrue();
    assertThat(sample("karpenter_nodeclaims_unhealthy_disrupted_total", "condition", "accelerated_hardware_ready", "nodepool", "general",
        "capacity_type", "spot", "image_id", "ami-123", "termination_mode", "graceful")).isZero();
    queue.reconcile();

    assertThat(actions.calls).containsExactly("mark node-a claim-a Unhealthy", "delete claim-a");
    assertThat(sample("karpenter_nodeclaims_unhealthy_disrupted_total", "condition", "accelerated_hardware_ready", "nodepool", "general",
        "capacity_type", "spot", "image_id", "ami-123", "termination_mode", "graceful")).isEqualTo(1);
    assertThat(sample("karpenter_nodeclaims_disrupted_total", "reason", "unhealthy", "nodepool", "general", "capacity_type", "spot",
        "consolidation_policy", "", "termination_mode", "graceful")).isEqualTo(1);
  }

  @Test
  void aDeleteDeletesEveryCandidateAtOnce() {
    assertThat(queue.start(delete())).isTrue();
    assertThat(state.isMarkedForDeletion("fake://node-a")).isTrue();
    assertThat(state.isMarkedForDeletion("fake://node-b")).isTrue();

    queue.reconcile();

    assertThat(actions.calls).containsExactly(
        "mark node-a claim-a Empty", "mark node-b claim-b Empty", "delete claim-a", "delete claim-b");
    assertThat(queue.size()).isZero();
    assertThat(sample("karpenter_voluntary_disruption_decisions_total",
        "decision", "delete", "reason", "empty", "consolidation_type", "empty")).isEqualTo(1);
    // once per NodePool of the command's candidates, both of pool general
    assertThat(sample("karpenter_voluntary_disruption_decisions_by_nodepool_total",
        "nodepool", "general", "decision", "delete", "reason", "empty", "consolidation_type", "empty")).isEqualTo(1);
  }

  @Test
  void disruptionMetricsNameTheConsolidationPolicyOnlyForConsolidationAndTheTerminationModeFromTheGracePeriod() {
    NodeClaim eventual = actions.nodeClaims.get("claim-a");
    eventual.setSpec(new NodeClaimSpec());
    eventual.getSpec().setTerminationGracePeriod(GoDuration.parse("1h"));
    NodeClaim forceful = actions.nodeClaims.get("claim-b");
    forceful.setSpec(new NodeClaimSpec());
    forceful.getSpec().setTerminationGracePeriod(GoDuration.parse("0s"));
    Candidate a = candidate("node-a", "claim-a", null);
    Candidate b = candidate("node-b", "claim-b", null);
    Command drift = new Command(Method.DRIFT, Reason.DRIFTED, List.of(a, b), List.of(), 0);
    Command empty = new Command(Method.EMPTINESS, Reason.EMPTY, List.of(a), List.of(), 0);

    assertThat(OrchestrationQueue.disruptionLabels(drift, a, Optional.of(eventual)))
        .isEqualTo(new DisruptionLabels("drifted", "general", "spot", "", "eventual"));
    assertThat(OrchestrationQueue.disruptionLabels(drift, b, Optional.of(forceful)))
        .isEqualTo(new DisruptionLabels("drifted", "general", "spot", "", "forceful"));
    assertThat(OrchestrationQueue.disruptionLabels(empty, a, Optional.empty()))
        .isEqualTo(new DisruptionLabels("empty", "general", "", "when_empty_or_underutilized", "graceful"));

    assertThat(queue.start(drift)).isTrue();
    queue.reconcile();
    assertThat(sample("karpenter_nodeclaims_disrupted_total", "reason", "drifted", "nodepool", "general", "capacity_type", "spot",
        "consolidation_policy", "", "termination_mode", "eventual")).isEqualTo(1);
    assertThat(sample("karpenter_nodeclaims_disrupted_total", "reason", "drifted", "nodepool", "general", "capacity_type", "spot",
        "consolidation_policy", "", "termination_mode", "forceful")).isEqualTo(1);
  }

  @Test
  void aDeletedReplacementFailsTheCommandAndRollsItBack() {
    queue.start(replace());
    actions.nodeClaims.remove("replacement-1");

    queue.reconcile();

    assertThat(actions.calls).containsExactly("mark node-a claim-a Underutilized", "create replacement-1", "unmark node-a claim-a");
    assertThat(queue.holds("claim-a")).isFalse();
    assertThat(state.isMarkedForDeletion("fake://node-a")).isFalse();
    assertThat(sample("karpenter_voluntary_disruption_queue_failures_total",
        "decision", "replace", "reason", "underutilized", "consolidation_type", "single")).isEqualTo(1);
  }

  @Test
  void aCommandStillWaitingAfterItsTimeoutFails() {
    queue.start(replace());

    clock.step(Duration.ofMinutes(10));
    queue.reconcile();
    assertThat(queue.holds("claim-a")).isTrue();

    clock.step(Duration.ofSeconds(1));
    queue.reconcile();

    assertThat(queue.holds("claim-a")).isFalse();
    assertThat(actions.calls).endsWith("unmark node-a claim-a").doesNotContain("delete claim-a");
    assertThat(state.isMarkedForDeletion("fake://node-a")).isFalse();
  }

  @Test
  void aReplacementThatCannotBeCreatedUndoesTheMarks() {
    actions.failCreates = true;

    assertThat(queue.start(replace())).isFalse();

    assertThat(actions.calls).containsExactly("mark node-a claim-a Underutilized", "unmark node-a claim-a");
    assertThat(queue.size()).isZero();
    assertThat(state.isMarkedForDeletion("fake://node-a")).isFalse();
  }

  @Test
  void aCandidateOfAQueuedCommandIsNotStartedAgain() {
    queue.start(replace());

    assertThat(queue.start(delete())).isFalse();

    assertThat(queue.size()).isOne();
    assertThat(actions.calls).containsExactly("mark node-a claim-a Underutilized", "create replacement-1");
  }

  @Test
  void aFailedDeletionIsRetriedOnTheNextLook() {
    queue.start(delete());
    actions.failDeletes = true;
    queue.reconcile();
    assertThat(queue.size()).isOne();

    actions.failDeletes = false;
    queue.reconcile();

    assertThat(queue.size()).isZero();
    assertThat(actions.calls).contains("delete claim-a", "delete claim-b");
  }

  @Test
  void theCommandTimeoutIsEightyMillisecondsPerCommandBetweenTenMinutesAndAnHour() {
    assertThat(OrchestrationQueue.timeout(1)).isEqualTo(Duration.ofMinutes(10));
    assertThat(OrchestrationQueue.timeout(10_000)).isEqualTo(Duration.ofSeconds(800));
    assertThat(OrchestrationQueue.timeout(100_000)).isEqualTo(Duration.ofHours(1));
  }
}
