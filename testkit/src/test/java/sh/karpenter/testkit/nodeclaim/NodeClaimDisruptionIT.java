package sh.karpenter.testkit.nodeclaim;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.nodeclaim.disruption.Drift;
import sh.karpenter.controller.nodeclaim.disruption.NodeClaimDisruption;
import sh.karpenter.controller.nodeclaim.podevents.PodEvents;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * {@code nodeclaim.disruption} and {@code nodeclaim.podevents} against a real API server: NodeClaims
 * launched and initialized on KWOK by the real lifecycle, NodePools edited as a user would, the
 * reconcilers driven with a testing clock.
 */
@ControlPlaneTest
class NodeClaimDisruptionIT {

  private KubernetesClient client;
  private KwokNodeClaims kwok;
  private NodeClaimDisruption disruption;
  private PodEvents podEvents;
  private final Set<String> podEventsEnqueued = ConcurrentHashMap.newKeySet();

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    kwok = new KwokNodeClaims(client);
    podEvents = new PodEvents(client, kwok.informers, kwok.cloudProvider, kwok.clock);
    kwok.informers.pods().addEventHandler(podEvents.handler(podEventsEnqueued::add));
    kwok.start();
    disruption = new NodeClaimDisruption(client, kwok.informers, kwok.cloudProvider, kwok.clock, kwok.metrics);
  }

  @AfterEach
  void stop() {
    kwok.close();
  }

  private NodePool pool(String consolidateAfter) {
    return kwok.createPool("""
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: default}
        spec:
          disruption: {consolidateAfter: %s}
          template:
            metadata: {labels: {team: a}}
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              requirements: [{key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}]
        """.formatted(consolidateAfter));
  }

  @Test
  void aTemplateLabelChangeMarksTheNodeClaimNodePoolDriftedAndRevertingItClearsIt() {
    NodePool pool = pool("Never");
    kwok.createNodeClaim(pool, "default-static");
    kwok.launch("default-static");

    Result result = disruption.reconcile("default-static");
    assertThat(drifted(kwok.get("default-static"))).isEmpty();
    assertThat(result).isEqualTo(Result.requeueAfter(Drift.RECHECK));

    editPool(p -> p.getSpec().getTemplate().getMetadata().setLabels(Map.of("team", "b")));
    disruption.reconcile("default-static");

    Condition condition = drifted(kwok.get("default-static")).orElseThrow();
    assertThat(condition.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(condition.getReason()).isEqualTo(Drift.NODE_POOL_DRIFTED);

    editPool(p -> p.getSpec().getTemplate().getMetadata().setLabels(Map.of("team", "a")));
    disruption.reconcile("default-static");
    assertThat(drifted(kwok.get("default-static"))).isEmpty();
  }

  @Test
  void aRequirementChangeMarksTheNodeClaimRequirementsDrifted() {
    NodePool pool = pool("Never");
    kwok.createNodeClaim(pool, "default-requirements");
    kwok.launch("default-requirements");

    editPool(p -> p.getSpec().getTemplate().getSpec().getRequirements().get(0).setValues(List.of("spot")));
    disruption.reconcile("default-requirements");

    Condition condition = drifted(kwok.get("default-requirements")).orElseThrow();
    assertThat(condition.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(condition.getReason()).isEqualTo(Drift.REQUIREMENTS_DRIFTED);
  }

  @Test
  void anUnlaunchedNodeClaimIsNotJudged() {
    NodePool pool = pool("Never");
    kwok.createNodeClaim(pool, "default-unlaunched");
    kwok.awaitCached("default-unlaunched", cached -> true);
    editPool(p -> p.getSpec().getTemplate().getMetadata().setLabels(Map.of("team", "b")));

    assertThat(disruption.reconcile("default-unlaunched")).isEqualTo(Result.done());
    NodeClaim stored = kwok.get("default-unlaunched");
    assertThat(stored.getStatus() == null ? null : stored.getStatus().getConditions()).isNullOrEmpty();
  }

  @Test
  void consolidatableFlipsAfterConsolidateAfterAndAPodEventRestartsTheWindow() throws Exception {
    NodePool pool = pool("3m");
    kwok.createNodeClaim(pool, "default-idle");
    NodeClaim initialized = kwok.initialize("default-idle");

    Result waiting = disruption.reconcile("default-idle");
    assertThat(consolidatable(kwok.get("default-idle"))).isFalse();
    assertThat(waiting.requeueAfter()).isBetween(Duration.ofMinutes(2), Duration.ofMinutes(3));

    kwok.clock.step(Duration.ofMinutes(3));
    assertThat(disruption.reconcile("default-idle")).isEqualTo(Result.requeueAfter(Drift.RECHECK));
    assertThat(consolidatable(kwok.get("default-idle"))).isTrue();

    // A pod bound to the node long ago (by the clock) replays its creation or scheduling time: nothing changes.
    String node = initialized.getStatus().getNodeName();
    Pod pod = TestObjects.pausePod("idle-breaker", "idle");
    pod.getSpec().setNodeName(node);
    client.pods().resource(pod).create();
    awaitPodEvent("default-idle");
    kwok.clock.step(Duration.ofMinutes(5));
    String bound = kwok.get("default-idle").getStatus().getLastPodEventTime();
    assertThat(bound).isNotNull();
    assertThat(Instant.parse(bound)).isIn(podTimes(client.pods().withName("idle-breaker").get()));
    kwok.awaitCached("default-idle", cached -> bound.equals(cached.getStatus().getLastPodEventTime()));
    disruption.reconcile("default-idle");
    assertThat(consolidatable(kwok.get("default-idle"))).isTrue();

    // Removing it is an event now: the NodeClaim waits consolidateAfter again.
    podEventsEnqueued.clear();
    client.pods().withName("idle-breaker").delete();
    awaitPodEvent("default-idle");
    String removed = kwok.get("default-idle").getStatus().getLastPodEventTime();
    assertThat(removed).isEqualTo(kwok.clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
    kwok.awaitCached("default-idle", cached -> removed.equals(cached.getStatus().getLastPodEventTime()));

    Result restarted = disruption.reconcile("default-idle");
    assertThat(consolidatable(kwok.get("default-idle"))).isFalse();
    assertThat(restarted.requeueAfter()).isBetween(Duration.ofMinutes(2), Duration.ofMinutes(3));
    // The next reconcile judges the cached copy: until the cache has the cleared condition, it still
    // reads Consolidatable True and, seeing nothing to change, writes nothing (the controller's next
    // reconcile, on the informer's update event, would). CI hit that once under load.
    kwok.awaitCached("default-idle", cached -> !consolidatable(cached));

    kwok.clock.step(Duration.ofMinutes(3));
    disruption.reconcile("default-idle");
    assertThat(consolidatable(kwok.get("default-idle"))).isTrue();
  }

  /** Waits until the pod handler enqueued the NodeClaim, then reconciles it as the controller would. */
  private void awaitPodEvent(String nodeClaim) throws Exception {
    await().atMost(30, SECONDS).until(() -> podEventsEnqueued.contains(nodeClaim));
    podEvents.reconcile(nodeClaim);
  }

  /** The times a pod event of a pod seen already bound replays: its creation and its PodScheduled transition. */
  private static List<Instant> podTimes(Pod pod) {
    List<Instant> times = new ArrayList<>(List.of(Instant.parse(pod.getMetadata().getCreationTimestamp())));
    pod.getStatus().getConditions().stream()
        .filter(c -> c.getType().equals("PodScheduled") && c.getLastTransitionTime() != null)
        .forEach(c -> times.add(Instant.parse(c.getLastTransitionTime())));
    return times;
  }

  private void editPool(Consumer<NodePool> change) {
    NodePool edited = client.resources(NodePool.class).withName("default").edit(p -> {
      change.accept(p);
      return p;
    });
    String version = edited.getMetadata().getResourceVersion();
    kwok.awaitCachedPool("default", cached -> version.equals(cached.getMetadata().getResourceVersion()));
  }

  private static Optional<Condition> drifted(NodeClaim claim) {
    return Conditions.get(claim.getStatus().getConditions(), ConditionTypes.DRIFTED);
  }

  private static boolean consolidatable(NodeClaim claim) {
    return Conditions.isTrue(claim.getStatus().getConditions(), ConditionTypes.CONSOLIDATABLE);
  }
}
