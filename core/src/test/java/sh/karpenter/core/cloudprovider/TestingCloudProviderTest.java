package sh.karpenter.core.cloudprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Labels;

class TestingCloudProviderTest {

  private static final Overhead OVERHEAD =
      new Overhead(Resources.builder().cpu("100m").memory("100Mi").build(), Resources.EMPTY, Resources.EMPTY);

  /** small: 2 CPU, cheap; large: 8 CPU, expensive; both on-demand in zone-a and spot in zone-b. */
  private static InstanceType type(String name, String cpu, double onDemand, double spot) {
    return new InstanceType(
        name,
        Requirements.of(
            Requirement.in(Labels.INSTANCE_TYPE, name),
            Requirement.in(Labels.ARCH, "amd64"),
            Requirement.in(Labels.OS, "linux", "windows"),
            Requirement.in(Labels.ZONE, "zone-a", "zone-b"),
            Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_SPOT)),
        List.of(
            Offering.of("zone-a", Labels.CAPACITY_TYPE_ON_DEMAND, onDemand, true),
            Offering.of("zone-b", Labels.CAPACITY_TYPE_SPOT, spot, true)),
        Resources.builder().cpu(cpu).memory("8Gi").pods(110).build(),
        OVERHEAD);
  }

  private static final InstanceType SMALL = type("small", "2", 1.0, 0.4);
  private static final InstanceType LARGE = type("large", "8", 4.0, 1.6);

  private static LaunchRequest request(String cpu, Requirement... requirements) {
    return new LaunchRequest(
        "default-abcde",
        "default",
        TestingCloudProvider.NODE_CLASS,
        Requirements.of(requirements),
        Resources.builder().cpu(cpu).build(),
        Map.of(Labels.NODE_POOL, "default", "team", "a"),
        List.of(),
        List.of(Taint.of("example.com/startup", Taint.Effect.NoSchedule)));
  }

  @Test
  void createPicksTheCheapestAvailableOfferingOfTheCheapestTypeThatFits() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of(LARGE, SMALL));

    Instance instance = provider.create(request("1", Requirement.in(Labels.OS, "linux")));

    assertThat(instance.providerId()).isEqualTo("fake://1");
    assertThat(instance.instanceType()).isEqualTo("small");
    assertThat(instance.zone()).isEqualTo("zone-b");
    assertThat(instance.capacityType()).isEqualTo(Labels.CAPACITY_TYPE_SPOT);
    assertThat(instance.capacity()).isEqualTo(SMALL.capacity());
    assertThat(instance.allocatable()).isEqualTo(SMALL.allocatable());
    assertThat(instance.labels())
        .containsEntry(Labels.INSTANCE_TYPE, "small")
        .containsEntry(Labels.ZONE, "zone-b")
        .containsEntry(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT)
        .containsEntry(Labels.ARCH, "amd64")
        .containsEntry(Labels.OS, "linux")
        .containsEntry(Labels.NODE_POOL, "default")
        .containsEntry("team", "a");
    assertThat(provider.createCalls()).hasSize(1);
    assertThat(provider.get("fake://1")).contains(instance);
    assertThat(provider.list()).containsExactly(instance);
  }

  @Test
  void createHonoursRequirementsAndRequests() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of(SMALL, LARGE));

    assertThat(provider.create(request("4")).instanceType()).isEqualTo("large");
    Instance onDemand = provider.create(request("1", Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND)));
    assertThat(onDemand.instanceType()).isEqualTo("small");
    assertThat(onDemand.zone()).isEqualTo("zone-a");
    assertThat(provider.create(request("1", Requirement.in(Labels.INSTANCE_TYPE, "large"))).instanceType()).isEqualTo("large");
  }

  @Test
  void insufficientCapacityMovesToTheNextCheapestOfferingAndFailsWhenNoneIsLeft() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of(SMALL, LARGE));
    provider.insufficientCapacity(pool -> pool.instanceType().equals("small") && pool.capacityType().equals("spot"));

    Instance instance = provider.create(request("1"));
    assertThat(instance.instanceType()).isEqualTo("small");
    assertThat(instance.capacityType()).isEqualTo(Labels.CAPACITY_TYPE_ON_DEMAND);

    provider.insufficientCapacity(pool -> pool.instanceType().equals("small"));
    assertThat(provider.create(request("1")).instanceType()).isEqualTo("large");

    provider.insufficientCapacity(pool -> true);
    assertThatThrownBy(() -> provider.create(request("1")))
        .isInstanceOf(InsufficientCapacityException.class)
        .hasMessageContaining("small")
        .hasMessageContaining("large");
    assertThat(provider.list()).hasSize(2);
  }

  @Test
  void nothingFitsIsInsufficientCapacity() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of(SMALL, LARGE));

    assertThatThrownBy(() -> provider.create(request("16"))).isInstanceOf(InsufficientCapacityException.class);
    assertThatThrownBy(() -> provider.create(request("1", Requirement.in(Labels.ARCH, "arm64"))))
        .isInstanceOf(InsufficientCapacityException.class);
    assertThat(provider.createCalls()).hasSize(2);
  }

  @Test
  void nextCreateErrorFailsOnlyTheNextCreate() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of(SMALL));
    provider.nextCreateError(new CreateException("LaunchFailed", "boom", null));

    assertThatThrownBy(() -> provider.create(request("1")))
        .isInstanceOfSatisfying(CreateException.class, e -> assertThat(e.reason()).isEqualTo("LaunchFailed"));
    assertThat(provider.create(request("1")).providerId()).isEqualTo("fake://1");
    assertThat(provider.createCalls()).hasSize(2);
  }

  @Test
  void reservedOfferingsArePreferredWhileTheReservationLasts() {
    Offering reserved =
        new Offering(
            Requirements.of(
                Requirement.in(Labels.ZONE, "zone-a"),
                Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED),
                Requirement.in(Labels.RESERVATION_ID, "cr-1")),
            3.0,
            true,
            1);
    InstanceType withReservation =
        new InstanceType(
            "reserved-type",
            LARGE.requirements(),
            List.of(reserved, Offering.of("zone-a", Labels.CAPACITY_TYPE_ON_DEMAND, 5.0, true)),
            LARGE.capacity(),
            OVERHEAD);
    TestingCloudProvider provider = new TestingCloudProvider(List.of(SMALL, withReservation));

    Instance first = provider.create(request("1"));
    assertThat(first.capacityType()).isEqualTo(Labels.CAPACITY_TYPE_RESERVED);
    assertThat(first.labels()).containsEntry(Labels.RESERVATION_ID, "cr-1");
    assertThat(provider.create(request("1")).instanceType()).isEqualTo("small");
  }

  @Test
  void deleteRemovesTheInstanceAndThenAnswersNotFound() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of(SMALL));
    Instance instance = provider.create(request("1"));

    provider.delete(instance.providerId());

    assertThat(provider.get(instance.providerId())).isEmpty();
    assertThat(provider.list()).isEmpty();
    assertThatThrownBy(() -> provider.delete(instance.providerId())).isInstanceOf(NodeClaimNotFoundException.class);
    assertThat(provider.deleteCalls()).containsExactly(instance.providerId(), instance.providerId());
  }

  @Test
  void driftRepairAndSupportedNodeClasses() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of(SMALL));
    Instance instance = provider.create(request("1"));

    assertThat(provider.driftReason(instance.providerId(), TestingCloudProvider.NODE_CLASS)).isEmpty();
    provider.drift(instance.providerId(), "NodeClassDrift");
    assertThat(provider.driftReason(instance.providerId(), TestingCloudProvider.NODE_CLASS)).isEqualTo("NodeClassDrift");
    assertThat(provider.repairPolicies()).containsExactly(TestingCloudProvider.DEFAULT_REPAIR_POLICY);
    assertThat(provider.supportedNodeClasses()).containsExactly(TestingCloudProvider.NODE_CLASS);
    assertThat(provider.instanceTypes("default", TestingCloudProvider.NODE_CLASS)).containsExactly(SMALL);
  }

  @Test
  void resetForgetsEverythingButTheCatalogue() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of(SMALL));
    provider.create(request("1"));
    provider.insufficientCapacity(pool -> true);
    provider.nextCreateError(new CreateException("X", "x", null));
    provider.putInstance(
        new Instance("fake://orphan", "small", "zone-a", "on-demand", Map.of(), Map.of(), Resources.EMPTY, Resources.EMPTY, ""));

    provider.reset();

    assertThat(provider.list()).isEmpty();
    assertThat(provider.createCalls()).isEmpty();
    assertThat(provider.create(request("1")).instanceType()).isEqualTo("small");
  }
}
