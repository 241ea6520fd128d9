package sh.karpenter.testkit.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.disruption.DisruptionInputs;
import sh.karpenter.controller.disruption.KubernetesDisruptionActions;
import sh.karpenter.controller.disruption.OrchestrationQueue;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.nodeclaim.lifecycle.NodeClaimLifecycle;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.Controller;
import sh.karpenter.controller.runtime.EventHandlers;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.ReconcileObserver;
import sh.karpenter.controller.runtime.SingletonLoop;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.snapshot.SnapshotBuilder;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.disruption.Candidate;
import sh.karpenter.core.disruption.Command;
import sh.karpenter.core.disruption.DisruptionInput;
import sh.karpenter.core.disruption.DisruptionOptions;
import sh.karpenter.core.disruption.Method;
import sh.karpenter.core.disruption.Reason;
import sh.karpenter.core.disruption.StateNode;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * The orchestration queue on the real control plane, with the NodeClaim lifecycle and KWOK launching
 * and initializing nodes: a hand-built replace command taints and marks its candidate, launches the
 * replacement, and deletes the candidate only once the replacement is Initialized; a replacement that
 * goes away rolls the candidate's taint and condition back.
 */
@ControlPlaneTest
class OrchestrationQueueIT {
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final InstanceTypeCatalog CATALOG = InstanceTypeCatalog.fake(4);

  private KubernetesClient client;
  private Informers informers;
  private KwokCloudProvider provider;
  private ClusterState state;
  private TestingEventRecorder events;
  private Controller<String> lifecycle;
  private OrchestrationQueue queue;
  private SingletonLoop queueLoop;
  private final Clock clock = Clock.systemUTC();

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    informers = new Informers(client);
    provider = new KwokCloudProvider(client, CATALOG, clock);
    events = new TestingEventRecorder(clock);
    Metrics metrics = new Metrics(new CollectorRegistry());
    state = new ClusterState(informers, clock, ClusterState.instanceTypesOf(provider), Options.defaults());
    lifecycle = new Controller<>(NodeClaimLifecycle.NAME, new NodeClaimLifecycle(client, informers, provider, clock, events, metrics, state::podsNominatedTo), 4,
        clock, ReconcileObserver.NOOP);
    informers.nodeClaims().addEventHandler(EventHandlers.onChange((NodeClaim claim) -> lifecycle.enqueue(claim.getMetadata().getName())));
    informers.nodes().addEventHandler(EventHandlers.onChange((Node node) -> NodeClaims.forProviderId(informers,
        node.getSpec() == null ? null : node.getSpec().getProviderID()).forEach(c -> lifecycle.enqueue(c.getMetadata().getName()))));
    SyncedInformers.start(informers);
    lifecycle.start();
    queue = new OrchestrationQueue(new KubernetesDisruptionActions(client, informers, metrics, clock), state, events, metrics, clock);
    queueLoop = new SingletonLoop(OrchestrationQueue.NAME, queue::reconcile);

    TestObjects.createNodeClass(client);
    NodePoolYaml.named("default").expireAfter("Never").createReady(client);
  }

  @AfterEach
  void stop() {
    queueLoop.close();
    lifecycle.close();
    provider.close();
    informers.close();
  }

  private NodeClaim fresh(String name) {
    return client.resources(NodeClaim.class).withName(name).get();
  }

  private static boolean initialized(NodeClaim claim) {
    return claim != null && Conditions.isTrue(claim.getStatus() == null ? null : claim.getStatus().getConditions(), ConditionTypes.INITIALIZED);
  }

  /** A NodeClaim of pool {@code default}, launched by the lifecycle and initialized once KWOK has its Node Ready. */
  private NodeClaim initializedCandidate(String name) {
    TestObjects.createNodeClaim(client, name, "default", TestObjects.requirementIn("node.kubernetes.io/instance-type", "fake-it-1"));
    await().atMost(WAIT).until(() -> initialized(informers.nodeClaims().getStore().getByKey(name)));
    return informers.nodeClaims().getStore().getByKey(name);
  }

  /** A replace command for {@code candidate}: one new NodeClaim of pool {@code default}, as the scheduler plans it for a 1-CPU pod. */
  private Command replaceCommand(NodeClaim candidate) {
    DisruptionInput input =
        DisruptionInputs.of(state.disruptionView(), n -> false, SchedulerOptions.DEFAULT, clock.instant(), DisruptionOptions.defaults(clock));
    StateNode node = input.nodes().stream().filter(n -> candidate.getMetadata().getName().equals(n.nodeClaimName())).findFirst().orElseThrow();
    NodePool pool = client.resources(NodePool.class).withName("default").get();
    SnapshotBuilder builder = new SnapshotBuilder(p -> CATALOG.instanceTypes());
    builder.add(pool, "NodePool default");
    Pod pod = TestObjects.pausePod("moved", "app", "1", "1Gi");
    pod.getMetadata().setNamespace(client.getNamespace());
    builder.add(pod, "Pod moved");
    PlannedNodeClaim replacement = new Scheduler(builder.build().schedulingInput(SchedulerOptions.DEFAULT)).solve().newNodeClaims().getFirst();
    Candidate target = new Candidate(node, input.pools().get("default"), null, null, 1);
    return new Command(Method.SINGLE_NODE_CONSOLIDATION, Reason.UNDERUTILIZED, List.of(target), List.of(replacement), 0.1);
  }

  private Node nodeOf(NodeClaim claim) {
    return client.nodes().withName(claim.getStatus().getNodeName()).get();
  }

  private static boolean disruptedTaint(Node node) {
    return node.getSpec().getTaints() != null && node.getSpec().getTaints().stream().anyMatch(t -> TaintKeys.DISRUPTED.equals(t.getKey()));
  }

  @Test
  void theCandidateIsDeletedOnlyOnceItsReplacementIsInitialized() {
    NodeClaim candidate = initializedCandidate("candidate");
    String providerId = candidate.getStatus().getProviderID();
    AtomicReference<Boolean> replacementInitializedAtDeletion = new AtomicReference<>();
    AtomicReference<String> replacementName = new AtomicReference<>();
    informers.nodeClaims().addEventHandler(EventHandlers.onChange((NodeClaim claim) -> {
      if (claim.getMetadata().getName().equals("candidate") && Metadata.deleting(claim) && replacementInitializedAtDeletion.get() == null) {
        replacementInitializedAtDeletion.set(initialized(fresh(replacementName.get())));
      }
    }));

    assertThat(queue.start(replaceCommand(candidate))).isTrue();

    // Marked: tainted, DisruptionReason set, marked for deletion; the replacement exists.
    assertThat(disruptedTaint(nodeOf(candidate))).isTrue();
    assertThat(Conditions.get(fresh("candidate").getStatus().getConditions(), ConditionTypes.DISRUPTION_REASON))
        .hasValueSatisfying(c -> assertThat(c.getReason()).isEqualTo("Underutilized"));
    assertThat(state.isMarkedForDeletion(providerId)).isTrue();
    List<NodeClaim> replacements = client.resources(NodeClaim.class).list().getItems().stream()
        .filter(c -> !c.getMetadata().getName().equals("candidate")).toList();
    assertThat(replacements).singleElement().satisfies(r -> assertThat(r.getMetadata().getLabels()).containsEntry("karpenter.sh/nodepool", "default"));
    replacementName.set(replacements.getFirst().getMetadata().getName());
    assertThat(Metadata.deleting(fresh("candidate"))).isFalse();

    queueLoop.start();
    await().atMost(WAIT).until(() -> queue.size() == 0);
    // The informer may report the candidate's deletion a moment after the queue finished.
    await().atMost(WAIT).until(() -> replacementInitializedAtDeletion.get() != null);

    assertThat(replacementInitializedAtDeletion.get()).isTrue();
    NodeClaim deleted = fresh("candidate");
    assertThat(deleted == null || Metadata.deleting(deleted)).isTrue();
    assertThat(initialized(fresh(replacementName.get()))).isTrue();
    assertThat(events.forObject(replacementName.get())).extracting(TestingEventRecorder.RecordedEvent::reason).contains("DisruptionLaunching");
    assertThat(events.forObject("candidate")).extracting(TestingEventRecorder.RecordedEvent::reason).contains("DisruptionTerminating");
  }

  @Test
  void aReplacementThatGoesAwayRollsTheCandidateBack() {
    NodeClaim candidate = initializedCandidate("candidate");
    String providerId = candidate.getStatus().getProviderID();
    provider.failures().skipNodeCreation(true); // the replacement launches but never gets a Node

    assertThat(queue.start(replaceCommand(candidate))).isTrue();
    assertThat(disruptedTaint(nodeOf(candidate))).isTrue();
    queueLoop.start();
    NodeClaim replacement = client.resources(NodeClaim.class).list().getItems().stream()
        .filter(c -> !c.getMetadata().getName().equals("candidate")).findFirst().orElseThrow();
    client.resources(NodeClaim.class).withName(replacement.getMetadata().getName()).delete();

    await().atMost(WAIT).until(() -> queue.size() == 0);

    assertThat(disruptedTaint(nodeOf(candidate))).isFalse();
    NodeClaim kept = fresh("candidate");
    assertThat(Metadata.deleting(kept)).isFalse();
    assertThat(Conditions.get(kept.getStatus().getConditions(), ConditionTypes.DISRUPTION_REASON)).isEmpty();
    assertThat(state.isMarkedForDeletion(providerId)).isFalse();
  }
}
