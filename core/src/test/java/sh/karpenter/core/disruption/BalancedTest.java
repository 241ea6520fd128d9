package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static sh.karpenter.core.disruption.DisruptionFixture.ladder;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.wellknown.Labels;

/** The Balanced consolidation policy (docs/behaviour/disruption.md#balanced-policy). */
class BalancedTest {
  private static final List<InstanceType> TYPES = ladder(8);
  private static final Requirement ON_DEMAND = Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND);

  private static DisruptionFixture pool(ConsolidationPolicy policy) {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", policy, Duration.ZERO, List.of(new Budget("100%", null, null, null)), TYPES, ON_DEMAND);
    return f;
  }

  @Test
  void scoreIsSavingsShareOverDisruptionShare() {
    Balanced.Totals totals = new Balanced.Totals(1.0, 20);
    assertThat(Balanced.score(0.1, 9, totals)).isCloseTo((0.1 / 1.0) / (9.0 / 20), within(1e-12));
    assertThat(Balanced.score(0, 9, totals)).isZero();
    assertThat(Balanced.score(0.1, 9, new Balanced.Totals(0, 20))).isZero();
    assertThat(Balanced.score(0.1, 9, new Balanced.Totals(1.0, 0))).isInfinite();
  }

  @Test
  void approvesAMoveThatSavesMoreThanItDisrupts() {
    DisruptionFixture f = pool(ConsolidationPolicy.BALANCED);
    f.node("a", "default", TYPES.get(3)).pods(pod("500m"));
    f.node("b", "default", TYPES.get(3)).pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.MULTI_NODE_CONSOLIDATION);
    ScoredMove move = decision.scores().getLast();
    assertThat(move.approved()).isTrue();
    assertThat(move.nodeClaimNames()).containsExactlyInAnyOrder("a-claim", "b-claim");
    // savings 0.8 - 0.1 of 0.8 total, disruption 4 of 4
    assertThat(move.score()).isCloseTo(0.875, within(1e-9));
    // the multi-node move settled on, once for its NodePool
    assertThat(decision.moves()).containsExactly(new ConsolidationMove("default", ConsolidationPolicy.BALANCED, true));
  }

  @Test
  void rejectsAMoveThatDisruptsFarMoreThanItSaves() {
    DisruptionFixture f = pool(ConsolidationPolicy.BALANCED);
    Pod[] small = new Pod[8];
    for (int i = 0; i < small.length; i++) {
      small[i] = pod("100m").nodeName("busy-cheap").build();
    }
    f.node("busy-cheap", "default", TYPES.get(0)).pods(small);
    f.node("full-dear", "default", TYPES.get(7)).notConsolidatable().pods(pod("1"), pod("1"), pod("1"), pod("1"), pod("1"), pod("1"), pod("1"));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    // deleting busy-cheap saves 0.1 of 0.9 while moving 9 of 17 disruption units
    assertThat(decision.scores()).singleElement().satisfies(move -> {
      assertThat(move.approved()).isFalse();
      assertThat(move.score()).isCloseTo((0.1 / 0.9) / (9.0 / 17), within(1e-9));
    });
    assertThat(decision.moves()).containsExactly(new ConsolidationMove("default", ConsolidationPolicy.BALANCED, false));

    DisruptionFixture underutilized = pool(ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED);
    underutilized.nodes.addAll(f.nodes);
    Decision approved = underutilized.decide();
    assertThat(approved.moves()).containsExactly(new ConsolidationMove("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, true));
    assertThat(approved.commands()).singleElement().satisfies(c -> assertThat(c.candidates()).extracting(Candidate::name).containsExactly("busy-cheap"));
  }
}
