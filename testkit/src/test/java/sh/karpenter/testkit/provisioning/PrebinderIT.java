package sh.karpenter.testkit.provisioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.provisioning.Prebinder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.controller.state.PodRef;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.InProcessOperators;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * Optimistic pre-binding ({@code --prebind}) on the real control plane. The pods here name a
 * scheduler that does not exist, so kube-scheduler never binds them: a pod that runs was bound by
 * Karpenter, through the {@code pods/binding} subresource, without waiting for the Node to be Ready
 * (the Nodes of the piece-by-piece tests keep {@code node.kubernetes.io/not-ready}).
 */
@ControlPlaneTest
class PrebinderIT {
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final Duration E2E_WAIT = Duration.ofMinutes(3);
  /** Kept on the test Nodes so kube-scheduler cannot compete with the prebinder. */
  private static final Taint NOT_READY = new TaintBuilder().withKey(TaintKeys.NODE_NOT_READY).withEffect("NoSchedule").build();
  private static final Taint UNREGISTERED = TestObjects.unregisteredTaint();

  private final InProcessOperators operators = new InProcessOperators();

  @AfterEach
  void stop() throws Exception {
    operators.close();
  }

  // ------------------------------------------------------------------ the prebinder on its own

  @Test
  void bindsTheRecordedPodsOnlyOnceTheNodeIsRegistered(KubernetesClient client) {
    Fixture f = new Fixture(client);
    List<Pod> pods = IntStream.range(0, 3).mapToObj(i -> client.pods().resource(pod("web-" + i)).create()).toList();
    f.createClaim("general-a", "kwok://general-a");
    f.state.prebind("general-a", pods.stream().map(PrebinderIT::ref).toList());
    createNode(client, "general-a", "kwok://general-a", List.of(NOT_READY, UNREGISTERED));
    f.awaitCached(pods, "general-a", true);

    Result waiting = f.prebinder.reconcile("general-a");

    assertThat(waiting.requeue()).isTrue();
    assertThat(client.pods().list().getItems()).allSatisfy(pod -> assertThat(pod.getSpec().getNodeName()).isNull());
    assertThat(f.state.prebindings()).containsOnlyKeys("general-a");

    removeUnregisteredTaint(client, "general-a");
    f.awaitCached(pods, "general-a", false);

    assertThat(f.prebinder.reconcile("general-a").requeue()).isFalse();

    assertThat(client.pods().list().getItems()).hasSize(3)
        .allSatisfy(pod -> assertThat(pod.getSpec().getNodeName()).isEqualTo("general-a"));
    assertThat(f.state.prebindings()).isEmpty();
    // KWOK runs what was bound, although kube-scheduler could not have placed it there
    await().atMost(WAIT).untilAsserted(() -> assertThat(client.pods().list().getItems()).allMatch(TestObjects::running));
  }

  @Test
  void leavesAloneAPodThatWasReplacedOrBoundElsewhere(KubernetesClient client) {
    Fixture f = new Fixture(client);
    Pod replaced = client.pods().resource(pod("replaced")).create();
    Pod elsewhere = client.pods().resource(pod("elsewhere")).create();
    Pod kept = client.pods().resource(pod("kept")).create();
    f.createClaim("general-b", "kwok://general-b");
    f.state.prebind("general-b", List.of(ref(replaced), ref(elsewhere), ref(kept)));

    client.pods().resource(replaced).withGracePeriod(0).delete();
    await().atMost(WAIT).until(() -> client.pods().withName("replaced").get() == null);
    Pod recreated = client.pods().resource(pod("replaced")).create();
    assertThat(recreated.getMetadata().getUid()).isNotEqualTo(replaced.getMetadata().getUid());
    client.bindings().inNamespace(client.getNamespace()).resource(new BindingBuilder()
            .withNewMetadata().withName("elsewhere").endMetadata()
            .withNewTarget().withApiVersion("v1").withKind("Node").withName("some-other-node").endTarget()
            .build())
        .create();
    createNode(client, "general-b", "kwok://general-b", List.of(NOT_READY));
    f.awaitCached(List.of(recreated, kept), "general-b", false);
    await().atMost(WAIT).until(() -> {
      Pod cached = f.informers.pods().getStore().getByKey(client.getNamespace() + "/elsewhere");
      return cached != null && "some-other-node".equals(cached.getSpec().getNodeName());
    });

    assertThat(f.prebinder.reconcile("general-b").requeue()).isFalse();

    assertThat(client.pods().withName("kept").get().getSpec().getNodeName()).isEqualTo("general-b");
    assertThat(client.pods().withName("replaced").get().getSpec().getNodeName()).isNull();
    assertThat(client.pods().withName("elsewhere").get().getSpec().getNodeName()).isEqualTo("some-other-node");
    assertThat(f.state.prebindings()).isEmpty();
  }

  @Test
  void theApiServerRefusesAPodOfTheSameNameTheCacheHasNotSeenYet(KubernetesClient client) {
    // The UID in the Binding guards against a cache that still shows the old pod.
    Fixture f = new Fixture(client);
    Pod original = client.pods().resource(pod("web")).create();
    f.createClaim("general-c", "kwok://general-c");
    createNode(client, "general-c", "kwok://general-c", List.of(NOT_READY));
    f.awaitCached(List.of(original), "general-c", false);
    f.informers.close(); // freeze the cache with the original pod in it
    client.pods().resource(original).withGracePeriod(0).delete();
    await().atMost(WAIT).until(() -> client.pods().withName("web").get() == null);
    client.pods().resource(pod("web")).create();
    f.state.prebind("general-c", List.of(ref(original)));

    assertThat(f.prebinder.reconcile("general-c").requeue()).isFalse();

    assertThat(client.pods().withName("web").get().getSpec().getNodeName()).isNull();
  }

  @Test
  void theRecordOfADeletedNodeClaimIsDropped(KubernetesClient client) {
    Fixture f = new Fixture(client);
    Pod pod = client.pods().resource(pod("web")).create();
    f.state.prebind("never-created", List.of(ref(pod)));

    assertThat(f.prebinder.reconcile("never-created").requeue()).isFalse();

    assertThat(f.state.prebindings()).isEmpty();
    assertThat(client.pods().withName("web").get().getSpec().getNodeName()).isNull();
  }

  // ------------------------------------------------------------------ end to end

  @Test
  void withPrebindTheOperatorRunsPendingPodsOnNodesKubeSchedulerCannotUseYet(KubernetesClient client) {
    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    TestObjects.createNodeClass(client);
    NodePoolYaml.named("default").expireAfter("Never")
        .requirementIn(Labels.CAPACITY_TYPE, "on-demand")
        .requirementIn(Labels.OS, "linux")
        .create(client);
    Operator operator = operators.start(client, operators.provider(client, catalog), InProcessOperators.options().withPrebind(true));

    // The pods name a scheduler that does not exist, so kube-scheduler never binds them; the test marks
    // them unschedulable as kube-scheduler would have. Only Karpenter can then put them on a node.
    List<Pod> pods = IntStream.range(0, 10).mapToObj(i -> {
      Pod created = client.pods().resource(pod("web-" + i)).create();
      created.setStatus(new PodStatusBuilder().withPhase("Pending").addNewCondition()
          .withType("PodScheduled").withStatus("False").withReason("Unschedulable").withMessage("0/0 nodes are available")
          .endCondition().build());
      return client.pods().resource(created).updateStatus();
    }).toList();

    await().atMost(E2E_WAIT).pollInterval(Duration.ofSeconds(1)).untilAsserted(() ->
        assertThat(client.pods().list().getItems()).hasSize(10).allMatch(TestObjects::running));
    List<Pod> bound = client.pods().list().getItems();
    Map<String, Node> nodes = client.nodes().list().getItems().stream()
        .collect(Collectors.toMap(n -> n.getMetadata().getName(), n -> n));
    assertThat(bound).allSatisfy(pod -> {
      Node node = nodes.get(pod.getSpec().getNodeName());
      assertThat(node).isNotNull();
      assertThat(node.getMetadata().getLabels()).containsKey(Labels.NODE_POOL);
    });
    // ... and kube-scheduler never reported binding any of them.
    Set<String> names = pods.stream().map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
    List<Event> scheduled = client.events().v1().events().list().getItems().stream()
        .filter(e -> "Scheduled".equals(e.getReason()) && e.getRegarding() != null && names.contains(e.getRegarding().getName()))
        .toList();
    assertThat(scheduled).isEmpty();
    assertThat(operator.state().prebindings()).isEmpty();
  }

  // ------------------------------------------------------------------ helpers

  /** Informers, cluster state and a prebinder over the test's control plane, plus a NodePool. */
  private final class Fixture {
    final KubernetesClient client;
    final Informers informers;
    final ClusterState state;
    final Prebinder prebinder;

    Fixture(KubernetesClient client) {
      this.client = client;
      TestingClock clock = new TestingClock();
      informers = operators.track(new Informers(client));
      state = new ClusterState(informers, clock,
          ClusterState.instanceTypesOf(new TestingCloudProvider(FakeInstanceTypes.instanceTypes(10))), Options.defaults().withPrebind(true));
      prebinder = new Prebinder(client, informers, state, clock);
      NodePoolYaml.named("general").createReady(client);
      SyncedInformers.start(informers);
    }

    /** A launched NodeClaim: created, with {@code status.providerID} set as the lifecycle would. */
    NodeClaim createClaim(String name, String providerId) {
      NodeClaim claim = TestObjects.createNodeClaim(client, name, "general");
      NodeClaimStatus status = new NodeClaimStatus();
      status.setProviderID(providerId);
      claim.setStatus(status);
      NodeClaim launched = client.resources(NodeClaim.class).resource(claim).updateStatus();
      await().atMost(WAIT).until(() -> {
        NodeClaim cached = informers.nodeClaims().getStore().getByKey(name);
        return cached != null && cached.getStatus() != null && providerId.equals(cached.getStatus().getProviderID());
      });
      return launched;
    }

    /** Waits until the cache has these pods (by UID) and the Node with or without the unregistered taint. */
    void awaitCached(List<Pod> pods, String node, boolean unregistered) {
      await().atMost(WAIT).until(() -> {
        boolean podsCached = pods.stream().allMatch(p -> {
          Pod cached = informers.pods().getStore().getByKey(client.getNamespace() + "/" + p.getMetadata().getName());
          return cached != null && Objects.equals(cached.getMetadata().getUid(), p.getMetadata().getUid());
        });
        Node cached = informers.nodes().getStore().getByKey(node);
        return podsCached && cached != null && cached.getSpec().getTaints().stream()
            .anyMatch(t -> TaintKeys.UNREGISTERED.equals(t.getKey())) == unregistered;
      });
    }
  }

  /** A KWOK-managed Node with a provider ID and these taints (KWOK turns it Ready and runs its pods). */
  private static Node createNode(KubernetesClient client, String name, String providerId, List<Taint> taints) {
    Node node = new NodeBuilder(TestObjects.kwokNode(name, "4", "8Gi", providerId, taints))
        .editMetadata().addToLabels(Labels.NODE_POOL, "general").endMetadata()
        .build();
    return client.nodes().resource(node).create();
  }

  /** What registration does to the taints: drops {@code karpenter.sh/unregistered}, keeps the rest. */
  private static void removeUnregisteredTaint(KubernetesClient client, String name) {
    await().atMost(WAIT).ignoreExceptionsMatching(e -> e instanceof KubernetesClientException k && k.getCode() == 409).until(() -> {
      Node node = client.nodes().withName(name).get();
      node.getSpec().setTaints(node.getSpec().getTaints().stream().filter(t -> !TaintKeys.UNREGISTERED.equals(t.getKey())).toList());
      client.nodes().resource(node).update();
      return true;
    });
  }

  /** A schedulerName no scheduler serves. */
  private static final String NO_SCHEDULER = "no-such-scheduler";

  private static Pod pod(String name) {
    return new PodBuilder(TestObjects.pausePod(name, "web", "100m", "64Mi"))
        .editSpec().withSchedulerName(NO_SCHEDULER).endSpec()
        .build();
  }

  private static PodRef ref(Pod pod) {
    return new PodRef(pod.getMetadata().getNamespace(), pod.getMetadata().getName(), pod.getMetadata().getUid());
  }
}
