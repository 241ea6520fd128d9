package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/**
 * Repack consolidation and its payback rule on a hand-built cluster that upstream's methods leave
 * alone: a big node (8 CPUs, 0.8/h) full with four 1.8-CPU pods and a second big node holding two.
 * No single node can go or be replaced by one cheaper node (the two pods need 3.6 CPUs, more than a
 * small node has) and the two together need two nodes; repack drains the second onto two small
 * nodes (2 CPUs, 0.3/h each), saving 0.2/h.
 */
class RepackConsolidationTest {
  static final InstanceType SMALL = DisruptionFixture.type("small", "2", "4Gi", 0.3, 0);
  static final InstanceType BIG = DisruptionFixture.type("big", "8", "16Gi", 0.8, 0);
  private static final List<InstanceType> TYPES = List.of(SMALL, BIG);

  private static DisruptionFixture cluster() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(new Budget("100%", null, null, null)), TYPES);
    f.node("full", "default", BIG).pods(pod("1800m"), pod("1800m"), pod("1800m"), pod("1800m"));
    f.node("half", "default", BIG).pods(pod("1800m"), pod("1800m"));
    return f;
  }

  @Test
  void upstreamMethodsAloneFindNothing() {
    assertThat(cluster().decide().commands()).isEmpty();
  }

  @Test
  void repackDrainsOneNodeOntoTwoCheaperNodes() {
    DisruptionFixture f = cluster();
    f.options = f.options.withRepackConsolidation(true, Duration.ofHours(2));
    DisruptionInput input = f.input();
    Decision decision = Disruption.decide(input);

    assertThat(decision.method()).isEqualTo(Method.REPACK_CONSOLIDATION);
    Command command = decision.commands().getFirst();
    assertThat(command.reason()).isEqualTo(Reason.UNDERUTILIZED);
    assertThat(command.candidates()).extracting(Candidate::name).containsExactly("half");
    assertThat(command.replacements()).hasSize(2);
    for (PlannedNodeClaim replacement : command.replacements()) {
      assertThat(replacement.instanceTypeOptions()).extracting(InstanceType::name).containsExactly("small");
    }
    assertThat(command.savings()).isCloseTo(0.2, within(1e-9));
    assertThat(command.payback()).isNotNull();
    assertThat(command.payback().savingsPerHour()).isCloseTo(0.2, within(1e-9));
    // two pods of 1.8/8 of a 0.8/h node for 5 min, two 0.3/h nodes for 3 min
    double expected = 2 * (1.8 / 8) * 0.8 * (5.0 / 60) + 2 * 0.3 * (3.0 / 60);
    assertThat(command.payback().disruptionCost()).isCloseTo(expected, within(1e-9));
    assertThat(command.payback().paybackTime()).isEqualTo(Duration.ofMillis(Math.round(expected / 0.2 * 3_600_000)));
    assertThat(Disruption.validate(command, input)).isEqualTo(Validation.VALID);
  }

  @Test
  void aMoveThatDoesNotPayBackWithinTheHorizonIsReportedNotTaken() {
    DisruptionFixture f = cluster();
    f.options = f.options.withRepackConsolidation(true, Duration.ofMinutes(1));
    Decision decision = f.decide();

    assertThat(decision.commands()).isEmpty();
    assertThat(decision.blocked())
        .filteredOn(b -> b.nodeName().equals("half") && b.message().startsWith("payback"))
        .singleElement()
        .satisfies(b -> {
          assertThat(b.event()).isEqualTo("Unconsolidatable");
          assertThat(b.nodeClaimName()).isEqualTo("half-claim");
          assertThat(b.message()).startsWith("payback").contains("exceeds the horizon of 1m");
        });
  }

  @Test
  void doNotDisruptAndBudgetsHoldForRepack() {
    DisruptionFixture f = cluster();
    f.nodes.get(0).doNotDisrupt();
    f.nodes.get(1).blockedBy(f.nodes.get(1).pods.getFirst().key(), "pdb default/web allows 0 disruptions");
    f.options = f.options.withRepackConsolidation(true, Duration.ofHours(2));
    assertThat(f.decide().commands()).isEmpty();

    DisruptionFixture g = new DisruptionFixture();
    g.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(new Budget("0", null, null, null)), TYPES);
    g.node("full", "default", BIG).pods(pod("1800m"), pod("1800m"), pod("1800m"), pod("1800m"));
    g.node("half", "default", BIG).pods(pod("1800m"), pod("1800m"));
    g.options = g.options.withRepackConsolidation(true, Duration.ofHours(2));
    assertThat(g.decide().commands()).isEmpty();
  }

  @Test
  void validationRejectsAMoveThatNoLongerSaves() {
    DisruptionFixture f = cluster();
    f.options = f.options.withRepackConsolidation(true, Duration.ofHours(2));
    Command command = Disruption.decide(f.input()).commands().getFirst();

    // the full node is gone: the half node's pods now fit on one small node ... and the others need more
    DisruptionFixture fresh = new DisruptionFixture();
    fresh.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(new Budget("100%", null, null, null)), TYPES);
    fresh.node("half", "default", BIG).pods(pod("1800m"), pod("1800m"), pod("1800m"), pod("1800m"), pod("1800m"));
    fresh.options = f.options;
    Validation validation = Disruption.validate(command, fresh.input());
    assertThat(validation.valid()).isFalse();
    assertThat(validation.reason()).contains("new nodes");
  }

  @Test
  void offPlanCandidatesComeFirst() {
    // a 4-CPU node at 0.7/h is dearer per CPU than the big type; provisioning packs all eight pods
    // onto two big nodes, so the mid node is off plan and leads, ahead of the waste order
    InstanceType mid = DisruptionFixture.type("mid", "4", "8Gi", 0.7, 0);
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(new Budget("100%", null, null, null)), List.of(SMALL, BIG, mid));
    f.node("full", "default", BIG).pods(pod("1800m"), pod("1800m"), pod("1800m"), pod("1800m"));
    f.node("half", "default", BIG).pods(pod("1800m"), pod("1800m"));
    f.node("mid", "default", mid).pods(pod("1800m"), pod("1800m"));
    f.options = f.options.withRepackConsolidation(true, Duration.ofHours(2));
    DisruptionPass pass = new DisruptionPass(f.input());
    List<Candidate> ranked =
        RepackConsolidation.byWaste(pass.consolidationCandidates(), RepackConsolidation.UnitPrices.of(pass.input.scheduling().templates()));
    assertThat(ranked).extracting(Candidate::name).containsExactly("half", "mid", "full");

    assertThat(RepackConsolidation.offPlan(pass, ranked, sh.karpenter.core.scheduling.Deadline.NONE))
        .extracting(Candidate::name)
        .containsExactly("mid", "half", "full");
  }

  @Test
  void paybackDescribesItself() {
    Payback payback = new Payback(0.2, 0.05, Duration.ofMinutes(15));
    assertThat(payback.describe()).isEqualTo("saves 0.2000 $/h, disruption cost 0.0500 $, payback 15m");
    assertThat(payback.within(Duration.ofMinutes(16))).isTrue();
    assertThat(payback.within(Duration.ofMinutes(15))).isFalse();
    assertThat(Payback.human(Duration.ofSeconds(3723))).isEqualTo("1h2m3s");
  }
}
