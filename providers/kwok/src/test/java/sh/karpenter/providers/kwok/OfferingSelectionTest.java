package sh.karpenter.providers.kwok;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.KwokInstanceTypes;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.providers.kwok.OfferingSelection.Selection;

class OfferingSelectionTest {

  private static final List<InstanceType> KWOK = KwokInstanceTypes.generated();

  private static LaunchRequest request(String cpu, Requirement... requirements) {
    return new LaunchRequest(
        "default-x7k2p",
        "default",
        new sh.karpenter.core.cloudprovider.NodeClassRef("karpenter.kwok.sh", "KWOKNodeClass", "default"),
        Requirements.of(requirements),
        Resources.builder().cpu(cpu).build(),
        Map.of(Labels.NODE_POOL, "default", Labels.KWOK_INSTANCE_FAMILY, "user-wins"),
        List.of(Taint.of("dedicated", Taint.Effect.NoSchedule)),
        List.of(Taint.of("example.com/startup", Taint.Effect.NoSchedule)));
  }

  @Test
  void picksTheCheapestCompatibleOfferingOfATypeThatFits() {
    Selection s = OfferingSelection.select(
        KWOK, request("1500m", Requirement.in(Labels.OS, "linux"), Requirement.in(Labels.ARCH, "amd64")), new KwokFailures(), new Random(1));

    assertThat(s.instanceType().name()).isEqualTo("c-2x-amd64-linux");
    assertThat(s.offering().capacityType()).isEqualTo(Labels.CAPACITY_TYPE_SPOT);
  }

  @Test
  void tiesAreBrokenAtRandom() {
    Set<String> zones = new HashSet<>();
    Random random = new Random(7);
    LaunchRequest request = request("500m", Requirement.in(Labels.INSTANCE_TYPE, "c-1x-amd64-linux"));
    for (int i = 0; i < 50; i++) {
      zones.add(OfferingSelection.select(KWOK, request, new KwokFailures(), random).offering().zone());
    }
    assertThat(zones).containsExactlyInAnyOrderElementsOf(KwokInstanceTypes.ZONES);
  }

  @Test
  void blockedOfferingsAreSkippedAndWhenAllAreBlockedItIsInsufficientCapacity() {
    LaunchRequest request = request(
        "500m", Requirement.in(Labels.INSTANCE_TYPE, "c-1x-amd64-linux", "c-2x-amd64-linux"), Requirement.in(Labels.ZONE, "test-zone-a"));
    KwokFailures failures = new KwokFailures().blockOffering("c-1x-amd64-linux", "test-zone-a", Labels.CAPACITY_TYPE_SPOT);

    Selection next = OfferingSelection.select(KWOK, request, failures, new Random(1));
    assertThat(next.instanceType().name()).isEqualTo("c-1x-amd64-linux");
    assertThat(next.offering().capacityType()).isEqualTo(Labels.CAPACITY_TYPE_ON_DEMAND);

    failures.blockZone("test-zone-a");
    assertThatThrownBy(() -> OfferingSelection.select(KWOK, request, failures, new Random(1)))
        .isInstanceOf(InsufficientCapacityException.class)
        .hasMessageContaining("c-1x-amd64-linux, c-2x-amd64-linux")
        .hasMessageContaining("4 offering(s) out of capacity");
  }

  @Test
  void nothingFitsIsInsufficientCapacity() {
    assertThatThrownBy(() -> OfferingSelection.select(
            KWOK, request("1", Requirement.in(Labels.ARCH, "s390x")), new KwokFailures(), new Random(1)))
        .isInstanceOf(InsufficientCapacityException.class)
        .hasMessageContaining("no instance type that is compatible and large enough");
    assertThatThrownBy(() -> OfferingSelection.select(KWOK, request("1000"), new KwokFailures(), new Random(1)))
        .isInstanceOf(InsufficientCapacityException.class)
        .hasMessageContaining("too small");
  }

  @Test
  void theNodeLooksAsAKubeletStartedByKarpenterRegistersIt() {
    LaunchRequest request = request("1", Requirement.in(Labels.INSTANCE_TYPE, "m-4x-arm64-linux"), Requirement.in("team", "a"));
    Selection s = OfferingSelection.select(KWOK, request, new KwokFailures().blockCapacityType("spot"), new Random(1));
    String name = ProviderNodes.nodeName(request.nodeClaimName(), new Random(1));
    Map<String, String> labels = ProviderNodes.labels(name, s, request);
    Node node = ProviderNodes.node(name, labels, ProviderNodes.taints(request), s);
    Instance instance = ProviderNodes.instance(name, labels, s);

    assertThat(name).matches("default-x7k2p-[a-z0-9]{5}");
    assertThat(node.getMetadata().getLabels())
        .containsEntry(Labels.INSTANCE_TYPE, "m-4x-arm64-linux")
        .containsEntry(Labels.ARCH, "arm64")
        .containsEntry(Labels.OS, "linux")
        .containsEntry(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND)
        .containsEntry(Labels.ZONE, s.offering().zone())
        .containsEntry(Labels.KWOK_INSTANCE_FAMILY, "user-wins")
        .containsEntry(Labels.NODE_POOL, "default")
        .containsEntry("team", "a")
        .containsEntry(Labels.HOSTNAME, name)
        .containsEntry(KwokCloudProvider.PROVIDER_LABEL, KwokCloudProvider.PROVIDER_LABEL_VALUE);
    assertThat(node.getMetadata().getAnnotations()).containsEntry(Annotations.KWOK_NODE, Annotations.KWOK_NODE_VALUE);
    assertThat(node.getSpec().getProviderID()).isEqualTo("kwok://" + name);
    assertThat(node.getSpec().getTaints())
        .extracting(t -> t.getKey() + ":" + t.getEffect())
        .containsExactly("dedicated:NoSchedule", "example.com/startup:NoSchedule", TaintKeys.UNREGISTERED + ":NoExecute");
    assertThat(ProviderNodes.resources(node.getStatus().getCapacity())).isEqualTo(s.instanceType().capacity());
    assertThat(ProviderNodes.resources(node.getStatus().getAllocatable())).isEqualTo(s.instanceType().allocatable());
    assertThat(ProviderNodes.instance(node)).isEqualTo(instance);
    assertThat(instance.zone()).isEqualTo(s.offering().zone());
  }

  @Test
  void nodeNamesAreShortDnsLabels() {
    String name = ProviderNodes.nodeName("A".repeat(100) + "_x", new Random(3));
    assertThat(name).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9]*[a-z0-9])?");
    assertThat(ProviderNodes.nodeName("", new Random(3))).startsWith("kwok-");
  }
}
