package sh.karpenter.testkit.kwok;

import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClassSpec;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.CreateException;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;

/** The KWOK cloud provider against the real control plane: its Nodes, KWOK turning them Ready, failures. */
@ControlPlaneTest
class KwokCloudProviderIT {

  private static final InstanceTypeCatalog CATALOG = InstanceTypeCatalog.kwok();
  private static final String C1 = "c-1x-amd64-linux";
  private static final String C2 = "c-2x-amd64-linux";
  private static final NodeClassRef DEFAULT_CLASS = new NodeClassRef(KWOKNodeClass.GROUP, KWOKNodeClass.KIND, "default");

  private static KwokCloudProvider provider(KubernetesClient client, Clock clock) {
    return new KwokCloudProvider(client, CATALOG, clock, new Random(42));
  }

  private static void nodeClass(KubernetesClient client, String name, String registrationDelay) {
    KWOKNodeClass nodeClass = new KWOKNodeClass();
    nodeClass.setMetadata(new ObjectMetaBuilder().withName(name).build());
    KWOKNodeClassSpec spec = new KWOKNodeClassSpec();
    spec.setNodeRegistrationDelay(registrationDelay == null ? null : GoDuration.parse(registrationDelay));
    nodeClass.setSpec(spec);
    client.resources(KWOKNodeClass.class).resource(nodeClass).create();
  }

  private static LaunchRequest request(String nodeClaim, NodeClassRef nodeClass, String cpu, Requirement... requirements) {
    return new LaunchRequest(
        nodeClaim,
        "default",
        nodeClass,
        Requirements.of(requirements),
        Resources.builder().cpu(cpu).build(),
        Map.of(Labels.NODE_POOL, "default", "team", "a"),
        List.of(new Taint("dedicated", "gpu", Taint.Effect.NoSchedule)),
        List.of(Taint.of("example.com/startup", Taint.Effect.NoExecute)));
  }

  private static String nodeName(Instance instance) {
    return instance.providerId().substring(KwokCloudProvider.PROVIDER_ID_PREFIX.length());
  }

  private static InstanceType type(String name) {
    return CATALOG.instanceTypes().stream().filter(t -> t.name().equals(name)).findFirst().orElseThrow();
  }

  private static Map<String, Quantity> quantities(Resources resources) {
    return resources.toQuantities().entrySet().stream()
        .collect(java.util.stream.Collectors.toMap(Map.Entry::getKey, e -> new Quantity(e.getValue())));
  }

  @Test
  void createLaunchesANodeAsAKubeletWouldRegisterItAndKwokTurnsItReady(KubernetesClient client) {
    nodeClass(client, "default", null);
    try (KwokCloudProvider provider = provider(client, Clock.systemUTC())) {
      Instance instance = provider.create(request(
          "default-abcde", DEFAULT_CLASS, "1", Requirement.in(Labels.INSTANCE_TYPE, C2), Requirement.in(Labels.ZONE, "test-zone-b"),
          Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND)));

      assertThat(instance.instanceType()).isEqualTo(C2);
      assertThat(instance.zone()).isEqualTo("test-zone-b");
      assertThat(instance.capacityType()).isEqualTo(Labels.CAPACITY_TYPE_ON_DEMAND);
      assertThat(instance.capacity()).isEqualTo(type(C2).capacity());
      assertThat(instance.allocatable()).isEqualTo(type(C2).allocatable());
      String name = nodeName(instance);
      assertThat(name).startsWith("default-abcde-");

      Node node = client.nodes().withName(name).waitUntilCondition(KwokCloudProviderIT::isReady, 2, MINUTES);

      assertThat(node.getSpec().getProviderID()).isEqualTo(instance.providerId());
      assertThat(node.getMetadata().getAnnotations()).containsEntry(Annotations.KWOK_NODE, Annotations.KWOK_NODE_VALUE);
      assertThat(node.getMetadata().getLabels())
          .containsEntry(Labels.HOSTNAME, name)
          .containsEntry(Labels.INSTANCE_TYPE, C2)
          .containsEntry(Labels.ZONE, "test-zone-b")
          .containsEntry(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND)
          .containsEntry(Labels.ARCH, "amd64")
          .containsEntry(Labels.OS, "linux")
          .containsEntry(Labels.KWOK_INSTANCE_CPU, "2")
          .containsEntry(Labels.NODE_POOL, "default")
          .containsEntry("team", "a")
          .containsEntry(KwokCloudProvider.PROVIDER_LABEL, KwokCloudProvider.PROVIDER_LABEL_VALUE);
      assertThat(node.getSpec().getTaints())
          .extracting(t -> t.getKey() + "=" + Objects.toString(t.getValue(), "") + ":" + t.getEffect())
          .contains("dedicated=gpu:NoSchedule", "example.com/startup=:NoExecute", TaintKeys.UNREGISTERED + "=:NoExecute");
      assertThat(node.getStatus().getCapacity()).isEqualTo(quantities(type(C2).capacity()));
      assertThat(node.getStatus().getAllocatable()).isEqualTo(quantities(type(C2).allocatable()));
      assertThat(provider.get(instance.providerId())).hasValueSatisfying(found -> {
        assertThat(found.instanceType()).isEqualTo(C2);
        assertThat(found.zone()).isEqualTo("test-zone-b");
        assertThat(found.capacity()).isEqualTo(type(C2).capacity());
      });
    }
  }

  @Test
  void aBlockedCheapestOfferingMakesCreatePickTheNextCheapest(KubernetesClient client) {
    nodeClass(client, "default", null);
    try (KwokCloudProvider provider = provider(client, Clock.systemUTC())) {
      Requirement types = Requirement.in(Labels.INSTANCE_TYPE, C1, C2);
      Requirement zone = Requirement.in(Labels.ZONE, "test-zone-a");

      Instance cheapest = provider.create(request("cheapest", DEFAULT_CLASS, "500m", types, zone));
      assertThat(cheapest.instanceType()).isEqualTo(C1);
      assertThat(cheapest.capacityType()).isEqualTo(Labels.CAPACITY_TYPE_SPOT);

      provider.failures().blockOffering(C1, "test-zone-a", Labels.CAPACITY_TYPE_SPOT);
      Instance next = provider.create(request("next", DEFAULT_CLASS, "500m", types, zone));
      assertThat(next.instanceType()).isEqualTo(C1);
      assertThat(next.capacityType()).isEqualTo(Labels.CAPACITY_TYPE_ON_DEMAND);

      provider.failures().blockInstanceType(C1);
      Instance larger = provider.create(request("larger", DEFAULT_CLASS, "500m", types, zone));
      assertThat(larger.instanceType()).isEqualTo(C2);
      assertThat(larger.capacityType()).isEqualTo(Labels.CAPACITY_TYPE_SPOT);

      Node node = client.nodes().withName(nodeName(larger)).waitUntilCondition(Objects::nonNull, 2, MINUTES);
      assertThat(node.getMetadata().getLabels())
          .containsEntry(Labels.INSTANCE_TYPE, C2)
          .containsEntry(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT)
          .containsEntry(Labels.ZONE, "test-zone-a");
    }
  }

  @Test
  void everyOfferingBlockedIsInsufficientCapacityAndLaunchesNothing(KubernetesClient client) {
    nodeClass(client, "default", null);
    try (KwokCloudProvider provider = provider(client, Clock.systemUTC())) {
      provider.failures().blockZone("test-zone-a");

      assertThatThrownBy(() -> provider.create(request(
              "blocked", DEFAULT_CLASS, "500m", Requirement.in(Labels.INSTANCE_TYPE, C1, C2), Requirement.in(Labels.ZONE, "test-zone-a"))))
          .isInstanceOf(InsufficientCapacityException.class)
          .hasMessageContaining(C1)
          .hasMessageContaining(C2);
      assertThat(provider.list()).isEmpty();
      assertThat(provider.pendingNodes()).isZero();
    }
  }

  @Test
  void deleteRemovesTheNodeAndThenAnswersNotFound(KubernetesClient client) {
    nodeClass(client, "default", null);
    try (KwokCloudProvider provider = provider(client, Clock.systemUTC())) {
      Instance instance = provider.create(request("doomed", DEFAULT_CLASS, "500m", Requirement.in(Labels.INSTANCE_TYPE, C1)));
      String name = nodeName(instance);
      client.nodes().withName(name).waitUntilCondition(Objects::nonNull, 2, MINUTES);

      provider.delete(instance.providerId());

      client.nodes().withName(name).waitUntilCondition(Objects::isNull, 2, MINUTES);
      assertThatThrownBy(() -> provider.delete(instance.providerId())).isInstanceOf(NodeClaimNotFoundException.class);
      assertThat(provider.get(instance.providerId())).isEmpty();
      assertThat(provider.list()).isEmpty();
    }
  }

  @Test
  void listAndGetSeeOnlyThisProvidersNodes(KubernetesClient client) {
    nodeClass(client, "default", null);
    client.nodes().resource(sh.karpenter.testkit.controlplane.KwokNodes.node("not-ours", "4", "8Gi")).create();
    try (KwokCloudProvider provider = provider(client, Clock.systemUTC())) {
      Instance a = provider.create(request("a", DEFAULT_CLASS, "500m", Requirement.in(Labels.INSTANCE_TYPE, C1)));
      Instance b = provider.create(request("b", DEFAULT_CLASS, "1", Requirement.in(Labels.INSTANCE_TYPE, C2)));
      await().atMost(Duration.ofMinutes(2)).until(() -> provider.pendingNodes() == 0);

      assertThat(provider.list()).extracting(Instance::providerId).containsExactlyInAnyOrder(a.providerId(), b.providerId());
      assertThat(provider.get(b.providerId())).hasValueSatisfying(found -> {
        assertThat(found.instanceType()).isEqualTo(C2);
        assertThat(found.zone()).isEqualTo(b.zone());
        assertThat(found.capacityType()).isEqualTo(b.capacityType());
        assertThat(found.allocatable()).isEqualTo(type(C2).allocatable());
        assertThat(found.labels()).containsAllEntriesOf(b.labels());
      });
      assertThat(provider.get("kwok://not-ours")).isEmpty();
      assertThat(provider.get("kwok://missing")).isEmpty();
      assertThat(provider.get("aws:///us-east-1a/i-0123")).isEmpty();
      assertThatThrownBy(() -> provider.delete("kwok://not-ours")).isInstanceOf(NodeClaimNotFoundException.class);
    }
  }

  @Test
  void theNodeAppearsOnceTheNodeClassRegistrationDelayHasPassedOnTheClock(KubernetesClient client) {
    nodeClass(client, "slow", "1h");
    TestingClock clock = new TestingClock();
    try (KwokCloudProvider provider = provider(client, clock)) {
      Instance instance = provider.create(request(
          "slow-node", new NodeClassRef(KWOKNodeClass.GROUP, KWOKNodeClass.KIND, "slow"), "500m", Requirement.in(Labels.INSTANCE_TYPE, C1)));

      assertThat(provider.get(instance.providerId())).contains(instance);
      assertThat(provider.list()).containsExactly(instance);
      assertThat(provider.pendingNodes()).isEqualTo(1);
      assertThat(client.nodes().withName(nodeName(instance)).get()).isNull();

      clock.step(Duration.ofHours(1));

      client.nodes().withName(nodeName(instance)).waitUntilCondition(KwokCloudProviderIT::isReady, 2, MINUTES);
      // KWOK may turn the Node Ready before the provider's create call has returned.
      await().atMost(Duration.ofMinutes(2)).until(() -> provider.pendingNodes() == 0);
    }
  }

  @Test
  void aMissingNodeClassIsNotReady(KubernetesClient client) {
    try (KwokCloudProvider provider = provider(client, Clock.systemUTC())) {
      assertThatThrownBy(() -> provider.create(request(
              "orphan", new NodeClassRef(KWOKNodeClass.GROUP, KWOKNodeClass.KIND, "missing"), "500m")))
          .isInstanceOf(NodeClassNotReadyException.class)
          .hasMessageContaining("missing");
    }
  }

  @Test
  void injectedCreateFailuresAndSkippedNodes(KubernetesClient client) {
    nodeClass(client, "default", null);
    try (KwokCloudProvider provider = provider(client, Clock.systemUTC())) {
      provider.failures().failNextCreates(1, "TestFailure");
      assertThatThrownBy(() -> provider.create(request("fails", DEFAULT_CLASS, "500m")))
          .isInstanceOfSatisfying(CreateException.class, e -> assertThat(e.reason()).isEqualTo("TestFailure"));

      provider.failures().skipNodeCreation(true);
      Instance ghost = provider.create(request("ghost", DEFAULT_CLASS, "500m", Requirement.in(Labels.INSTANCE_TYPE, C1)));
      assertThat(provider.get(ghost.providerId())).contains(ghost);
      assertThat(provider.list()).containsExactly(ghost);
      assertThat(client.nodes().withName(nodeName(ghost)).get()).isNull();

      provider.delete(ghost.providerId());
      assertThatThrownBy(() -> provider.delete(ghost.providerId())).isInstanceOf(NodeClaimNotFoundException.class);
      assertThat(provider.list()).isEmpty();
    }
  }

  private static boolean isReady(Node node) {
    return node != null && node.getStatus() != null && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
