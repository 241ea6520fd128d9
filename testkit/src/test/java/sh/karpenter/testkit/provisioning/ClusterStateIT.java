package sh.karpenter.testkit.provisioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.provisioning.Batcher;
import sh.karpenter.controller.provisioning.Provisioner;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.controller.state.PodRef;
import sh.karpenter.controller.state.StateSnapshot;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/** Cluster state read from the informers of a real control plane. */
@ControlPlaneTest
class ClusterStateIT {
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final List<InstanceType> TYPES = FakeInstanceTypes.instanceTypes(10);
  private static final NodePoolYaml POOL = NodePoolYaml.named("general").requirementIn("kubernetes.io/arch", "amd64");

  private final TestingClock clock = new TestingClock();
  private final Options options = Options.defaults();
  private Informers informers;
  private ClusterState state;
  private KubernetesClient client;

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    informers = new Informers(client);
    state = new ClusterState(informers, clock, ClusterState.instanceTypesOf(new TestingCloudProvider(TYPES)), options);
    SyncedInformers.start(informers);
  }

  @AfterEach
  void stop() {
    informers.close();
  }

  private NodeClaim createClaim(String name) {
    return TestObjects.createNodeClaim(client, name, "general",
        TestObjects.requirementIn("node.kubernetes.io/instance-type", "fake-it-1", "fake-it-3"));
  }

  private Node createNode(String name, String providerId) {
    return client.nodes().resource(TestObjects.yaml(client, Node.class, """
        apiVersion: v1
        kind: Node
        metadata:
          name: %s
          labels: {karpenter.sh/nodepool: general, karpenter.sh/initialized: "true", kubernetes.io/hostname: %s}
        spec:
          providerID: %s
          taints: [{key: karpenter.sh/disrupted, effect: NoSchedule}]
        """.formatted(name, name, providerId))).create();
  }

  private Pod createBoundPod(String name, String node, Map<String, String> annotations) {
    return client.pods().resource(new PodBuilder(TestObjects.pausePod(name, name))
            .editMetadata().withAnnotations(annotations).endMetadata()
            .editSpec().withNodeName(node).endSpec()
            .build())
        .create();
  }

  private List<String> pendingPodNames(StateSnapshot snapshot) {
    return snapshot.cluster().pendingPods().stream().map(sh.karpenter.core.pod.Pod::name).sorted().toList();
  }

  @Test
  void anInFlightNodeClaimIsAnUninitializedNodeAndCountsTowardsUsage() {
    POOL.createReady(client);
    createClaim("general-abc");
    await().atMost(WAIT).until(() -> informers.nodeClaims().getStore().list().size() == 1 && informers.nodePools().getStore().list().stream().allMatch(p -> ClusterState.notReady(p).isEmpty())
        && informers.nodePools().getStore().list().size() == 1);

    StateSnapshot snapshot = state.provisioningSnapshot();

    assertThat(snapshot.cluster().nodes()).singleElement().satisfies(node -> {
      assertThat(node.name()).isEqualTo("general-abc");
      assertThat(node.initialized()).isFalse();
      assertThat(node.allocatable()).isEqualTo(TYPES.get(1).allocatable());
      assertThat(node.labels()).containsEntry("kubernetes.io/hostname", "general-abc");
    });
    assertThat(snapshot.inFlight()).containsExactly("general-abc");
    assertThat(snapshot.describe("general-abc")).isEqualTo("nodeclaim/general-abc");
    // fake-it-3, the largest option, has 4 CPUs
    assertThat(state.nodePoolUsage("general").milli("cpu")).isEqualTo(4_000);
    assertThat(state.nodePoolUsage("general").milli("nodes")).isEqualTo(1_000);
    assertThat(snapshot.cluster().templates().get(0).usage().milli("cpu")).isEqualTo(4_000);
  }

  @Test
  void aCreatedNodeClaimStaysCountedWhileTheInformerLagsAndIsDroppedOnceItReadPastTheCreation() {
    POOL.createReady(client);
    await().atMost(WAIT).until(() -> informers.nodePools().getStore().list().size() == 1
        && informers.nodePools().getStore().list().stream().allMatch(p -> ClusterState.notReady(p).isEmpty()));
    // The NodeClaim informer falls behind (here: it stops) just before this process creates a NodeClaim.
    informers.nodeClaims().stop();
    NodeClaim lagging = createClaim("general-lagging");
    state.nodeClaimCreated(lagging);
    assertThat(state.provisioningSnapshot().inFlight()).containsExactly("general-lagging");

    // A minute later the informer still has not delivered it: it is still counted, so the next pass
    // does not launch the same capacity again.
    clock.step(Duration.ofMinutes(1));
    assertThat(state.provisioningSnapshot().inFlight()).containsExactly("general-lagging");

    // A NodeClaim whose creation the informer has read past without keeping it was deleted since.
    NodeClaim deleted = client.getKubernetesSerialization().clone(lagging);
    deleted.getMetadata().setName("general-deleted");
    deleted.getMetadata().setResourceVersion("1");
    state.nodeClaimCreated(deleted);
    assertThat(state.provisioningSnapshot().inFlight()).containsExactly("general-lagging");

    // An informer stalled for five minutes is not waited for any longer.
    clock.step(Duration.ofMinutes(4));
    assertThat(state.provisioningSnapshot().inFlight()).isEmpty();
  }

  @Test
  void podsOfANodeMarkedForDeletionAreRescheduledUnlessTheyMustStay() {
    createNode("leaving", "fake://leaving");
    createBoundPod("movable", "leaving", Map.of());
    createBoundPod("pinned", "leaving", Map.of("karpenter.sh/do-not-disrupt", "true"));
    createBoundPod("guarded", "leaving", Map.of());
    client.policy().v1().podDisruptionBudget().resource(new PodDisruptionBudgetBuilder()
            .withNewMetadata().withName("guarded").endMetadata()
            .withNewSpec().withMaxUnavailable(new IntOrString(0)).withNewSelector().addToMatchLabels("app", "guarded").endSelector().endSpec()
            .build())
        .create();
    await().atMost(WAIT).until(() -> informers.pods().getStore().list().stream()
            .filter(p -> "leaving".equals(p.getSpec().getNodeName())).count() == 3
        && informers.podDisruptionBudgets().getStore().list().size() == 1);

    StateSnapshot before = state.provisioningSnapshot();
    assertThat(before.cluster().nodes()).extracting(ExistingNode::name).containsExactly("leaving");
    assertThat(before.cluster().pendingPods()).isEmpty();

    state.markForDeletion(List.of("fake://leaving"));
    StateSnapshot marked = state.provisioningSnapshot();

    assertThat(marked.cluster().nodes()).isEmpty();
    assertThat(pendingPodNames(marked)).containsExactly("movable");
    assertThat(marked.pod(client.getNamespace() + "/movable")).isPresent();

    state.unmarkForDeletion(List.of("fake://leaving"));
    assertThat(state.provisioningSnapshot().cluster().pendingPods()).isEmpty();
  }

  @Test
  void withPrebindingTheProvisionerRecordsWhichPodsToBindToEachNodeClaim() {
    Options prebind = options.withPrebind(true);
    Provisioner provisioner = new Provisioner(client, state, new Batcher(clock, prebind), new TestingEventRecorder(clock), Metrics.noop(), clock, prebind);
    POOL.createReady(client);
    Pod pod = client.pods().resource(TestObjects.pausePod("web", "web")).create();
    await().atMost(WAIT).until(() -> informers.nodePools().getStore().list().stream().allMatch(p -> ClusterState.notReady(p).isEmpty())
        && informers.nodePools().getStore().list().size() == 1
        && informers.pods().getStore().list().stream().anyMatch(Pods::failedToSchedule));

    Provisioner.Pass pass = provisioner.provision();

    assertThat(pass.created()).hasSize(1);
    String claim = pass.created().get(0).getMetadata().getName();
    assertThat(state.prebindings()).containsOnlyKeys(claim);
    assertThat(state.takePrebindings(claim))
        .containsExactly(new PodRef(client.getNamespace(), "web", pod.getMetadata().getUid()));
    assertThat(state.prebindings()).isEmpty();
  }

  @Test
  void withDefaultSpreadTheSelectorOfAPodsReplicaSetIsRead() throws Exception {
    var defaults = sh.karpenter.controller.snapshot.SchedulerConfig.parse("""
        podTopologySpread:
          defaultConstraints:
            - {maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}
        """, "scheduler.yaml").defaultConstraints();
    try (Informers spreadInformers = new Informers(client)) {
      ClusterState spreadState = new ClusterState(spreadInformers, clock, ClusterState.instanceTypesOf(new TestingCloudProvider(TYPES)),
          options.withScheduler(options.scheduler(), defaults));
      SyncedInformers.start(spreadInformers);
      client.apps().replicaSets().resource(TestObjects.yaml(client, io.fabric8.kubernetes.api.model.apps.ReplicaSet.class, """
          apiVersion: apps/v1
          kind: ReplicaSet
          metadata: {name: spread}
          spec:
            replicas: 2
            selector: {matchLabels: {app: spread}}
            template:
              metadata: {labels: {app: spread}}
              spec: {containers: [{name: c, image: %s}]}
          """.formatted(TestObjects.PAUSE_IMAGE))).create();
      // kube-controller-manager creates the pods, kube-scheduler finds no node for them
      await().atMost(WAIT).until(() -> spreadInformers.pods().getStore().list().stream()
          .filter(p -> p.getMetadata().getName().startsWith("spread-") && Pods.failedToSchedule(p)).count() == 2
          && !spreadInformers.spreadControllers().isEmpty());

      var pending = spreadState.provisioningSnapshot().cluster().pendingPods().stream()
          .filter(p -> p.name().startsWith("spread-")).toList();

      assertThat(pending).hasSize(2).allSatisfy(pod -> assertThat(pod.topologySpreadConstraints()).singleElement().satisfies(c -> {
        assertThat(c.topologyKey()).isEqualTo("topology.kubernetes.io/zone");
        assertThat(c.selector().expressions()).extracting(e -> e.key() + " " + e.operator() + " " + e.values())
            .containsExactly("app In [spread]");
      }));
    } finally {
      // the pods would outlive the test's namespace for a while and be pending in the next test
      client.apps().replicaSets().withName("spread").withGracePeriod(0).delete();
      client.pods().withLabel("app", "spread").withGracePeriod(0).delete();
      await().atMost(WAIT).until(() -> client.pods().inAnyNamespace().withLabel("app", "spread").list().getItems().isEmpty());
    }
  }
}
