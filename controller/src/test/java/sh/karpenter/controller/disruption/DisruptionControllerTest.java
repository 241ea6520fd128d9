package sh.karpenter.controller.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.controller.disruption.TestViews.claim;
import static sh.karpenter.controller.disruption.TestViews.node;

import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.snapshot.NodePoolConverter;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.controller.state.DisruptionView;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.disruption.Blocked;
import sh.karpenter.core.disruption.Candidate;
import sh.karpenter.core.disruption.Command;
import sh.karpenter.core.disruption.Decision;
import sh.karpenter.core.disruption.DisruptionInput;
import sh.karpenter.core.disruption.Method;
import sh.karpenter.core.disruption.Reason;
import sh.karpenter.core.disruption.ScoredMove;
import sh.karpenter.core.disruption.StateNode;
import sh.karpenter.core.disruption.Undisrupted;
import sh.karpenter.core.disruption.WhyNot;
import sh.karpenter.core.disruption.Validation;

/** The disruption loop around core's decision: sync gate, validation delay, queueing, reporting, stale marks. */
class DisruptionControllerTest {

  private final TestingClock clock = new TestingClock(Instant.parse("2030-01-02T00:00:00Z"));
  private final KubernetesClient client =
      new KubernetesClientBuilder().withConfig(new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build()).build();
  private final Informers informers = new Informers(client);
  private final ClusterState state = new ClusterState(informers, clock, pool -> List.of(), Options.defaults());
  private final FakeDisruptionActions actions = new FakeDisruptionActions().candidate("node-a", "claim-a");
  private final TestingEventRecorder events = new TestingEventRecorder(clock);
  private final CollectorRegistry registry = new CollectorRegistry();
  private final Metrics metrics = new Metrics(registry);
  private final OrchestrationQueue queue = new OrchestrationQueue(actions, state, events, metrics, clock);
  private final AtomicBoolean synced = new AtomicBoolean(true);
  private DisruptionView view = new TestViews().add(node("node-a", "")).add(claim("claim-a", "node-a", "", "")).build();

  /** Answers with the decisions and validations a test sets, and remembers the inputs it saw. */
  private final class FakeDecider implements DisruptionController.Decider {
    final List<DisruptionInput> decided = new ArrayList<>();
    final List<DisruptionInput> validated = new ArrayList<>();
    Decision decision = decision(null, List.of(), List.of(), List.of());
    Validation validation = Validation.VALID;

    @Override
    public Decision decide(DisruptionInput input) {
      decided.add(input);
      return decision;
    }

    @Override
    public Validation validate(Command command, DisruptionInput fresh) {
      validated.add(fresh);
      return validation;
    }
  }

  private final FakeDecider decider = new FakeDecider();
  private int viewsRead;
  private final DisruptionController controller = loop(Options.defaults());

  /** A loop over {@link #view} (counting its reads) and {@link #decider}. */
  private DisruptionController loop(Options options) {
    return new DisruptionController(synced::get, () -> {
      viewsRead++;
      return view;
    }, decider, queue, actions, events, metrics, clock, options, List.of(), NodePoolCosts.none());
  }

  @AfterEach
  void close() {
    informers.close();
    client.close();
  }

  private static Decision decision(Method method, List<Command> commands, List<Blocked> blocked, List<ScoredMove> scores) {
    return new Decision(method, commands, blocked, Map.of("general", Map.of(Reason.DRIFTED, 2)), Map.of(Reason.DRIFTED, 1), scores);
  }

  private Command command(Method method) {
    StateNode node = DisruptionInputs.of(view, n -> false, Options.defaults().scheduler(), clock.instant(),
        sh.karpenter.core.disruption.DisruptionOptions.defaults(clock)).nodes().getFirst();
    Candidate candidate = new Candidate(node, NodePoolConverter.disruptionPolicy(TestViews.yaml(sh.karpenter.api.v1.NodePool.class, TestViews.POOL)),
        null, null, 1);
    return new Command(method, method.reason(), List.of(candidate), List.of(), 1);
  }

  private double sample(String name, String[] labels, String[] values) {
    Double value = registry.getSampleValue(name, labels, values);
    return value == null ? 0 : value;
  }

  @Test
  void nothingIsDecidedBeforeClusterStateIsSynced() {
    synced.set(false);

    assertThat(controller.reconcile()).isEqualTo(Result.requeueAfter(Duration.ofSeconds(1)));
    assertThat(decider.decided).isEmpty();
  }

  @Test
  void withNothingToDoTheLoopLooksAgainInTenSecondsAndReportsWhatItFound() {
    view = new TestViews().pool(TestViews.yaml(sh.karpenter.api.v1.NodePool.class, TestViews.POOL))
        .add(node("node-a", "")).add(claim("claim-a", "node-a", "", "")).build();
    assertThat(controller.reconcile()).isEqualTo(Result.requeueAfter(Duration.ofSeconds(10)));

    assertThat(decider.decided).singleElement().satisfies(input -> assertThat(input.now()).isEqualTo(clock.instant()));
    assertThat(sample("karpenter_voluntary_disruption_eligible_nodes", new String[] {"reason"}, new String[] {"drifted"})).isEqualTo(1);
    assertThat(sample("karpenter_voluntary_disruption_eligible_nodes", new String[] {"reason"}, new String[] {"empty"})).isZero();
    assertThat(sample("karpenter_nodepools_allowed_disruptions", new String[] {"nodepool", "reason"}, new String[] {"general", "drifted"}))
        .isEqualTo(2);
    // no series for node repair's reason while no method repairs, as upstream without NodeRepair
    assertThat(registry.getSampleValue("karpenter_voluntary_disruption_eligible_nodes", new String[] {"reason"}, new String[] {"unhealthy"}))
        .isNull();
    assertThat(registry.getSampleValue("karpenter_nodepools_allowed_disruptions", new String[] {"nodepool", "reason"},
        new String[] {"general", "unhealthy"})).isNull();
    // set next to the allowed disruptions, from the same input: no node of the pool is disrupting
    assertThat(registry.getSampleValue("karpenter_nodepools_nodes_consuming_budgets", new String[] {"nodepool", "reason"},
        new String[] {"general", "drifted"})).isEqualTo(0.0);
  }

  @Test
  void aConsolidationMethodThatTimedOutIsCounted() {
    decider.decision = new Decision(null, List.of(), List.of(), Map.of(), Map.of(), List.of(), Set.of(Method.MULTI_NODE_CONSOLIDATION));

    controller.reconcile();

    assertThat(sample("karpenter_voluntary_disruption_consolidation_timeouts_total", new String[] {"consolidation_type"}, new String[] {"multi"}))
        .isEqualTo(1);
    assertThat(sample("karpenter_voluntary_disruption_consolidation_timeouts_total", new String[] {"consolidation_type"}, new String[] {"single"}))
        .isZero();
  }

  @Test
  void consolidationWaitsFifteenSecondsThenIsValidatedAgainstFreshStateBeforeItIsQueued() {
    decider.decision = decision(Method.SINGLE_NODE_CONSOLIDATION, List.of(command(Method.SINGLE_NODE_CONSOLIDATION)), List.of(), List.of());

    assertThat(controller.reconcile()).isEqualTo(Result.requeueAfter(Duration.ofSeconds(15)));
    assertThat(queue.size()).isZero();

    // Woken early, the loop only waits on: no cluster state is read, nothing is validated.
    clock.step(Duration.ofSeconds(10));
    assertThat(controller.reconcile()).isEqualTo(Result.requeueAfter(Duration.ofSeconds(5)));
    assertThat(decider.validated).isEmpty();
    assertThat(viewsRead).isEqualTo(1);

    clock.step(Duration.ofSeconds(5));
    assertThat(controller.reconcile()).isEqualTo(Result.requeueAfter(Duration.ZERO));

    assertThat(decider.decided).hasSize(1);
    assertThat(decider.validated).singleElement().satisfies(fresh -> assertThat(fresh.now()).isEqualTo(clock.instant()));
    assertThat(queue.holds("claim-a")).isTrue();
    assertThat(actions.calls).containsExactly("mark node-a claim-a Underutilized");
  }

  @Test
  void aCommandThatFailsValidationIsDroppedAndCounted() {
    decider.decision = decision(Method.EMPTINESS, List.of(command(Method.EMPTINESS)), List.of(), List.of());
    decider.validation = Validation.invalid("a pod was scheduled to the node");
    controller.reconcile();
    clock.step(Duration.ofSeconds(15));

    // nothing left to start: the loop decides again at once
    assertThat(controller.reconcile()).isEqualTo(Result.requeueAfter(Duration.ZERO));

    assertThat(queue.size()).isZero();
    assertThat(actions.calls).isEmpty();
    assertThat(sample("karpenter_voluntary_disruption_failed_validations_total", new String[] {"consolidation_type"}, new String[] {"empty"}))
        .isEqualTo(1);
  }

  @Test
  void driftIsQueuedAtOnceAndItsCandidatesAreMarkedInTheNextInput() {
    decider.decision = decision(Method.DRIFT, List.of(command(Method.DRIFT)), List.of(), List.of());

    assertThat(controller.reconcile()).isEqualTo(Result.requeueAfter(Duration.ZERO));
    assertThat(queue.holds("claim-a")).isTrue();
    assertThat(decider.validated).isEmpty();

    decider.decision = decision(null, List.of(), List.of(), List.of());
    controller.reconcile();
    assertThat(decider.decided.get(1).nodes()).singleElement().satisfies(node -> assertThat(node.markedForDeletion()).isTrue());
  }

  /** The loop of {@link #controller} in shadow mode. */
  private DisruptionController shadowLoop() {
    return loop(Options.defaults().withDisruptionShadowMode(true));
  }

  @Test
  void inShadowModeAValidatedConsolidationIsReportedAndNothingIsActedOn() {
    DisruptionController shadow = shadowLoop();
    decider.decision = decision(Method.SINGLE_NODE_CONSOLIDATION, List.of(command(Method.SINGLE_NODE_CONSOLIDATION)), List.of(), List.of());

    assertThat(shadow.reconcile()).isEqualTo(Result.requeueAfter(Duration.ofSeconds(15)));
    clock.step(Duration.ofSeconds(15));
    // validated as usual, then reported; nothing was queued, so the loop looks again after its poll
    assertThat(shadow.reconcile()).isEqualTo(Result.requeueAfter(Duration.ofSeconds(10)));

    assertThat(decider.validated).hasSize(1);
    assertThat(queue.size()).isZero();
    assertThat(queue.holds("claim-a")).isFalse();
    assertThat(actions.calls).isEmpty();
    assertThat(sample("karpenter_voluntary_disruption_shadow_decisions_total", new String[] {"decision", "reason", "consolidation_type"},
        new String[] {"delete", "underutilized", "single"})).isEqualTo(1);
    assertThat(sample("karpenter_voluntary_disruption_decisions_total", new String[] {"decision", "reason", "consolidation_type"},
        new String[] {"delete", "underutilized", "single"})).isZero();
    assertThat(events.events()).filteredOn(e -> e.reason().equals("DisruptionShadow"))
        .extracting(TestingEventRecorder.RecordedEvent::kind, TestingEventRecorder.RecordedEvent::name, TestingEventRecorder.RecordedEvent::type)
        .containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("Node", "node-a", "Normal"),
            org.assertj.core.groups.Tuple.tuple("NodeClaim", "claim-a", "Normal"));
    assertThat(events.forObject("claim-a")).filteredOn(e -> e.reason().equals("DisruptionShadow"))
        .extracting(TestingEventRecorder.RecordedEvent::message)
        .containsExactly("Shadow mode: would delete via " + Method.SINGLE_NODE_CONSOLIDATION.label()
            + " (reason Underutilized): nodeclaim(s) claim-a; saving 1.0000/h");
  }

  @Test
  void inShadowModeDriftIsReportedEveryPassAndNeverQueued() {
    DisruptionController shadow = shadowLoop();
    decider.decision = decision(Method.DRIFT, List.of(command(Method.DRIFT)), List.of(), List.of());

    assertThat(shadow.reconcile()).isEqualTo(Result.requeueAfter(Duration.ofSeconds(10)));
    clock.step(Duration.ofSeconds(10));
    assertThat(shadow.reconcile()).isEqualTo(Result.requeueAfter(Duration.ofSeconds(10)));

    assertThat(queue.size()).isZero();
    assertThat(actions.calls).isEmpty();
    // the candidate is not held, so the next decision sees it as it is
    assertThat(decider.decided.get(1).nodes()).singleElement().satisfies(node -> assertThat(node.markedForDeletion()).isFalse());
    assertThat(sample("karpenter_voluntary_disruption_shadow_decisions_total", new String[] {"decision", "reason", "consolidation_type"},
        new String[] {"delete", "drifted", ""})).isEqualTo(2);
  }

  @Test
  void shadowModeLeavesNodeRepairActing() {
    DisruptionController shadow = shadowLoop();
    decider.decision = decision(Method.REPAIR, List.of(command(Method.REPAIR)), List.of(), List.of());

    assertThat(shadow.reconcile()).isEqualTo(Result.requeueAfter(Duration.ZERO));

    assertThat(queue.holds("claim-a")).isTrue();
    assertThat(actions.calls).containsExactly("mark node-a claim-a Unhealthy");
    assertThat(events.events()).noneMatch(e -> e.reason().equals("DisruptionShadow"));
    assertThat(registry.getSampleValue("karpenter_voluntary_disruption_shadow_decisions_total", new String[] {"decision", "reason", "consolidation_type"},
        new String[] {"delete", "unhealthy", ""})).isNull();
  }

  @Test
  void blockedNodesAreToldWhyOnTheirNodeAndNodeClaimExceptForDoNotDisrupt() {
    view = new TestViews()
        .add(node("node-a", "")).add(claim("claim-a", "node-a", "", ""))
        .add(node("node-b", "")).add(claim("claim-b", "node-b", "", ""))
        .build();
    decider.decision = decision(null, List.of(), List.of(
        new Blocked("node-a", "claim-a", "DisruptionBlocked", "pdb default/web prevents pod evictions"),
        new Blocked("node-b", "claim-b", "DisruptionBlocked", "node has \"karpenter.sh/do-not-disrupt\" annotation")), List.of());

    controller.reconcile();

    assertThat(events.events()).extracting(TestingEventRecorder.RecordedEvent::kind, TestingEventRecorder.RecordedEvent::name,
        TestingEventRecorder.RecordedEvent::reason).containsExactly(
            org.assertj.core.groups.Tuple.tuple("Node", "node-a", "DisruptionBlocked"),
            org.assertj.core.groups.Tuple.tuple("NodeClaim", "claim-a", "DisruptionBlocked"));
  }

  @Test
  void balancedScoresAreMeasuredAndAnnounced() {
    decider.decision = new Decision(null, List.of(), List.of(), Map.of(), Map.of(),
        List.of(new ScoredMove("general", List.of("claim-a"), 0.3, false)), Set.of(),
        List.of(new sh.karpenter.core.disruption.ConsolidationMove("general", sh.karpenter.core.disruption.ConsolidationPolicy.BALANCED, false)));

    controller.reconcile();

    assertThat(sample("karpenter_consolidation_score_count", new String[] {"decision", "nodepool", "policy"},
        new String[] {"rejected", "general", "Balanced"})).isEqualTo(1);
    assertThat(sample("karpenter_consolidation_moves_total", new String[] {"decision", "nodepool", "policy"},
        new String[] {"rejected", "general", "Balanced"})).isEqualTo(1);
    assertThat(events.forObject("claim-a")).extracting(TestingEventRecorder.RecordedEvent::reason)
        .containsExactly("ConsolidationCandidate", "ConsolidationRejected");
  }

  @Test
  void aStaleDisruptedTaintComesOffUnlessACommandHoldsTheNodeOrItIsGoingAway() {
    view = new TestViews()
        .add(node("held", "")).add(claim("claim-held", "held", "", ""))
        .add(node("stale", "")).add(claim("claim-stale", "stale", "", ""))
        .add(node("deleting", "deletionTimestamp: \"2030-01-01T00:00:00Z\"\nfinalizers: [karpenter.sh/termination]"))
        .add(claim("claim-deleting", "deleting", "", ""))
        .add(node("marked", "")).add(claim("claim-marked", "marked", "", ""))
        .add(node("condition-only", "")).add(claim("claim-condition-only", "condition-only", "", """
            conditions:
              - {type: DisruptionReason, status: "True", reason: Drifted, message: Drifted, lastTransitionTime: "2030-01-01T00:00:00Z"}"""))
        .add(node("clean", "")).add(claim("claim-clean", "clean", "", ""))
        .markedForDeletion("marked")
        .build();
    // Only the Node objects carry the taint; TestViews' node() has no spec taints, so add them here.
    view.nodes().forEach(n -> {
      if (!n.name().equals("clean") && !n.name().equals("condition-only")) {
        n.object().getSpec().setTaints(List.of(new io.fabric8.kubernetes.api.model.TaintBuilder()
            .withKey("karpenter.sh/disrupted").withEffect("NoSchedule").build()));
      }
    });

    assertThat(queue.start(command(Method.DRIFT))).isTrue(); // the first node, "held"

    controller.reconcile();

    assertThat(queue.holds("claim-held")).isTrue();
    assertThat(actions.calls).containsExactly(
        "mark held claim-held Drifted", "unmark stale claim-stale", "unmark condition-only claim-condition-only");
  }

  @Test
  void nodeRepairBlockedIsAWarningOnTheNodeItsNodeClaimAndItsNodePool() {
    view = new TestViews().pool(TestViews.yaml(sh.karpenter.api.v1.NodePool.class, TestViews.POOL))
        .add(node("node-a", "")).add(claim("claim-a", "node-a", "", "")).build();
    decider.decision = decision(null, List.of(), List.of(
        new Blocked("node-a", "claim-a", Blocked.NODE_REPAIR_BLOCKED, "more than 20% of nodes in nodepool \"general\" are unhealthy")), List.of());

    controller.reconcile();

    assertThat(events.events()).extracting(TestingEventRecorder.RecordedEvent::kind, TestingEventRecorder.RecordedEvent::name,
        TestingEventRecorder.RecordedEvent::type, TestingEventRecorder.RecordedEvent::reason).containsExactlyInAnyOrder(
            org.assertj.core.groups.Tuple.tuple("Node", "node-a", "Warning", "NodeRepairBlocked"),
            org.assertj.core.groups.Tuple.tuple("NodeClaim", "claim-a", "Warning", "NodeRepairBlocked"),
            org.assertj.core.groups.Tuple.tuple("NodePool", "general", "Warning", "NodeRepairBlocked"));
  }

  /** A loop with core's own decision, the given gates and repair policies, over {@link #view}. */
  private DisruptionController realLoop(boolean nodeRepair, List<sh.karpenter.core.cloudprovider.RepairPolicy> policies) {
    Map<String, Boolean> gates = new java.util.HashMap<>(Options.defaults().featureGates());
    gates.put("NodeRepair", nodeRepair);
    Options options = Options.defaults().withFeatureGates(gates, Options.defaults().cpuRequests());
    return new DisruptionController(synced::get, () -> view, new DisruptionController.Decider() {
      @Override
      public Decision decide(DisruptionInput input) {
        return sh.karpenter.core.disruption.Disruption.decide(input);
      }

      @Override
      public Validation validate(Command command, DisruptionInput fresh) {
        return sh.karpenter.core.disruption.Disruption.validate(command, fresh);
      }
    }, queue, actions, events, metrics, clock, options, policies, NodePoolCosts.none());
  }

  private void unhealthyNodeA() {
    view = new TestViews().pool(TestViews.yaml(sh.karpenter.api.v1.NodePool.class, TestViews.POOL))
        .add(node("node-a", "")).add(claim("claim-a", "node-a", "", """
            conditions:
              - {type: Initialized, status: "True", reason: Initialized, lastTransitionTime: "2030-01-01T00:00:00Z"}""")).build();
    view.nodes().getFirst().object().getMetadata().setCreationTimestamp("2030-01-01T00:00:00Z");
    view.nodes().getFirst().object().getStatus().setConditions(List.of(new io.fabric8.kubernetes.api.model.NodeConditionBuilder()
        .withType("Ready").withStatus("Unknown").withReason("NodeStatusUnknown").withLastTransitionTime("2030-01-01T23:00:00Z").build()));
  }

  @Test
  void withTheNodeRepairGateAnUnhealthyNodeIsRepairedAtOnce() {
    unhealthyNodeA();
    DisruptionController loop = realLoop(true, List.of(new sh.karpenter.core.cloudprovider.RepairPolicy("Ready", "Unknown", Duration.ofMinutes(10))));

    assertThat(loop.reconcile()).isEqualTo(Result.requeueAfter(Duration.ZERO));

    assertThat(queue.holds("claim-a")).isTrue();
    assertThat(actions.calls).contains("mark node-a claim-a Unhealthy");
    assertThat(sample("karpenter_voluntary_disruption_eligible_nodes", new String[] {"reason"}, new String[] {"unhealthy"})).isEqualTo(1);
    assertThat(registry.getSampleValue("karpenter_nodepools_allowed_disruptions", new String[] {"nodepool", "reason"},
        new String[] {"general", "unhealthy"})).isNotNull();
  }

  @Test
  void withoutTheGateOrWithoutPoliciesNodeRepairDoesNotRun() {
    unhealthyNodeA();
    List<sh.karpenter.core.cloudprovider.RepairPolicy> policies =
        List.of(new sh.karpenter.core.cloudprovider.RepairPolicy("Ready", "Unknown", Duration.ofMinutes(10)));

    realLoop(false, policies).reconcile();
    realLoop(true, List.of()).reconcile();

    assertThat(queue.holds("claim-a")).isFalse();
    assertThat(registry.getSampleValue("karpenter_voluntary_disruption_eligible_nodes", new String[] {"reason"}, new String[] {"unhealthy"}))
        .isNull();
  }

  private static Decision explaining(Method method, List<Command> commands, Undisrupted... undisrupted) {
    return new Decision(method, commands, List.of(), Map.of(), Map.of(), List.of(), Set.of(), List.of(), List.of(undisrupted));
  }

  /** docs/behaviour/disruption.md#why-not: written once, again only when the reason or message changes, removed when disrupted. */
  @Test
  void theWhyNotConditionIsWrittenOnlyWhenItChangesAndRemovedWhenTheNodeIsDisrupted() {
    Undisrupted pdb = new Undisrupted("node-a", "claim-a", "general", WhyNot.PDB, "pdb default/web prevents pod evictions of pod default/web-1");
    decider.decision = explaining(null, List.of(), pdb);

    for (int pass = 0; pass < 5; pass++) {
      controller.reconcile();
      clock.step(Duration.ofSeconds(10));
    }
    assertThat(actions.whyNotWrites).containsExactly("claim-a PodDisruptionBudget: pdb default/web prevents pod evictions of pod default/web-1");

    decider.decision = explaining(null, List.of(), new Undisrupted("node-a", "claim-a", "general", WhyNot.PDB, "pdb default/api prevents pod evictions of pod default/api-1"));
    controller.reconcile();
    clock.step(Duration.ofSeconds(10));
    decider.decision = explaining(null, List.of(), new Undisrupted("node-a", "claim-a", "general", WhyNot.BUDGET, "budget for nodepool general reason Underutilized allows 0 disruptions"));
    controller.reconcile();
    controller.reconcile();
    clock.step(Duration.ofSeconds(10));
    assertThat(actions.whyNotWrites).hasSize(3).endsWith(
        "claim-a PodDisruptionBudget: pdb default/api prevents pod evictions of pod default/api-1",
        "claim-a DisruptionBudget: budget for nodepool general reason Underutilized allows 0 disruptions");

    decider.decision = explaining(Method.DRIFT, List.of(command(Method.DRIFT)));
    controller.reconcile();
    assertThat(actions.whyNotWrites).hasSize(4).last().isEqualTo("claim-a removed");
  }

  @Test
  void anUninitializedNodeClaimIsNotWritten() {
    decider.decision = explaining(null, List.of(), new Undisrupted("node-a", "claim-a", "general", WhyNot.NOT_INITIALIZED, "nodeclaim claim-a is not initialized"));

    controller.reconcile();

    assertThat(actions.whyNotWrites).isEmpty();
  }

  @Test
  void aNewLeaderDoesNotRewriteAConditionTheNodeClaimAlreadyCarries() {
    view = new TestViews().add(node("node-a", "")).add(claim("claim-a", "node-a", "", """
        conditions:
          - {type: WhyNotDisrupted, status: "True", reason: DoNotDisrupt, message: "node has the annotation", lastTransitionTime: "2030-01-01T00:00:00Z"}""")).build();
    decider.decision = explaining(null, List.of(), new Undisrupted("node-a", "claim-a", "general", WhyNot.DO_NOT_DISRUPT, "node has the annotation"));

    controller.reconcile();

    assertThat(actions.whyNotWrites).isEmpty();
  }

  @Test
  void inShadowModeADecidedNodeSaysWhatWouldHaveBeenDone() {
    DisruptionController shadow = shadowLoop();
    decider.decision = explaining(Method.SINGLE_NODE_CONSOLIDATION, List.of(command(Method.SINGLE_NODE_CONSOLIDATION)));

    shadow.reconcile();
    clock.step(Duration.ofSeconds(15));
    shadow.reconcile();
    clock.step(Duration.ofSeconds(10));
    shadow.reconcile();

    assertThat(actions.whyNotWrites).containsExactly(
        "claim-a ShadowMode: shadow mode: would delete via single-node-consolidation (reason Underutilized)");
  }
}
