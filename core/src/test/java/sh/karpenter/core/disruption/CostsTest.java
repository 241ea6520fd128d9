package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static sh.karpenter.core.disruption.DisruptionFixture.NOW;
import static sh.karpenter.core.disruption.DisruptionFixture.ladder;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.wellknown.Annotations;

class CostsTest {
  @Test
  void aPlainPodCostsOne() {
    assertThat(Costs.evictionCost(pod("100m").build())).isEqualTo(1.0);
  }

  @Test
  void deletionCostAndPriorityRaiseOrLowerTheEvictionCost() {
    Pod expensive = pod("100m").annotations(Map.of(Annotations.POD_DELETION_COST, Integer.toString(1 << 27))).build();
    Pod cheap = pod("100m").annotations(Map.of(Annotations.POD_DELETION_COST, "-134217728")).build();
    Pod important = pod("100m").priority(1 << 25).build();
    assertThat(Costs.evictionCost(expensive)).isEqualTo(2.0);
    assertThat(Costs.evictionCost(cheap)).isEqualTo(0.0);
    assertThat(Costs.evictionCost(important)).isEqualTo(2.0);
  }

  @Test
  void evictionCostIsClamped() {
    assertThat(Costs.evictionCost(pod("100m").priority(1_000_000_000).build())).isEqualTo(10.0);
    assertThat(Costs.evictionCost(pod("100m").annotations(Map.of(Annotations.POD_DELETION_COST, "-2147483647")).build())).isEqualTo(-10.0);
  }

  @Test
  void anUnparsableDeletionCostIsIgnored() {
    assertThat(Costs.evictionCost(pod("100m").annotations(Map.of(Annotations.POD_DELETION_COST, "lots")).build())).isEqualTo(1.0);
  }

  @Test
  void costsAreInt32sAsUpstreamV115ParsesThem() {
    assertThat(Costs.evictionCost(pod("100m").annotations(Map.of(Annotations.POD_DELETION_COST, "+134217728")).build())).isEqualTo(2.0);
    assertThat(Costs.evictionCost(pod("100m").annotations(Map.of(Annotations.POD_DELETION_COST, "1.5e8")).build())).isEqualTo(1.0);
    assertThat(Costs.evictionCost(pod("100m").annotations(Map.of(Annotations.DISRUPTION_COST, "2147483648")).build())).isEqualTo(1.0);
    assertThat(Costs.evictionCost(pod("100m").annotations(Map.of(Annotations.DISRUPTION_COST, " 1")).build())).isEqualTo(1.0);
  }

  @Test
  void theDisruptionCostAnnotationWinsOverThePodDeletionCost() {
    Pod both = pod("100m").annotations(Map.of(
        Annotations.DISRUPTION_COST, Integer.toString(1 << 27), Annotations.POD_DELETION_COST, "-134217728")).build();
    Pod badDisruptionCost = pod("100m").annotations(Map.of(
        Annotations.DISRUPTION_COST, "high", Annotations.POD_DELETION_COST, "-134217728")).build();
    assertThat(Costs.evictionCost(both)).isEqualTo(2.0);
    // a disruption cost that does not parse counts as 0; the deletion cost is not read instead
    assertThat(Costs.evictionCost(badDisruptionCost)).isEqualTo(1.0);
  }

  // Scenario 60: should have a higher disruptionCost for a pod with a higher priority
  @Test
  void shouldHaveAHigherDisruptionCostForAPodWithAHigherPriority() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ladder(4));
    f.node("low", "default", ladder(4).get(3)).pods(pod("100m").priority(0));
    f.node("high", "default", ladder(4).get(3)).pods(pod("100m").priority(1_000_000));
    Candidates candidates = Candidates.of(f.input());
    Candidate low = candidates.graceful().get(0);
    Candidate high = candidates.graceful().get(1);
    assertThat(high.disruptionCost()).isGreaterThan(low.disruptionCost());
  }

  @Test
  void disruptionCostShrinksWithTheLifetimeLeft() {
    DisruptionFixture.NodeBuilder young = new DisruptionFixture.NodeBuilder("young", "default", ladder(1).getFirst());
    young.pods(pod("100m"), pod("100m")).createdAt(NOW.minus(Duration.ofDays(3))).expireAfter(Duration.ofDays(30));
    DisruptionFixture.NodeBuilder old = new DisruptionFixture.NodeBuilder("old", "default", ladder(1).getFirst());
    old.pods(pod("100m"), pod("100m")).createdAt(NOW.minus(Duration.ofDays(27))).expireAfter(Duration.ofDays(30));
    DisruptionFixture.NodeBuilder forever = new DisruptionFixture.NodeBuilder("forever", "default", ladder(1).getFirst());
    forever.pods(pod("100m"), pod("100m")).expireAfter(null);
    DisruptionFixture.NodeBuilder expired = new DisruptionFixture.NodeBuilder("expired", "default", ladder(1).getFirst());
    expired.pods(pod("100m")).createdAt(NOW.minus(Duration.ofDays(40))).expireAfter(Duration.ofDays(30));

    assertThat(Costs.lifetimeRemaining(young.build(), NOW)).isCloseTo(0.9, within(1e-9));
    assertThat(Costs.disruptionCost(young.build(), NOW)).isCloseTo(1.8, within(1e-9));
    assertThat(Costs.disruptionCost(old.build(), NOW)).isCloseTo(0.2, within(1e-9));
    assertThat(Costs.disruptionCost(forever.build(), NOW)).isEqualTo(2.0);
    assertThat(Costs.disruptionCost(expired.build(), NOW)).isZero();
  }

  @Test
  void rescheduleCostCountsOnlyPositiveEvictionCostsOverTheNodeBase() {
    Pod plain = pod("100m").build();
    Pod negative = pod("100m").annotations(Map.of(Annotations.POD_DELETION_COST, "-2147483647")).build();
    assertThat(Costs.rescheduleDisruptionCost(List.of())).isEqualTo(1.0);
    assertThat(Costs.rescheduleDisruptionCost(List.of(plain, plain))).isEqualTo(3.0);
    assertThat(Costs.rescheduleDisruptionCost(List.of(plain, negative))).isEqualTo(2.0);
    assertThat(Costs.isEmpty(List.of())).isTrue();
    assertThat(Costs.isEmpty(List.of(negative))).isTrue();
    assertThat(Costs.isEmpty(List.of(plain))).isFalse();
    assertThat(Costs.savingsRatio(3.0, 4.0)).isEqualTo(0.75);
  }
}
