package sh.karpenter.core.instancetype;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

class InstanceTypeTest {
  static InstanceType type(String name, String family, double onDemand, double spot) {
    return new InstanceType(
        name,
        Requirements.of(Requirement.in(Labels.INSTANCE_TYPE, name), Requirement.in("family", family)),
        List.of(
            Offering.of("zone-1", Labels.CAPACITY_TYPE_ON_DEMAND, onDemand, true),
            Offering.of("zone-2", Labels.CAPACITY_TYPE_SPOT, spot, true),
            Offering.of("zone-3", Labels.CAPACITY_TYPE_SPOT, spot / 2, false)),
        Resources.builder().cpu("4").memory("16Gi").pods(110).build(),
        new Overhead(
            Resources.builder().cpu("80m").memory("893Mi").build(),
            Resources.builder().cpu("20m").build(),
            Resources.builder().memory("100Mi").build()));
  }

  static final InstanceType SMALL = type("small", "a", 1.0, 0.4);
  static final InstanceType LARGE = type("large", "b", 2.0, 0.3);
  static final InstanceType OTHER = type("other", "b", 1.0, 0.5);

  @Test
  void allocatableIsCapacityMinusOverhead() {
    assertThat(SMALL.allocatable()).isEqualTo(Resources.builder().cpu("3900m").memory("15391Mi").pods(110).build());
    assertThat(SMALL.overhead().total()).isEqualTo(Resources.builder().cpu("100m").memory("993Mi").build());
    InstanceType tiny = new InstanceType("tiny", new Requirements(), List.of(), Resources.builder().cpu("50m").build(), SMALL.overhead());
    assertThat(tiny.allocatable()).isEqualTo(Resources.EMPTY);
  }

  @Test
  void cheapestOfferingHonoursRequirementsAndAvailability() {
    assertThat(SMALL.cheapestOffering(new Requirements()).price()).isEqualTo(0.4);
    Requirements onDemand = Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, "on-demand"));
    assertThat(SMALL.cheapestOffering(onDemand).zone()).isEqualTo("zone-1");
    Requirements zone3 = Requirements.of(Requirement.in(Labels.ZONE, "zone-3"));
    assertThat(SMALL.cheapestOffering(zone3)).isNull();
    assertThat(SMALL.cheapestPrice(zone3)).isEqualTo(Double.MAX_VALUE);
    Requirements notZone2 = Requirements.of(Requirement.notIn(Labels.ZONE, "zone-2"));
    assertThat(SMALL.cheapestOffering(notZone2).capacityType()).isEqualTo("on-demand");
    // an offering's own labels never count as undefined
    assertThat(SMALL.cheapestOffering(Requirements.of(Requirement.in("unrelated", "x")))).isNotNull();
  }

  @Test
  void cheapestLaunchablePriceIsTheLeastLaunchableOffering() {
    assertThat(SMALL.cheapestLaunchablePrice()).isEqualTo(0.4); // not zone-3's 0.2: unavailable
    InstanceType none = new InstanceType("none", new Requirements(), List.of(Offering.of("zone-1", "spot", 0.1, false)), SMALL.capacity(), null);
    assertThat(none.cheapestLaunchablePrice()).isEqualTo(Double.MAX_VALUE);
  }

  /** Consolidation skips a type whose cheapest launchable offering is at the cap: no launch price of it is lower. */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void noWorstLaunchPriceIsBelowTheCheapestLaunchablePrice(long seed) {
    Random random = new Random(seed);
    List<String> zones = List.of("zone-1", "zone-2", "zone-3");
    List<String> capacityTypes = List.of(Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_SPOT);
    for (int round = 0; round < 200; round++) {
      List<Offering> offerings = new ArrayList<>();
      for (int i = random.nextInt(7); i > 0; i--) {
        offerings.add(Offering.of(zones.get(random.nextInt(3)), capacityTypes.get(random.nextInt(2)), 0.01 * random.nextInt(50), random.nextInt(4) > 0));
      }
      InstanceType type = new InstanceType("t", new Requirements(), offerings, SMALL.capacity(), null);
      Requirements reqs = new Requirements();
      if (random.nextBoolean()) {
        reqs.add(Requirement.in(Labels.ZONE, zones.get(random.nextInt(3))));
      }
      if (random.nextBoolean()) {
        reqs.add(Requirement.in(Labels.CAPACITY_TYPE, capacityTypes.get(random.nextInt(2))));
      }
      double worst = InstanceTypes.worstLaunchPrice(type.offerings(), reqs);
      assertThat(worst).as("seed %d round %d: %s under %s", seed, round, offerings, reqs).isGreaterThanOrEqualTo(type.cheapestLaunchablePrice());
    }
  }

  @Test
  void offeringCompatibilityWithReservations() {
    Offering reserved =
        new Offering(
            Requirements.of(
                Requirement.in(Labels.ZONE, "zone-1"),
                Requirement.in(Labels.CAPACITY_TYPE, "reserved"),
                Requirement.in(Labels.RESERVATION_ID, "cr-1")),
            0.1,
            true,
            3);
    assertThat(reserved.isReserved()).isTrue();
    assertThat(reserved.reservationId()).isEqualTo("cr-1");
    assertThat(reserved.isCompatible(new Requirements())).isTrue();
    assertThat(reserved.isCompatible(Requirements.of(Requirement.in(Labels.RESERVATION_ID, "cr-2")))).isFalse();
    assertThat(reserved.isCompatible(Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, "spot", "reserved")))).isTrue();
  }

  @Test
  void cheapestOfferingConsidersReservations() {
    Offering reserved =
        new Offering(
            Requirements.of(
                Requirement.in(Labels.ZONE, "zone-1"),
                Requirement.in(Labels.CAPACITY_TYPE, "reserved"),
                Requirement.in(Labels.RESERVATION_ID, "cr-1")),
            0.05,
            true,
            1);
    InstanceType withReservation =
        new InstanceType("r", new Requirements(), List.of(reserved, Offering.of("zone-1", "on-demand", 1.0, true)), SMALL.capacity(), null);
    assertThat(withReservation.cheapestOffering(new Requirements())).isSameAs(reserved);
    assertThat(withReservation.cheapestOffering(Requirements.of(Requirement.notIn(Labels.RESERVATION_ID, "cr-1"))).price()).isEqualTo(1.0);
    assertThat(withReservation.cheapestOffering(Requirements.of(Requirement.in(Labels.ZONE, "zone-2")))).isNull();
    assertThat(withReservation.hasAvailableOffering(Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, "reserved")))).isTrue();
  }

  @Test
  void orderByPriceThenName() {
    assertThat(InstanceTypes.orderByPrice(List.of(SMALL, LARGE, OTHER), new Requirements()))
        .containsExactly(LARGE, SMALL, OTHER);
    Requirements onDemand = Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, "on-demand"));
    assertThat(InstanceTypes.orderByPrice(List.of(LARGE, SMALL, OTHER), onDemand)).containsExactly(OTHER, SMALL, LARGE);
    Requirements nowhere = Requirements.of(Requirement.in(Labels.ZONE, "zone-3"));
    assertThat(InstanceTypes.orderByPrice(List.of(SMALL, LARGE), nowhere)).containsExactly(LARGE, SMALL);
  }

  @Test
  void minValuesWalksTheListInOrder() {
    Requirements twoFamilies = Requirements.of(Requirement.of("family", Operator.Exists, List.of(), 2));
    InstanceTypes.MinValues check = InstanceTypes.satisfiesMinValues(List.of(LARGE, OTHER, SMALL), twoFamilies);
    assertThat(check.satisfied()).isTrue();
    assertThat(check.needed()).isEqualTo(3);
    InstanceTypes.MinValues unmet = InstanceTypes.satisfiesMinValues(List.of(LARGE, OTHER), twoFamilies);
    assertThat(unmet.unsatisfied()).containsEntry("family", 1);
    assertThat(unmet.reason()).isEqualTo("minValues requirement is not met for label(s) family (1 distinct values available)");
    assertThat(InstanceTypes.satisfiesMinValues(List.of(SMALL), new Requirements()).needed()).isZero();
  }

  @Test
  void minValuesCountsOnlyTheValuesTheRequirementAllows() {
    // Both types offer family a or b, but the narrowed requirement allows only b: one value, not two.
    Requirements onlyB = Requirements.of(Requirement.of("family", Operator.In, List.of("b"), 2));
    InstanceTypes.MinValues unmet = InstanceTypes.satisfiesMinValues(List.of(SMALL, LARGE, OTHER), onlyB);
    assertThat(unmet.unsatisfied()).containsEntry("family", 1);
    Requirements aOrB = Requirements.of(Requirement.of("family", Operator.In, List.of("a", "b"), 2));
    assertThat(InstanceTypes.satisfiesMinValues(List.of(SMALL, LARGE, OTHER), aOrB).needed()).isEqualTo(2);
  }

  @Test
  void truncateKeepsTheCheapestUnlessThatBreaksMinValues() {
    assertThat(InstanceTypes.truncate(List.of(SMALL, LARGE, OTHER), new Requirements(), 2)).containsExactly(LARGE, SMALL);
    Requirements twoFamilies = Requirements.of(Requirement.of("family", Operator.Exists, List.of(), 2));
    assertThat(InstanceTypes.truncate(List.of(SMALL, LARGE, OTHER), twoFamilies, 2)).containsExactly(LARGE, SMALL);
    Requirements threeFamilies = Requirements.of(Requirement.of("family", Operator.Exists, List.of(), 3));
    assertThat(InstanceTypes.truncate(List.of(SMALL, LARGE, OTHER), threeFamilies, 2)).isNull();
  }

  @Test
  void worstLaunchPricePrefersReservedThenSpotThenOnDemand() {
    assertThat(InstanceTypes.worstLaunchPrice(SMALL.offerings(), new Requirements())).isEqualTo(0.4);
    Requirements onDemand = Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, "on-demand"));
    assertThat(InstanceTypes.worstLaunchPrice(SMALL.offerings(), onDemand)).isEqualTo(1.0);
  }

  // Upstream v1.15 launchable_test.go: a full-but-healthy reservation (available, capacity 0) is not
  // launchable, so it is never what a type is priced or ordered by.

  private static Offering reservedOffering(boolean available, int capacity) {
    return new Offering(
        Requirements.of(
            Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED),
            Requirement.in(Labels.ZONE, "test-zone-1"),
            Requirement.in(Labels.RESERVATION_ID, "r-1")),
        0.001,
        available,
        capacity);
  }

  private static Offering onDemandOffering(double price) {
    return Offering.of("test-zone-1", Labels.CAPACITY_TYPE_ON_DEMAND, price, true);
  }

  private static InstanceType withOfferings(String name, Offering... offerings) {
    return new InstanceType(name, Requirements.of(Requirement.in(Labels.INSTANCE_TYPE, name)), List.of(offerings), Resources.builder().cpu("4").build(), Overhead.NONE);
  }

  @Test
  void launchableRequiresReservationCapacityForReservedOfferings() {
    assertThat(reservedOffering(true, 0).launchable()).as("full reservation is available but not launchable").isFalse();
    assertThat(reservedOffering(true, 3).launchable()).as("reservation with capacity is launchable").isTrue();
    assertThat(reservedOffering(false, 3).launchable()).as("unavailable reservation is not launchable even with capacity").isFalse();
    assertThat(onDemandOffering(1.0).launchable()).isTrue();
    assertThat(Offering.of("test-zone-1", Labels.CAPACITY_TYPE_ON_DEMAND, 1.0, false).launchable()).isFalse();
  }

  @Test
  void worstLaunchPriceIgnoresAFullReservation() {
    List<Offering> offerings = List.of(reservedOffering(true, 0), onDemandOffering(1.0));
    assertThat(InstanceTypes.worstLaunchPrice(offerings, new Requirements())).isEqualTo(1.0);
  }

  @Test
  void orderByPriceDoesNotRankATypeCheapOnAFullReservation() {
    InstanceType phantom = withOfferings("phantom-cheap", reservedOffering(true, 0), onDemandOffering(2.0));
    InstanceType genuine = withOfferings("genuine-cheap", onDemandOffering(1.0));
    assertThat(InstanceTypes.orderByPrice(List.of(phantom, genuine), new Requirements())).containsExactly(genuine, phantom);
    assertThat(phantom.cheapestOffering(new Requirements()).price()).isEqualTo(2.0);
    assertThat(phantom.hasAvailableOffering(Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED))))
        .as("a full reservation is still available (healthy)")
        .isTrue();
  }

  @Test
  void compatibleFiltersOnRequirementsAndOfferings() {
    Requirements familyB = Requirements.of(Requirement.in("family", "b"));
    assertThat(InstanceTypes.compatible(List.of(SMALL, LARGE, OTHER), familyB)).containsExactly(LARGE, OTHER);
    Requirements zone3 = Requirements.of(Requirement.in(Labels.ZONE, "zone-3"));
    assertThat(InstanceTypes.compatible(List.of(SMALL, LARGE), zone3)).isEmpty();
  }
}
