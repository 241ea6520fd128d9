package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.scheduling.SchedulingHarness.pod;
import static sh.karpenter.core.scheduling.SchedulingHarness.req;
import static sh.karpenter.core.scheduling.SchedulingHarness.reqs;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * Reserved capacity (docs/behaviour/scheduling.md#reserved-capacity, upstream's ReservationManager
 * and the "Reserved Instance Types" specs): reserved offerings are preferred, each NodeClaim holds
 * one unit of every reservation it could launch into, so the NodeClaims of one pass never count on
 * more instances than a reservation has, and in Strict mode a pod whose compatible reservations are
 * all held waits for the next pass instead of falling back.
 */
class ReservedCapacityTest {
  private static final String RESERVED = Labels.CAPACITY_TYPE_RESERVED;
  private static final Map<String, String> SPREAD = Map.of("app", "spread");

  private SchedulingHarness env;

  @BeforeEach
  void setUp() {
    env = new SchedulingHarness();
  }

  /** One reserved offering: {@code capacity} instances left in reservation {@code id} in {@code zone}. */
  private static Offering reserved(String id, String zone, int capacity) {
    return new Offering(
        Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, RESERVED), Requirement.in(Labels.ZONE, zone), Requirement.in(Labels.RESERVATION_ID, id)),
        0.001,
        true,
        capacity);
  }

  /** A 4-cpu type with on-demand offerings in every test zone at $1/h, plus the given reserved offerings. */
  private static InstanceType type(String name, Offering... reservedOfferings) {
    List<Offering> offerings = new ArrayList<>();
    for (String zone : List.of("test-zone-1", "test-zone-2", "test-zone-3")) {
      offerings.add(Offering.of(zone, Labels.CAPACITY_TYPE_ON_DEMAND, 1.0, true));
    }
    offerings.addAll(List.of(reservedOfferings));
    Requirements requirements =
        Requirements.of(
            Requirement.in(Labels.INSTANCE_TYPE, name),
            Requirement.in(Labels.ARCH, "amd64"),
            Requirement.in(Labels.OS, "linux"),
            Requirement.in(Labels.ZONE, "test-zone-1", "test-zone-2", "test-zone-3"),
            Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND, RESERVED));
    return new InstanceType(name, requirements, offerings, Resources.builder().cpu("4").memory("4Gi").pods(10).build(), Overhead.NONE);
  }

  /** Pods that each need a node of their own (hostname anti-affinity to each other). */
  private static List<Pod> spreadPods(int count) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      pods.add(pod("100m").labels(SPREAD).requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(SPREAD), Labels.HOSTNAME)).build());
    }
    return pods;
  }

  private static Requirement requirement(PlannedNodeClaim claim, String key) {
    return claim.requirements().has(key) ? claim.requirements().get(key) : null;
  }

  @Test
  @DisplayName("should prefer a reserved offering and pin the NodeClaim to its reservation")
  void prefersReservedCapacity() {
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(List.of(type("reserved-type", reserved("r-1", "test-zone-1", 2)))));
    Pod pod = pod("100m").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    assertThat(requirement(claim, Labels.CAPACITY_TYPE).valueList()).containsExactly(RESERVED);
    assertThat(requirement(claim, Labels.RESERVATION_ID).valueList()).containsExactly("r-1");
    assertThat(claim.price()).isEqualTo(0.001);
  }

  @Test
  @DisplayName("should never plan more NodeClaims into a reservation than it has capacity (strict: the rest wait)")
  void countsReservationsAcrossTheNodeClaimsOfAPass() {
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(List.of(type("reserved-type", reserved("r-1", "test-zone-1", 2)))));
    List<Pod> pods = spreadPods(3);
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(2);
    for (PlannedNodeClaim claim : env.result.newNodeClaims()) {
      assertThat(requirement(claim, Labels.RESERVATION_ID).valueList()).containsExactly("r-1");
    }
    // The third pod is deferred to the next pass, not unschedulable.
    assertThat(env.result.unschedulable()).isEmpty();
    assertThat(env.result.deferred()).singleElement().satisfies(error -> {
      assertThat(error.reason()).contains("compatible reserved offerings are available, but could not be reserved");
    });
  }

  @Test
  @DisplayName("should launch beyond the reservation on other capacity in fallback mode")
  void fallbackModeLaunchesOnDemandBeyondTheReservation() {
    env.options = SchedulerOptions.DEFAULT.withReservedOfferingMode(SchedulerOptions.ReservedOfferingMode.Fallback);
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(List.of(type("reserved-type", reserved("r-1", "test-zone-1", 2)))));
    env.provision(spreadPods(3));
    List<PlannedNodeClaim> claims = env.result.newNodeClaims();
    assertThat(claims).hasSize(3);
    assertThat(claims.stream().filter(c -> c.requirements().has(Labels.RESERVATION_ID)).count()).isEqualTo(2);
    PlannedNodeClaim onDemand = claims.stream().filter(c -> !c.requirements().has(Labels.RESERVATION_ID)).findFirst().orElseThrow();
    assertThat(requirement(onDemand, Labels.CAPACITY_TYPE).valueList()).containsExactly(Labels.CAPACITY_TYPE_ON_DEMAND);
    assertThat(onDemand.price()).isEqualTo(1.0);
    assertThat(env.result.deferred()).isEmpty();
  }

  @Test
  @DisplayName("should take the least capacity reported for a reservation")
  void capacityIsTheMinimumReported() {
    env.nodePool(
        new SchedulingHarness.NodePool("default")
            .instanceTypes(List.of(type("type-a", reserved("r-1", "test-zone-1", 3)), type("type-b", reserved("r-1", "test-zone-1", 1)))));
    env.provision(spreadPods(2));
    assertThat(env.result.newNodeClaims()).hasSize(1);
    assertThat(env.result.deferred()).hasSize(1);
  }

  @Test
  @DisplayName("strict (provisioning): a full-but-available reservation does not block scheduling and holds no reservation")
  void fullReservationFallsBackToOnDemand() {
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(List.of(type("reserved-type", reserved("r-full", "test-zone-1", 0)))));
    Pod pod = pod("100m").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    assertThat(claim.requirements().has(Labels.RESERVATION_ID)).isFalse();
    assertThat(requirement(claim, Labels.CAPACITY_TYPE).valueList()).containsExactly(Labels.CAPACITY_TYPE_ON_DEMAND);
    assertThat(claim.price()).isEqualTo(1.0);
  }

  @Test
  @DisplayName("strict (provisioning): a reserved-only pool with a full reservation defers instead of launching on-demand")
  void reservedOnlyPoolWithAFullReservationDefers() {
    env.nodePool(
        new SchedulingHarness.NodePool("default")
            .require(req(Labels.CAPACITY_TYPE, Operator.In, RESERVED))
            .instanceTypes(List.of(type("reserved-type", reserved("r-full", "test-zone-1", 0)))));
    Pod pod = pod("100m").build();
    env.provision(pod);
    assertThat(env.result.newNodeClaims()).isEmpty();
    assertThat(env.result.deferred()).extracting(PodError::pod).containsExactly(pod);
  }

  @Test
  @DisplayName("fallback: a full reservation with no fallback yields no NodeClaim (pod pends, not a phantom reserved NodeClaim)")
  void reservedOnlyPoolWithAFullReservationFailsInFallbackMode() {
    env.options = SchedulerOptions.DEFAULT.withReservedOfferingMode(SchedulerOptions.ReservedOfferingMode.Fallback);
    env.nodePool(
        new SchedulingHarness.NodePool("default")
            .require(req(Labels.CAPACITY_TYPE, Operator.In, RESERVED))
            .instanceTypes(List.of(type("reserved-type", reserved("r-full", "test-zone-1", 0)))));
    Pod pod = pod("100m").build();
    env.provision(pod);
    assertThat(env.result.newNodeClaims()).isEmpty();
    assertThat(env.result.deferred()).isEmpty();
    env.expectNotScheduled(pod, "reservations are full");
  }

  @Test
  @DisplayName("fallback: falls through to a lower-weight on-demand NodePool when the higher-weight reserved NodePool's reservation is full")
  void fullReservationFallsThroughToALowerWeightNodePool() {
    env.options = SchedulerOptions.DEFAULT.withReservedOfferingMode(SchedulerOptions.ReservedOfferingMode.Fallback);
    List<InstanceType> types = List.of(type("reserved-type", reserved("r-full", "test-zone-1", 0)));
    env.nodePool(new SchedulingHarness.NodePool("reserved").weight(100).require(req(Labels.CAPACITY_TYPE, Operator.In, RESERVED)).instanceTypes(types));
    env.nodePool(
        new SchedulingHarness.NodePool("on-demand").weight(1).require(req(Labels.CAPACITY_TYPE, Operator.In, Labels.CAPACITY_TYPE_ON_DEMAND)).instanceTypes(types));
    Pod pod = pod("100m").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    assertThat(claim.nodePoolName()).isEqualTo("on-demand");
    assertThat(requirement(claim, Labels.CAPACITY_TYPE).valueList()).containsExactly(Labels.CAPACITY_TYPE_ON_DEMAND);
  }

  @Test
  @DisplayName("should price a replacement at a launchable offering, not at a full reservation (consolidation savings)")
  void replacementIsPricedAtALaunchableOffering() {
    InstanceType phantom = type("phantom-cheap", reserved("r-full", "test-zone-1", 0));
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(List.of(phantom)));
    Pod pod = pod("100m").build();
    env.provision(pod);
    PlannedNodeClaim claim = env.expectScheduled(pod);
    // Consolidation narrows a replacement to the types it keeps, under requirements that still allow reserved capacity.
    Requirements allowingReserved = claim.requirements().copy();
    allowingReserved.put(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND, RESERVED));
    PlannedNodeClaim replacement = claim.withInstanceTypeOptions(List.of(phantom), allowingReserved);
    assertThat(replacement.cheapestOffering().capacityType()).isEqualTo(Labels.CAPACITY_TYPE_ON_DEMAND);
    assertThat(replacement.price()).isEqualTo(1.0);
  }

  @Test
  @DisplayName("shouldn't fallback to a lower weight NodePool if a reserved offering is available")
  void noFallbackToALowerWeightNodePool() {
    List<InstanceType> types = List.of(type("reserved-type", reserved("r-1", "test-zone-1", 1)));
    env.nodePool(new SchedulingHarness.NodePool("reserved").weight(100).instanceTypes(types));
    env.nodePool(
        new SchedulingHarness.NodePool("on-demand").require(req(Labels.CAPACITY_TYPE, Operator.In, Labels.CAPACITY_TYPE_ON_DEMAND)).instanceTypes(types));
    List<Pod> pods = spreadPods(2);
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).singleElement().satisfies(claim -> assertThat(claim.nodePoolName()).isEqualTo("reserved"));
    assertThat(env.result.deferred()).hasSize(1);
    assertThat(env.result.deferred().getFirst().reason()).contains("nodepool \"reserved\"").doesNotContain("on-demand");
  }

  @Test
  @DisplayName("shouldn't relax preferences when a pod fails to schedule due to a reserved offering error")
  void noRelaxationOnAReservedOfferingError() {
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(List.of(type("reserved-type", reserved("r-1", "test-zone-1", 1)))));
    Pod first = spreadPods(1).getFirst().toBuilder().nodeSelector(Map.of(Labels.ZONE, "test-zone-1")).build();
    // Its first term meets the held reservation; relaxing to the second (zone 2, no reservation) would let it launch.
    Pod second =
        spreadPods(1).getFirst().toBuilder()
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "test-zone-1")))
            .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "test-zone-2")))
            .build();
    env.provision(first, second);
    env.expectScheduled(first);
    assertThat(env.result.deferred()).extracting(PodError::pod).containsExactly(second);
  }

  @Test
  @DisplayName("should not let a pod narrow a NodeClaim away from every reservation it holds")
  void podsCannotStripANodeClaimOfItsReservations() {
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(List.of(type("reserved-type", reserved("r-1", "test-zone-1", 1)))));
    Pod first = pod("100m").build();
    Pod zoneTwo = pod("100m").nodeSelector(Map.of(Labels.ZONE, "test-zone-2")).build();
    env.provision(first, zoneTwo);
    PlannedNodeClaim reservedClaim = env.expectScheduled(first);
    PlannedNodeClaim other = env.expectScheduled(zoneTwo);
    assertThat(other).isNotSameAs(reservedClaim);
    assertThat(requirement(reservedClaim, Labels.RESERVATION_ID).valueList()).containsExactly("r-1");
    assertThat(requirement(other, Labels.CAPACITY_TYPE).valueList()).containsExactly(Labels.CAPACITY_TYPE_ON_DEMAND);
  }
}
