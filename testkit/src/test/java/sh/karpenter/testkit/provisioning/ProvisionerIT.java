package sh.karpenter.testkit.provisioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.v1.NodePoolHash;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.provisioning.Batcher;
import sh.karpenter.controller.provisioning.PodTrigger;
import sh.karpenter.controller.provisioning.Provisioner;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.runtime.TestingEventRecorder.RecordedEvent;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * The provisioner against the real control plane: pods kube-scheduler cannot place (there are no
 * nodes) become NodeClaims, nominated and announced; NodeClaims in flight are not launched twice;
 * pods nothing can take are told why.
 */
@ControlPlaneTest
class ProvisionerIT {
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final String POOL = """
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: general}
      spec:
        limits: {cpu: "1000"}
        template:
          metadata:
            labels: {team: payments}
            annotations: {example.com/owner: payments}
          spec:
            nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
            requirements:
              - {key: kubernetes.io/arch, operator: In, values: [amd64]}
              - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
              - {key: node.kubernetes.io/instance-type, operator: Exists, minValues: 2}
      """;

  private final TestingClock clock = new TestingClock();
  private final TestingEventRecorder recorder = new TestingEventRecorder(clock);
  private final Options options = Options.defaults();
  private Informers informers;
  private ClusterState state;
  private Batcher batcher;
  private PodTrigger podTrigger;
  private Provisioner provisioner;
  private KubernetesClient client;

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    informers = new Informers(client);
    var cloudProvider = new TestingCloudProvider(FakeInstanceTypes.instanceTypes(10));
    state = new ClusterState(informers, clock, ClusterState.instanceTypesOf(cloudProvider), options);
    batcher = new Batcher(clock, options);
    podTrigger = new PodTrigger(batcher, state);
    podTrigger.register(informers);
    provisioner = new Provisioner(client, state, batcher, recorder, Metrics.noop(), clock, options);
    SyncedInformers.start(informers);
  }

  @AfterEach
  void stop() {
    if (informers != null) {
      informers.close();
    }
  }

  private NodePool createPool() {
    NodePool pool = TestObjects.yaml(client, NodePool.class, POOL);
    NodePool ready = TestObjects.markReady(client, client.resources(NodePool.class).resource(pool).create());
    SyncedInformers.awaitReadyNodePools(informers, 1);
    return ready;
  }

  private Pod createPod(String name, String cpu, Map<String, String> nodeSelector) {
    return client.pods().resource(new PodBuilder(TestObjects.pausePod(name, "web", cpu, "512Mi"))
            .editSpec().withNodeSelector(nodeSelector).endSpec()
            .build())
        .create();
  }

  /** Waits until kube-scheduler has marked the pods Unschedulable and the trigger has seen that. */
  private void awaitProvisionable(int pods) {
    await().atMost(WAIT).until(() -> podTrigger.provisionablePods() == pods);
  }

  /** Closes the batch window on the testing clock and runs the provisioner once. */
  private Result reconcile() throws InterruptedException {
    clock.step(options.batchMaxDuration());
    return provisioner.reconcile();
  }

  private List<NodeClaim> nodeClaims() {
    return client.resources(NodeClaim.class).list().getItems();
  }

  private List<RecordedEvent> events(String reason) {
    return recorder.events().stream().filter(e -> reason.equals(e.reason())).toList();
  }

  @Test
  void pendingPodsBecomeNominatedNodeClaimsOwnedByTheirNodePool() throws Exception {
    NodePool pool = createPool();
    IntStream.range(0, 10).forEach(i -> createPod("web-" + i, "1", Map.of()));
    awaitProvisionable(10);

    Result result = reconcile();

    assertThat(result.requeueAfter()).isEqualTo(Duration.ZERO);
    List<NodeClaim> claims = nodeClaims();
    assertThat(claims).isNotEmpty();
    for (NodeClaim claim : claims) {
      assertThat(claim.getMetadata().getName()).startsWith("general-");
      assertThat(claim.getMetadata().getOwnerReferences()).singleElement().satisfies(owner -> {
        assertThat(owner.getKind()).isEqualTo("NodePool");
        assertThat(owner.getName()).isEqualTo("general");
        assertThat(owner.getUid()).isEqualTo(pool.getMetadata().getUid());
        assertThat(owner.getBlockOwnerDeletion()).isTrue();
      });
      assertThat(claim.getMetadata().getLabels()).containsEntry("karpenter.sh/nodepool", "general").containsEntry("team", "payments");
      assertThat(claim.getMetadata().getAnnotations())
          .containsEntry("example.com/owner", "payments")
          .containsEntry("karpenter.sh/nodepool-hash", NodePoolHash.of(pool))
          .containsEntry("karpenter.sh/nodepool-hash-version", "v3");
      Map<String, NodeSelectorRequirementWithMinValues> requirements = claim.getSpec().getRequirements().stream()
          .collect(Collectors.toMap(NodeSelectorRequirementWithMinValues::getKey, r -> r));
      assertThat(requirements.get("node.kubernetes.io/instance-type").getOperator()).isEqualTo("In");
      assertThat(requirements.get("node.kubernetes.io/instance-type").getValues()).hasSizeGreaterThanOrEqualTo(2).allMatch(v -> v.startsWith("fake-it-"));
      assertThat(requirements.get("node.kubernetes.io/instance-type").getMinValues()).isEqualTo(2);
      assertThat(requirements.get("karpenter.sh/capacity-type").getValues()).containsExactly("on-demand");
      assertThat(requirements.get("kubernetes.io/arch").getValues()).containsExactly("amd64");
      assertThat(claim.getSpec().getNodeClassRef().getKind()).isEqualTo("KWOKNodeClass");
      assertThat(claim.getSpec().getResources().getRequests()).containsKeys("cpu", "memory", "pods");
    }

    Set<String> names = claims.stream().map(c -> c.getMetadata().getName()).collect(Collectors.toSet());
    List<RecordedEvent> nominated = events(Provisioner.NOMINATED);
    assertThat(nominated).hasSize(10).allSatisfy(e -> {
      assertThat(e.kind()).isEqualTo("Pod");
      assertThat(e.message()).startsWith("Pod should schedule on: nodeclaim/");
      assertThat(names).contains(e.message().substring("Pod should schedule on: nodeclaim/".length()));
    });
    assertThat(nominated.stream().map(RecordedEvent::name).collect(Collectors.toSet()))
        .isEqualTo(IntStream.range(0, 10).mapToObj(i -> "web-" + i).collect(Collectors.toSet()));
    IntStream.range(0, 10).forEach(i -> assertThat(state.nominated(client.getNamespace() + "/web-" + i)).isPresent());
    assertThat(events(Provisioner.FAILED_SCHEDULING)).isEmpty();
  }

  @Test
  void nodeClaimsInFlightAreNotLaunchedTwice() throws Exception {
    createPool();
    IntStream.range(0, 10).forEach(i -> createPod("web-" + i, "1", Map.of()));
    awaitProvisionable(10);
    reconcile();
    Set<String> first = names(nodeClaims());
    assertThat(first).isNotEmpty();

    // At once (the informer may not have delivered the NodeClaims yet) and again once it has.
    Provisioner.Pass immediately = provisioner.provision();
    await().atMost(WAIT).until(() -> informers.nodeClaims().getStore().list().size() == first.size());
    podTrigger.resync();
    clock.step(options.batchMaxDuration());
    Provisioner.Pass later = provisioner.provision();

    for (Provisioner.Pass pass : List.of(immediately, later)) {
      assertThat(pass.created()).isEmpty();
      assertThat(pass.unschedulable()).isEmpty();
      assertThat(pass.existingPlacements().keySet()).isSubsetOf(first);
      assertThat(pass.existingPlacements().values().stream().mapToInt(List::size).sum()).isEqualTo(10);
    }
    assertThat(names(nodeClaims())).isEqualTo(first);
  }

  @Test
  void aPodNoNodePoolCanTakeIsToldWhyAndTheOthersAreProvisioned() throws Exception {
    createPool();
    createPod("fits", "1", Map.of());
    createPod("huge", "500", Map.of());
    createPod("wrong-arch", "1", Map.of("kubernetes.io/arch", "arm64"));
    createPod("restricted", "1", Map.of("karpenter.sh/custom", "x"));
    awaitProvisionable(4);

    reconcile();

    assertThat(nodeClaims()).hasSize(1);
    assertThat(recorder.forObject("fits")).extracting(RecordedEvent::reason).containsExactly(Provisioner.NOMINATED);
    Map<String, String> failures = events(Provisioner.FAILED_SCHEDULING).stream()
        .collect(Collectors.toMap(RecordedEvent::name, RecordedEvent::message));
    assertThat(failures).containsOnlyKeys("huge", "wrong-arch", "restricted");
    assertThat(failures.get("huge")).startsWith("Failed to schedule pod, ").contains("cpu");
    assertThat(failures.get("wrong-arch")).startsWith("Failed to schedule pod, ").contains("kubernetes.io/arch");
    assertThat(failures.get("restricted")).isEqualTo(
        "Failed to schedule pod, nodeSelector uses the restricted label karpenter.sh/custom, which Karpenter cannot set on a new node");
    assertThat(events(Provisioner.FAILED_SCHEDULING)).allSatisfy(e -> assertThat(e.type()).isEqualTo("Warning"));
  }

  @Test
  void aNodePoolWhoseReadyIsNotTrueLaunchesNothingUntilItTurnsReady() throws Exception {
    NodePool pool = client.resources(NodePool.class).resource(TestObjects.yaml(client, NodePool.class, POOL)).create();
    pool.setStatus(new sh.karpenter.api.v1.NodePoolStatus());
    pool.getStatus().setConditions(sh.karpenter.api.v1.Conditions.set(
        null, "Ready", "Unknown", "AwaitingReconciliation", "object is awaiting reconciliation", java.time.Instant.now(), pool.getMetadata().getGeneration()));
    client.resources(NodePool.class).resource(pool).updateStatus();
    await().atMost(WAIT).until(() -> informers.nodePools().getStore().list().stream()
        .anyMatch(p -> p.getStatus() != null && p.getStatus().getConditions() != null && !p.getStatus().getConditions().isEmpty()));
    createPod("web", "1", Map.of());
    awaitProvisionable(1);

    reconcile();

    assertThat(nodeClaims()).isEmpty();
    assertThat(events(Provisioner.FAILED_SCHEDULING)).singleElement().extracting(RecordedEvent::message).isEqualTo(
        "Failed to schedule pod, no NodePool can launch nodes; ignored nodepool \"general\" not ready "
            + "(Ready=Unknown, AwaitingReconciliation: object is awaiting reconciliation)");

    TestObjects.markReady(client, pool);
    SyncedInformers.awaitReadyNodePools(informers, 1);
    reconcile();

    assertThat(nodeClaims()).hasSize(1);
  }

  private static Set<String> names(List<NodeClaim> claims) {
    return claims.stream().map(c -> c.getMetadata().getName()).collect(Collectors.toCollection(HashSet::new));
  }
}
