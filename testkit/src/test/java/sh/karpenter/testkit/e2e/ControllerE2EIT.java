package sh.karpenter.testkit.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraintBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.snapshot.SnapshotBuilder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.InProcessOperators;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * The controller end to end on the real control plane: kube-scheduler marks pods unschedulable, the
 * operator (in-process, KWOK provider, bundled AWS catalogue) provisions NodeClaims, KWOK turns the
 * nodes Ready, registration and initialization complete, and kube-scheduler binds the pods.
 */
@ControlPlaneTest
class ControllerE2EIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(3);

  private final InProcessOperators operators = new InProcessOperators();

  @AfterEach
  void stop() throws Exception {
    operators.close();
  }

  /** A NodePool limited to one capacity type, Linux, never expiring. */
  private static NodePoolYaml nodePool(String name, String capacityType) {
    return NodePoolYaml.named(name).expireAfter("Never")
        .requirementIn(Labels.CAPACITY_TYPE, capacityType)
        .requirementIn(Labels.OS, "linux");
  }

  /** A NodePool the CRD accepts but runtime validation rejects: the same taint key and effect twice. */
  private static NodePool invalidNodePool(KubernetesClient client, String name) {
    return NodePoolYaml.named(name)
        .taint("example.com/dup", null, "NoSchedule")
        .startupTaint("example.com/dup", "again", "NoSchedule")
        .build(client);
  }

  @Test
  void fiftyPodsWithMixedConstraintsAllRunOnTheNodesThePlanPredicts(KubernetesClient client) {
    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    List<NodePool> pools = List.of(
        nodePool("default", "on-demand").build(client),
        nodePool("batch", "spot").taint("dedicated", "batch", "NoSchedule").build(client));
    NodePool invalid = invalidNodePool(client, "broken");
    TestObjects.createNodeClass(client);
    pools.forEach(pool -> client.resources(NodePool.class).resource(pool).create());
    client.resources(NodePool.class).resource(invalid).create();

    List<Pod> pods = mixedPods(client.getNamespace());
    assertThat(pods).hasSize(50);
    // All 50 pending before the controller starts, so they are one batch, as `karpenter plan` sees
    // them: created while it runs, on a loaded machine they can straddle two batch windows, and two
    // solves may pack them onto more nodes than one solve does. Pending means kube-scheduler has
    // marked them unschedulable (the provisioner takes no other pod), so that is awaited too.
    pods.forEach(pod -> client.pods().resource(pod).create());
    await().atMost(TIMEOUT).untilAsserted(() ->
        assertThat(client.pods().list().getItems()).hasSize(50).allMatch(Pods::failedToSchedule));
    // Pre-binding puts each pod on the NodeClaim the plan chose. Left to kube-scheduler, the pods can
    // land differently: for example two web pods on the node the plan kept for a db pod. The db pods'
    // hostname anti-affinity then leaves one without room, so a second pass adds nodes the plan never
    // had, and consolidation removes them again, evicting these bare pods.
    operators.start(client, operators.provider(client, catalog), InProcessOperators.options().withPrebind(true));

    await().atMost(TIMEOUT).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(client.pods().list().getItems()).hasSize(50).allMatch(TestObjects::running));

    // The invalid NodePool is reported and the valid ones kept serving.
    NodePool broken = client.resources(NodePool.class).withName("broken").get();
    assertThat(Conditions.get(broken.getStatus().getConditions(), ConditionTypes.VALIDATION_SUCCEEDED))
        .hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo("False"));

    // The nodes are the ones `karpenter plan` computes for the same snapshot.
    SnapshotBuilder snapshot = new SnapshotBuilder(pool -> catalog.instanceTypes());
    pools.forEach(pool -> snapshot.add(pool, "NodePool " + pool.getMetadata().getName()));
    pods.forEach(pod -> snapshot.add(pod, "Pod " + pod.getMetadata().getName()));
    SchedulingResult plan = new Scheduler(snapshot.build().schedulingInput(SchedulerOptions.DEFAULT)).solve();
    assertThat(plan.unschedulable()).isEmpty();

    List<Node> nodes = client.nodes().list().getItems();
    assertThat(client.resources(NodeClaim.class).list().getItems()).hasSameSizeAs(nodes);
    assertThat(countByPool(nodes.stream().map(n -> n.getMetadata().getLabels().get(Labels.NODE_POOL)).toList()))
        .isEqualTo(countByPool(plan.newNodeClaims().stream().map(PlannedNodeClaim::nodePoolName).toList()));
    double planned = plan.newNodeClaims().stream().mapToDouble(PlannedNodeClaim::price).sum();
    double launched = nodes.stream().mapToDouble(n -> TestObjects.price(catalog, n)).sum();
    assertThat(launched).isCloseTo(planned, org.assertj.core.data.Offset.offset(1e-6));
  }

  @Test
  void insufficientCapacityOnTheCheapestOfferingFallsBackToTheNext(KubernetesClient client) {
    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    TestObjects.createNodeClass(client);
    nodePool("default", "on-demand").create(client);
    KwokCloudProvider provider = operators.provider(client, catalog);
    operators.start(client, provider, InProcessOperators.options());
    client.pods().resource(TestObjects.pausePod("first", "app", "1", "1Gi")).create();
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(TestObjects.running(client.pods().withName("first").get())).isTrue());
    Node first = client.nodes().withName(client.pods().withName("first").get().getSpec().getNodeName()).get();
    String cheapestType = first.getMetadata().getLabels().get(Labels.INSTANCE_TYPE);
    String zone = first.getMetadata().getLabels().get(Labels.ZONE);

    provider.failures().blockOffering(cheapestType, zone, "on-demand");
    Pod second = TestObjects.awayFrom("app", TestObjects.pausePod("second", "other", "1", "1Gi"));
    second.getSpec().setNodeSelector(Map.of(Labels.ZONE, zone));
    client.pods().resource(second).create();

    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(TestObjects.running(client.pods().withName("second").get())).isTrue());
    Node node = client.nodes().withName(client.pods().withName("second").get().getSpec().getNodeName()).get();
    assertThat(node.getMetadata().getName()).isNotEqualTo(first.getMetadata().getName());
    assertThat(node.getMetadata().getLabels()).containsEntry(Labels.ZONE, zone);
    assertThat(node.getMetadata().getLabels().get(Labels.INSTANCE_TYPE)).isNotEqualTo(cheapestType);
  }

  @Test
  void aLaunchWithoutCapacityTellsTheNominatedPodWhyAndItRunsOnceCapacityReturns(KubernetesClient client) {
    TestObjects.createNodeClass(client);
    nodePool("default", "on-demand").create(client);
    KwokCloudProvider provider = operators.provider(client, InstanceTypeCatalog.aws());
    provider.failures().blockCapacityType("on-demand");
    TestingEventRecorder events = new TestingEventRecorder();
    operators.start(client, provider, InProcessOperators.options(), events);

    client.pods().resource(TestObjects.pausePod("starved", "app", "1", "1Gi")).create();

    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(events.forObject("starved"))
        .anySatisfy(e -> {
          assertThat(e.kind()).isEqualTo("Pod");
          assertThat(e.type()).isEqualTo(EventRecorder.WARNING);
          assertThat(e.reason()).isEqualTo("InsufficientCapacityError");
          assertThat(e.message()).matches("NodeClaim default-\\w+ nominated for this pod failed to launch: .+");
        }));
    assertThat(TestObjects.running(client.pods().withName("starved").get())).isFalse();

    provider.failures().unblockAll();
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(TestObjects.running(client.pods().withName("starved").get())).isTrue());
  }

  @Test
  void onlyTheLeaderProvisionsAndTheOtherTakesOverWithNothingLaunchedTwice(KubernetesClient client) {
    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    TestObjects.createNodeClass(client);
    nodePool("default", "on-demand").create(client);
    Options options = InProcessOperators.options().withLeaderElection(true, "karpenter-leader-election", client.getNamespace());
    Operator first = operators.start(client, operators.provider(client, catalog), options);
    Operator second = operators.start(client, operators.provider(client, catalog), options);
    await().atMost(TIMEOUT).until(() -> first.isLeader() ^ second.isLeader());
    Operator leader = first.isLeader() ? first : second;
    Operator follower = leader == first ? second : first;

    separatedPods("a", 3).forEach(pod -> client.pods().resource(pod).create());
    awaitAllRunning(client, 3);
    assertThat(follower.isLeader()).isFalse();

    leader.close();
    await().atMost(TIMEOUT).until(follower::isLeader);
    separatedPods("b", 3).forEach(pod -> client.pods().resource(pod).create());
    awaitAllRunning(client, 6);

    assertNothingLaunchedTwice(client);
  }

  @Test
  void aLeaderThatDiesWithoutReleasingTheLeaseIsReplacedOnceTheLeaseExpires(ControlPlane controlPlane, KubernetesClient client) {
    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    TestObjects.createNodeClass(client);
    nodePool("default", "on-demand").create(client);
    Options options = InProcessOperators.options().withLeaderElection(true, "karpenter-leader-election", client.getNamespace());
    // Each replica talks to the API server through a client of its own, so one can be cut off alone.
    KubernetesClient firstClient = operators.track(ownClient(controlPlane));
    KubernetesClient secondClient = operators.track(ownClient(controlPlane));
    Operator first = operators.start(firstClient, operators.provider(firstClient, catalog), options);
    Operator second = operators.start(secondClient, operators.provider(secondClient, catalog), options);
    await().atMost(TIMEOUT).until(() -> first.isLeader() ^ second.isLeader());
    boolean firstLeads = first.isLeader();
    Operator leader = firstLeads ? first : second;
    Operator follower = firstLeads ? second : first;

    separatedPods("a", 2).forEach(pod -> client.pods().resource(pod).create());
    awaitAllRunning(client, 2);

    // The leader's process "dies": its connection goes away and the Lease is never released.
    (firstLeads ? firstClient : secondClient).close();
    await().atMost(TIMEOUT).until(follower::isLeader);
    await().atMost(TIMEOUT).until(leader::leadershipWasLost);
    separatedPods("b", 2).forEach(pod -> client.pods().resource(pod).create());
    awaitAllRunning(client, 4);

    assertNothingLaunchedTwice(client);
  }

  private static void awaitAllRunning(KubernetesClient client, int pods) {
    await().atMost(TIMEOUT).untilAsserted(() -> assertThat(client.pods().list().getItems()).hasSize(pods).allMatch(TestObjects::running));
  }

  /** One NodeClaim per Node and no Node without a pod: no replica launched a second node for the same pods. */
  private static void assertNothingLaunchedTwice(KubernetesClient client) {
    List<Node> nodes = client.nodes().list().getItems();
    assertThat(client.resources(NodeClaim.class).list().getItems()).hasSameSizeAs(nodes);
    Map<String, Long> podsPerNode = client.pods().list().getItems().stream()
        .collect(Collectors.groupingBy(p -> p.getSpec().getNodeName(), Collectors.counting()));
    assertThat(nodes).allSatisfy(node -> assertThat(podsPerNode).containsKey(node.getMetadata().getName()));
  }

  private static KubernetesClient ownClient(ControlPlane controlPlane) {
    return new KubernetesClientBuilder().withConfig(Config.fromKubeconfig(controlPlane.kubeconfig().toFile())).build();
  }

  /** Pods of one app that must each run on a different node. */
  private static List<Pod> separatedPods(String app, int count) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      pods.add(TestObjects.awayFrom(app, TestObjects.pausePod(app + "-" + i, app, "1", "1Gi")));
    }
    return pods;
  }

  private static Map<String, Long> countByPool(List<String> pools) {
    return pools.stream().collect(Collectors.groupingBy(p -> p, TreeMap::new, Collectors.counting()));
  }

  /** 15 zone-spread web pods, 4 database pods with hostname anti-affinity, 20 batch pods tolerating the batch taint on spot, 10 arm64 pods, 1 GPU pod. */
  static List<Pod> mixedPods(String namespace) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 15; i++) {
      pods.add(new PodBuilder(TestObjects.pausePod("web-" + i, "web", "500m", "512Mi")).editSpec()
          .withTopologySpreadConstraints(new TopologySpreadConstraintBuilder().withMaxSkew(1).withTopologyKey(Labels.ZONE)
              .withWhenUnsatisfiable("DoNotSchedule").withLabelSelector(new LabelSelectorBuilder().withMatchLabels(Map.of("app", "web")).build())
              .build())
          .endSpec().build());
    }
    for (int i = 0; i < 4; i++) {
      pods.add(TestObjects.awayFrom("db", TestObjects.pausePod("db-" + i, "db", "1", "2Gi")));
    }
    for (int i = 0; i < 20; i++) {
      pods.add(new PodBuilder(TestObjects.pausePod("batch-" + i, "batch", "1", "1Gi")).editSpec()
          .addNewToleration().withKey("dedicated").withOperator("Equal").withValue("batch").withEffect("NoSchedule").endToleration()
          .withNodeSelector(Map.of(Labels.CAPACITY_TYPE, "spot"))
          .endSpec().build());
    }
    for (int i = 0; i < 10; i++) {
      pods.add(new PodBuilder(TestObjects.pausePod("arm-" + i, "arm", "250m", "256Mi")).editSpec()
          .withNodeSelector(Map.of(Labels.ARCH, "arm64")).endSpec().build());
    }
    Pod gpu = TestObjects.pausePod("gpu-0", "gpu", "1", "4Gi");
    gpu.getSpec().getContainers().get(0).getResources().getRequests().put("nvidia.com/gpu", new Quantity("1"));
    gpu.getSpec().getContainers().get(0).getResources().setLimits(Map.of("nvidia.com/gpu", new Quantity("1")));
    pods.add(gpu);
    pods.forEach(pod -> pod.getMetadata().setNamespace(namespace));
    return pods;
  }
}
