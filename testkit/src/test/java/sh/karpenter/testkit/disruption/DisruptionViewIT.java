package sh.karpenter.testkit.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.controller.disruption.DisruptionInputs;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.controller.state.DisruptionView;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;
import sh.karpenter.core.disruption.DisruptionOptions;
import sh.karpenter.core.disruption.StateNode;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * Cluster state's disruption view read from the informers of a real control plane: every Node, even
 * those provisioning leaves out (being deleted, marked for deletion), with its NodeClaim and pods,
 * plus in-flight NodeClaims; pods of a marked node are pending for simulations as they are for
 * provisioning.
 */
@ControlPlaneTest
class DisruptionViewIT {
  private static final Duration WAIT = Duration.ofMinutes(2);

  private final TestingClock clock = new TestingClock();
  private Informers informers;
  private ClusterState state;
  private KubernetesClient client;

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    informers = new Informers(client);
    state = new ClusterState(informers, clock,
        ClusterState.instanceTypesOf(new TestingCloudProvider(FakeInstanceTypes.instanceTypes(4))), Options.defaults());
    SyncedInformers.start(informers);
  }

  @AfterEach
  void stop() {
    informers.close();
  }

  /** A registered, initialized Node of pool {@code general} and its launched NodeClaim. */
  private void createManagedNode(String name) {
    NodeClaim claim = TestObjects.createNodeClaim(client, name, "general");
    NodeClaimStatus status = new NodeClaimStatus();
    status.setProviderID("fake://" + name);
    status.setNodeName(name);
    claim.setStatus(status);
    client.resources(NodeClaim.class).resource(claim).updateStatus();
    client.nodes().resource(TestObjects.yaml(client, Node.class, """
        apiVersion: v1
        kind: Node
        metadata:
          name: %s
          labels: {karpenter.sh/nodepool: general, karpenter.sh/initialized: "true", kubernetes.io/hostname: %s}
          finalizers: [karpenter.sh/termination]
        spec: {providerID: "fake://%s"}
        status: {allocatable: {cpu: "4", memory: 8Gi, pods: "40"}, capacity: {cpu: "4", memory: 8Gi, pods: "40"}}
        """.formatted(name, name, name))).create();
    client.pods().resource(new PodBuilder(TestObjects.pausePod("pod-" + name, "app", "1", "1Gi"))
        .editSpec().withNodeName(name).endSpec().build()).create();
  }

  @Test
  void everyNodeIsInTheViewEvenTheOnesProvisioningLeavesOut() {
    NodePoolYaml.named("general").createReady(client);
    createManagedNode("staying");
    createManagedNode("marked");
    createManagedNode("deleting");
    TestObjects.createNodeClaim(client, "in-flight", "general");
    client.nodes().withName("deleting").delete();
    state.markForDeletion(List.of("fake://marked"));
    await().atMost(WAIT).until(() -> informers.nodes().getStore().list().size() == 3
        && informers.pods().getStore().list().size() == 3
        && informers.nodeClaims().getStore().list().stream().filter(c -> c.getStatus() != null && c.getStatus().getProviderID() != null).count() == 3
        && informers.nodeClaims().getStore().list().size() == 4
        && informers.nodes().getStore().getByKey("deleting").getMetadata().getDeletionTimestamp() != null);

    DisruptionView view = state.disruptionView();

    Map<String, DisruptionView.NodeView> byName = view.nodes().stream().collect(Collectors.toMap(DisruptionView.NodeView::name, Function.identity()));
    assertThat(byName).containsOnlyKeys("staying", "marked", "deleting", "in-flight");
    assertThat(byName.get("marked").markedForDeletion()).isTrue();
    assertThat(byName.get("staying").markedForDeletion()).isFalse();
    for (String name : List.of("staying", "marked", "deleting")) {
      DisruptionView.NodeView node = byName.get(name);
      assertThat(node.nodeClaim().getMetadata().getName()).isEqualTo(name);
      assertThat(node.pods()).extracting(p -> p.object().getMetadata().getName()).containsExactly("pod-" + name);
      assertThat(node.node().pods()).extracting(Pod::name).containsExactly("pod-" + name);
      assertThat(node.node().initialized()).isTrue();
    }
    assertThat(byName.get("in-flight").object()).isNull();
    assertThat(byName.get("in-flight").node().initialized()).isFalse();
    // The scheduler's input is provisioning's: the marked and deleting nodes' pods wait for a new home.
    assertThat(view.scheduling().cluster().pendingPods()).extracting(Pod::name).containsExactlyInAnyOrder("pod-marked", "pod-deleting");

    List<StateNode> nodes = DisruptionInputs.of(view, name -> false, SchedulerOptions.DEFAULT, clock.instant(), DisruptionOptions.defaults(clock)).nodes();
    assertThat(nodes).filteredOn(n -> n.name().equals("deleting")).singleElement().satisfies(n -> assertThat(n.deleting()).isTrue());
    assertThat(nodes).filteredOn(n -> n.name().equals("staying")).singleElement().satisfies(n -> {
      assertThat(n.deleting()).isFalse();
      assertThat(n.reschedulablePods()).extracting(Pod::name).containsExactly("pod-staying");
    });
  }
}
