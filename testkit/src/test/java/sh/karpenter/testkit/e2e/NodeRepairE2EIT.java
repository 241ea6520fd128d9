package sh.karpenter.testkit.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.runtime.EventHandlers;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.cloudprovider.RepairPolicy;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.controlplane.KwokNodes;
import sh.karpenter.testkit.fixtures.InProcessOperators;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * Node repair end to end on the real control plane (docs/behaviour/disruption.md#node-repair): the
 * whole operator in-process with the {@code NodeRepair} gate on and the KWOK provider's repair policies
 * shortened to a 10 s toleration. A node whose kubelet stops (Ready turns Unknown) is replaced and its
 * pod runs elsewhere; two unhealthy nodes of three trip the 20% breaker and are left alone; a {@code
 * nodes: "1"} budget for {@code Unhealthy} repairs one node at a time.
 */
@ControlPlaneTest
class NodeRepairE2EIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(5);
  private static final Duration POLL = Duration.ofSeconds(2);
  private static final Duration TOLERATION = Duration.ofSeconds(10);
  private static final List<RepairPolicy> POLICIES =
      List.of(new RepairPolicy("Ready", "False", TOLERATION), new RepairPolicy("Ready", "Unknown", TOLERATION));

  private final InProcessOperators operators = new InProcessOperators();
  private final InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
  private final TestingEventRecorder events = new TestingEventRecorder();

  @AfterEach
  void stop() throws Exception {
    operators.close();
  }

  /** An on-demand NodePool with consolidation off (only repair disrupts) and the given budgets (flow style). */
  private static void pool(KubernetesClient client, String budgets) {
    NodePoolYaml.named("default").disruption("{consolidateAfter: Never, budgets: " + budgets + "}").expireAfter("Never")
        .requirementIn("karpenter.sh/capacity-type", "on-demand").requirementIn("kubernetes.io/os", "linux")
        .requirementIn("kubernetes.io/arch", "amd64").create(client);
  }

  private Operator start(KubernetesClient client, String budgets, int replicas) {
    TestObjects.createNodeClass(client);
    pool(client, budgets);
    Operator operator = operators.start(client, operators.provider(client, catalog, POLICIES), InProcessOperators.nodeRepairOptions(), events);
    Pod pod = TestObjects.awayFrom("apart", TestObjects.pausePod("template", "apart", "1", "1Gi"));
    Deployment deployment = new DeploymentBuilder()
        .withNewMetadata().withName("apart").endMetadata()
        .withNewSpec()
          .withReplicas(replicas)
          .withNewSelector().addToMatchLabels("app", "apart").endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", "apart").endMetadata().withSpec(pod.getSpec()).endTemplate()
        .endSpec()
        .build();
    client.apps().deployments().resource(deployment).create();
    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() -> assertThat(pods(client)).hasSize(replicas).allMatch(TestObjects::running));
    // Provisioning may launch a spare node while the pods arrive in several batches (consolidation is
    // off, so it stays): the tests pick their unhealthy nodes among the ones running a pod.
    return operator;
  }

  private static List<Pod> pods(KubernetesClient client) {
    return client.pods().withLabel("app", "apart").list().getItems().stream().filter(p -> !Metadata.deleting(p)).toList();
  }

  /** The nodes running the pods, sorted. */
  private static List<String> hosts(KubernetesClient client) {
    return pods(client).stream().map(p -> p.getSpec().getNodeName()).distinct().sorted().toList();
  }

  private static Set<String> nodeNames(KubernetesClient client) {
    return client.nodes().list().getItems().stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
  }

  @Test
  void aNodeWhoseKubeletStoppedIsReplacedAndItsPodRunsElsewhere(KubernetesClient client) {
    start(client, "[{nodes: \"100%\"}]", 1);
    String sick = hosts(client).getFirst();

    KwokNodes.stopKubelet(client, sick);

    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() -> {
      assertThat(nodeNames(client)).doesNotContain(sick);
      assertThat(pods(client)).singleElement().satisfies(p -> {
        assertThat(TestObjects.running(p)).isTrue();
        assertThat(p.getSpec().getNodeName()).isNotEqualTo(sick);
      });
    });
    assertRepaired(sick);
  }

  /** Node repair, not anything else, deleted the node. */
  private void assertRepaired(String node) {
    assertThat(events.events()).anySatisfy(e -> {
      assertThat(e.name()).isEqualTo(node);
      assertThat(e.reason()).isEqualTo("DisruptionTerminating");
      assertThat(e.message()).isEqualTo("Disrupting Node: Unhealthy");
    });
  }

  @Test
  void twoUnhealthyNodesOfThreeAreNotTouched(KubernetesClient client) {
    start(client, "[{nodes: \"100%\"}]", 3);
    // all nodes but one: two of three (or more of a few more, should provisioning have launched a spare)
    List<String> all = nodeNames(client).stream().sorted().toList();
    List<String> sick = all.subList(1, all.size());

    sick.forEach(name -> KwokNodes.stopKubelet(client, name));

    await().atMost(Duration.ofMinutes(2)).pollInterval(POLL).untilAsserted(() -> assertThat(events.events()).anySatisfy(e -> {
      assertThat(e.kind()).isEqualTo("NodePool");
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("NodeRepairBlocked");
      assertThat(e.message()).isEqualTo("more than 20% of nodes in nodepool \"default\" are unhealthy");
    }));
    // a few more loops (every 10 s): still nothing disrupted
    await().during(Duration.ofSeconds(25)).atMost(Duration.ofSeconds(40)).pollInterval(POLL).untilAsserted(() -> {
      assertThat(nodeNames(client)).containsAll(all);
      assertThat(client.resources(NodeClaim.class).list().getItems()).noneMatch(Metadata::deleting);
      assertThat(client.nodes().list().getItems()).noneMatch(NodeRepairE2EIT::tainted);
    });
  }

  @Test
  void aBudgetOfOneUnhealthyNodeRepairsOneAtATime(KubernetesClient client) {
    // six nodes: two unhealthy stay within the breaker (20% of 6 rounds up to 2)
    Operator operator = start(client, "[{nodes: \"1\", reasons: [Unhealthy]}]", 6);
    List<String> sick = hosts(client).subList(0, 2);
    AtomicInteger most = new AtomicInteger();
    Informers informers = operator.informers();
    informers.nodes().addEventHandler(EventHandlers.onChange(node -> most.accumulateAndGet(DisruptionE2EIT.disrupting(informers), Math::max)));
    informers.nodeClaims().addEventHandler(EventHandlers.onChange(claim -> most.accumulateAndGet(DisruptionE2EIT.disrupting(informers), Math::max)));

    sick.forEach(name -> KwokNodes.stopKubelet(client, name));

    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() -> {
      most.accumulateAndGet(DisruptionE2EIT.disrupting(informers), Math::max);
      assertThat(nodeNames(client)).doesNotContainAnyElementsOf(sick);
      assertThat(pods(client)).hasSize(6).allMatch(TestObjects::running);
    });
    sick.forEach(this::assertRepaired);
    assertThat(most.get()).isEqualTo(1);
  }

  private static boolean tainted(Node node) {
    return node.getSpec().getTaints() != null && node.getSpec().getTaints().stream().anyMatch(t -> TaintKeys.DISRUPTED.equals(t.getKey()));
  }
}
