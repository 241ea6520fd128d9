package sh.karpenter.testkit.lifecycle;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.node.termination.EvictionQueue;
import sh.karpenter.controller.node.termination.NodeTermination;
import sh.karpenter.controller.nodeclaim.lifecycle.NodeClaimLifecycle;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.ReconcileObserver;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * The NodeClaim lifecycle against a real API server, with KWOK turning Nodes Ready: the reconcilers
 * are called directly, with a testing clock for the liveness timeouts.
 */
@ControlPlaneTest
class NodeClaimLifecycleIT {

  private KubernetesClient client;
  private Informers informers;
  private TestingClock clock;
  private TestingCloudProvider cloudProvider;
  private TestingEventRecorder events;
  private Metrics metrics;
  private ClusterState state;
  private NodeClaimLifecycle lifecycle;
  private NodeTermination nodeTermination;

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    informers = SyncedInformers.start(new Informers(client));
    clock = new TestingClock(Instant.now());
    cloudProvider = new TestingCloudProvider(FakeInstanceTypes.instanceTypes(4));
    events = new TestingEventRecorder(clock);
    metrics = new Metrics(new CollectorRegistry());
    state = new ClusterState(informers, clock, ClusterState.instanceTypesOf(cloudProvider), Options.defaults());
    lifecycle = new NodeClaimLifecycle(client, informers, cloudProvider, clock, events, metrics, state::podsNominatedTo);
    nodeTermination = new NodeTermination(client, informers, cloudProvider,
        new EvictionQueue(client, informers, clock, events, metrics, ReconcileObserver.NOOP), clock, events, metrics);
  }

  @AfterEach
  void stop() {
    informers.close();
  }

  @Test
  void launchAddsTheFinalizerAndCopiesTheInstanceOntoTheNodeClaim() {
    createNodeClaim("default-launch");

    Result result = lifecycle.reconcile("default-launch");

    NodeClaim nodeClaim = get("default-launch");
    assertThat(nodeClaim.getMetadata().getFinalizers()).containsExactly("karpenter.sh/termination");
    assertThat(condition(nodeClaim, ConditionTypes.LAUNCHED)).isEqualTo(Conditions.TRUE);
    assertThat(condition(nodeClaim, ConditionTypes.REGISTERED)).isEqualTo(Conditions.UNKNOWN);
    assertThat(condition(nodeClaim, ConditionTypes.READY)).isEqualTo(Conditions.UNKNOWN);
    assertThat(nodeClaim.getStatus().getProviderID()).startsWith(TestingCloudProvider.PROVIDER_ID_PREFIX);
    assertThat(nodeClaim.getStatus().getCapacity()).containsKeys("cpu", "memory", "pods");
    assertThat(nodeClaim.getStatus().getAllocatable()).containsKeys("cpu", "memory", "pods");
    assertThat(nodeClaim.getMetadata().getLabels())
        .containsEntry("team", "a")
        .containsEntry("node.kubernetes.io/instance-type", "fake-it-1")
        .containsEntry("karpenter.sh/capacity-type", "on-demand")
        .containsKey("topology.kubernetes.io/zone");
    assertThat(cloudProvider.createCalls()).singleElement().satisfies(request -> {
      assertThat(request.nodeClaimName()).isEqualTo("default-launch");
      assertThat(request.nodePoolName()).isEqualTo("default");
      assertThat(request.requests().cpuMilli()).isEqualTo(1000);
    });
    // Waiting for the Node: look again soon.
    assertThat(result.requeueAfter()).isPositive().isLessThanOrEqualTo(Duration.ofSeconds(5));

    lifecycle.reconcile("default-launch");
    assertThat(cloudProvider.createCalls()).hasSize(1);
  }

  @Test
  void aNodeWithTheProviderIdRegistersAndInitializes() {
    createNodeClaim("default-register");
    lifecycle.reconcile("default-register");
    String providerId = get("default-register").getStatus().getProviderID();

    client.nodes().resource(new NodeBuilder(TestObjects.kwokNode("node-register", "2", "4Gi", providerId, List.of(TestObjects.unregisteredTaint())))
            .editMetadata().addToLabels("team", "node").endMetadata()
            .build())
        .create();
    await().atMost(30, SECONDS).until(() -> !NodeClaims.nodesFor(informers, providerId).isEmpty());

    lifecycle.reconcile("default-register");

    NodeClaim nodeClaim = get("default-register");
    assertThat(condition(nodeClaim, ConditionTypes.REGISTERED)).isEqualTo(Conditions.TRUE);
    assertThat(nodeClaim.getStatus().getNodeName()).isEqualTo("node-register");
    Node node = client.nodes().withName("node-register").get();
    assertThat(node.getMetadata().getLabels())
        .containsEntry("team", "a")
        .containsEntry("karpenter.sh/nodepool", "default")
        .containsEntry("karpenter.sh/registered", "true")
        .containsEntry("node.kubernetes.io/instance-type", "fake-it-1");
    assertThat(node.getMetadata().getFinalizers()).contains("karpenter.sh/termination");
    assertThat(node.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
      assertThat(owner.getKind()).isEqualTo("NodeClaim");
      assertThat(owner.getName()).isEqualTo("default-register");
      assertThat(owner.getUid()).isEqualTo(nodeClaim.getMetadata().getUid());
    });
    assertThat(node.getSpec().getTaints()).extracting(Taint::getKey)
        .contains("example.com/dedicated", "example.com/agent-not-ready")
        .doesNotContain("karpenter.sh/unregistered");
    assertThat(events.events()).noneMatch(e -> e.reason().equals("UnregisteredTaintMissing"));

    // KWOK turns the Node Ready; the startup taint goes when "the agent" removes it.
    removeTaint("node-register", "example.com/agent-not-ready");
    await().atMost(2, MINUTES).pollInterval(1, SECONDS).until(() -> {
      lifecycle.reconcile("default-register");
      return Conditions.TRUE.equals(condition(get("default-register"), ConditionTypes.INITIALIZED));
    });
    assertThat(condition(get("default-register"), ConditionTypes.READY)).isEqualTo(Conditions.TRUE);
    assertThat(client.nodes().withName("node-register").get().getMetadata().getLabels())
        .containsEntry("karpenter.sh/initialized", "true");
    assertThat(metrics.scrape()).containsPattern("karpenter_nodes_created_total\\{[^}]*nodepool=\"default\"[^}]*} 1.0");
  }

  @Test
  void insufficientCapacityDeletesTheNodeClaimAndTellsItsWaitingPods() {
    createNodeClaim("default-ice");
    cloudProvider.nextCreateError(new InsufficientCapacityException("no capacity for fake-it-1"));
    // Pods the provisioner nominated to the NodeClaim: one still waiting, one bound meanwhile; and one
    // nominated elsewhere. A node selector nothing matches keeps kube-scheduler from binding them.
    createPod(waiting("ice-waiting"));
    createPod(new PodBuilder(waiting("ice-bound")).editSpec().withNodeName("elsewhere").endSpec().build());
    createPod(waiting("ice-other"));
    await().atMost(30, SECONDS).until(() -> List.of("ice-waiting", "ice-bound", "ice-other").stream()
        .allMatch(name -> informers.pods().getStore().getByKey("default/" + name) != null));
    state.nominate("default/ice-waiting", "default-ice");
    state.nominate("default/ice-bound", "default-ice");
    state.nominate("default/ice-other", "default-other");

    lifecycle.reconcile("default-ice");

    assertThat(get("default-ice").getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(events.events()).anySatisfy(e -> {
      assertThat(e.name()).isEqualTo("default-ice");
      assertThat(e.type()).isEqualTo(EventRecorder.WARNING);
      assertThat(e.reason()).isEqualTo("InsufficientCapacityError");
      assertThat(e.message()).contains("no capacity for fake-it-1");
    });
    assertThat(events.forObject("ice-waiting")).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo("Pod");
      assertThat(e.namespace()).isEqualTo("default");
      assertThat(e.type()).isEqualTo(EventRecorder.WARNING);
      assertThat(e.reason()).isEqualTo("InsufficientCapacityError");
      assertThat(e.message()).isEqualTo("NodeClaim default-ice nominated for this pod failed to launch: no capacity for fake-it-1");
    });
    assertThat(events.forObject("ice-bound")).isEmpty();
    assertThat(events.forObject("ice-other")).isEmpty();
    assertThat(metrics.scrape()).containsPattern("karpenter_nodeclaims_disrupted_total\\{[^}]*reason=\"insufficient_capacity\"[^}]*} 1.0");

    // Finalization: nothing was launched, so the finalizer just goes.
    await().atMost(30, SECONDS).pollInterval(200, MILLISECONDS).until(() -> {
      lifecycle.reconcile("default-ice");
      return client.resources(NodeClaim.class).withName("default-ice").get() == null;
    });
    assertThat(cloudProvider.deleteCalls()).isEmpty();
    for (String pod : List.of("ice-waiting", "ice-bound", "ice-other")) {
      client.pods().inNamespace("default").withName(pod).withGracePeriod(0).delete();
    }
  }

  /** A pending pod kube-scheduler cannot place (its node selector matches no node). */
  private static Pod waiting(String name) {
    return new PodBuilder(TestObjects.pausePod(name, "ice")).editSpec().addToNodeSelector("example.com/never", "true").endSpec().build();
  }

  private void createPod(Pod pod) {
    client.pods().inNamespace("default").resource(pod).create();
  }

  @Test
  void aNodeClaimWhoseNodeNeverRegistersIsDeletedAfterFifteenMinutes() {
    createNodeClaim("default-timeout");
    Result launched = lifecycle.reconcile("default-timeout");
    String providerId = get("default-timeout").getStatus().getProviderID();
    assertThat(launched.requeue()).isTrue();

    clock.step(Duration.ofMinutes(14));
    Result waiting = lifecycle.reconcile("default-timeout");
    assertThat(get("default-timeout").getMetadata().getDeletionTimestamp()).isNull();
    assertThat(waiting.requeueAfter()).isLessThanOrEqualTo(Duration.ofMinutes(1));

    clock.step(Duration.ofMinutes(1));
    reconcileUntil("default-timeout", nodeClaim -> nodeClaim.getMetadata().getDeletionTimestamp() != null);
    assertThat(metrics.scrape()).containsPattern("karpenter_nodeclaims_disrupted_total\\{[^}]*reason=\"registration_timeout\"[^}]*} 1.0");

    // Finalization terminates the instance, then drops the finalizer.
    reconcileUntil("default-timeout", Objects::isNull);
    assertThat(cloudProvider.deleteCalls()).contains(providerId);
    assertThat(cloudProvider.get(providerId)).isEmpty();
  }

  @Test
  void deletingARegisteredNodeClaimDeletesItsNodeAndInstance() {
    createNodeClaim("default-finalize");
    lifecycle.reconcile("default-finalize");
    String providerId = get("default-finalize").getStatus().getProviderID();
    client.nodes().resource(TestObjects.kwokNode("node-finalize", "2", "4Gi", providerId, List.of(TestObjects.unregisteredTaint())))
        .create();
    await().atMost(30, SECONDS).until(() -> !NodeClaims.nodesFor(informers, providerId).isEmpty());
    reconcileUntil("default-finalize", nodeClaim -> Conditions.isTrue(nodeClaim.getStatus().getConditions(), ConditionTypes.REGISTERED));

    client.resources(NodeClaim.class).withName("default-finalize").delete();
    reconcileUntil("default-finalize", nodeClaim -> nodeClaim.getMetadata().getDeletionTimestamp() != null);
    // The Node is asked to go; its own finalizer holds it until node.termination lets go.
    await().atMost(30, SECONDS).until(() -> client.nodes().withName("node-finalize").get().getMetadata().getDeletionTimestamp() != null);
    assertThat(get("default-finalize")).isNotNull();

    await().atMost(1, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      nodeTermination.reconcile("node-finalize");
      clock.step(Duration.ofSeconds(1)); // past the minimum drain time
      return client.nodes().withName("node-finalize").get() == null;
    });
    reconcileUntil("default-finalize", Objects::isNull);
    assertThat(cloudProvider.deleteCalls()).contains(providerId);
    assertThat(cloudProvider.list()).isEmpty();
    assertThat(metrics.scrape()).containsPattern("karpenter_nodes_terminated_total\\{[^}]*nodepool=\"default\"[^}]*} 1.0");
  }

  @Test
  void statusWritesAndDeletesAreLockedToTheResourceVersionRead() {
    createNodeClaim("default-locked");
    NodeClaim stale = get("default-locked");
    lifecycle.reconcile("default-locked");

    stale.setStatus(new NodeClaimStatus());
    assertThatThrownBy(() -> client.resources(NodeClaim.class).resource(stale).updateStatus())
        .satisfies(e -> assertThat(OptimisticWrites.isConflict(e)).isTrue());
    assertThatThrownBy(() -> OptimisticWrites.deleteAt(
            client.resources(NodeClaim.class).withName("default-locked"), stale.getMetadata().getResourceVersion()))
        .satisfies(e -> assertThat(OptimisticWrites.isConflict(e)).isTrue());
    assertThat(get("default-locked").getMetadata().getDeletionTimestamp()).isNull();
  }

  /** Removes a taint as a daemon would, retrying while other controllers update the Node. */
  private void removeTaint(String node, String key) {
    await().atMost(30, SECONDS).ignoreExceptionsMatching(OptimisticWrites::isConflict).until(() -> {
      Node current = client.nodes().withName(node).get();
      List<Taint> taints = new ArrayList<>(current.getSpec().getTaints());
      taints.removeIf(t -> t.getKey().equals(key));
      OptimisticWrites.mergePatch(client.nodes().withName(node), client.getKubernetesSerialization(),
          current.getMetadata().getResourceVersion(), Map.of("spec", Map.of("taints", taints)));
      return true;
    });
  }

  /** Reconciles (as the controller would on events and requeues) until the stored NodeClaim satisfies {@code done}. */
  private void reconcileUntil(String name, Predicate<NodeClaim> done) {
    await().atMost(1, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      lifecycle.reconcile(name);
      return done.test(client.resources(NodeClaim.class).withName(name).get());
    });
  }

  private void createNodeClaim(String name) {
    client.resources(NodeClaim.class).resource(client.getKubernetesSerialization().unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata:
          name: %s
          labels: {karpenter.sh/nodepool: default, team: a}
        spec:
          nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, name: default}
          requirements:
          - {key: node.kubernetes.io/instance-type, operator: In, values: [fake-it-1]}
          - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
          resources:
            requests: {cpu: '1', memory: 1Gi}
          taints: [{key: example.com/dedicated, value: test, effect: NoSchedule}]
          startupTaints: [{key: example.com/agent-not-ready, effect: NoSchedule}]
        """.formatted(name), NodeClaim.class)).create();
  }

  private NodeClaim get(String name) {
    return client.resources(NodeClaim.class).withName(name).get();
  }

  private static String condition(NodeClaim nodeClaim, String type) {
    return Conditions.get(nodeClaim.getStatus().getConditions(), type).map(c -> c.getStatus()).orElse(null);
  }
}
