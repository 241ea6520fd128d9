package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.disruption.DisruptionFixture.ladder;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class BudgetsTest {
  private static final Instant MONDAY_NOON = Instant.parse("2026-03-02T12:00:00Z");

  private static Budget nodes(String nodes) {
    return new Budget(nodes, null, null, null);
  }

  @ParameterizedTest(name = "{0} of {1} nodes allows {2}")
  @CsvSource({
    "5%, 10, 1",
    "10%, 10, 1",
    "10%, 11, 2",
    "30%, 10, 3",
    "0%, 10, 0",
    "100%, 7, 7",
    "50%, 0, 0",
    "3, 10, 3",
    "0, 10, 0",
    "25, 10, 25",
  })
  void resolvesCountsAndPercentagesRoundingUp(String value, int numNodes, int allowed) {
    assertThat(Budgets.value(nodes(value), numNodes, MONDAY_NOON)).isEqualTo(allowed);
  }

  @ParameterizedTest
  @CsvSource({"101%", "-1", "abc", "10.5%", "''", "1000%"})
  void anUnparsableValueFailsClosed(String value) {
    assertThat(Budgets.value(nodes(value), 10, MONDAY_NOON)).isZero();
  }

  @Test
  void anUnparsableScheduleFailsClosed() {
    Budget broken = new Budget("100%", "not a cron", Duration.ofHours(1), null);
    assertThat(Budgets.value(broken, 10, MONDAY_NOON)).isZero();
  }

  @Test
  void aScheduledBudgetIsActiveOnlyInsideItsWindow() {
    // 0 nodes between 09:00 and 17:00 UTC on weekdays
    Budget business = new Budget("0", "0 9 * * mon-fri", Duration.ofHours(8), null);
    assertThat(Budgets.isActive(business, MONDAY_NOON)).isTrue();
    assertThat(Budgets.value(business, 10, MONDAY_NOON)).isZero();
    assertThat(Budgets.isActive(business, Instant.parse("2026-03-02T09:00:00Z"))).isTrue();
    assertThat(Budgets.isActive(business, Instant.parse("2026-03-02T16:59:00Z"))).isTrue();
    assertThat(Budgets.isActive(business, Instant.parse("2026-03-02T17:01:00Z"))).isFalse();
    assertThat(Budgets.isActive(business, Instant.parse("2026-03-02T08:59:00Z"))).isFalse();
    // Saturday
    assertThat(Budgets.isActive(business, Instant.parse("2026-03-07T12:00:00Z"))).isFalse();
    assertThat(Budgets.value(business, 10, Instant.parse("2026-03-07T12:00:00Z"))).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void macroSchedulesWork() {
    Budget firstHourOfDay = new Budget("1", "@daily", Duration.ofHours(1), null);
    assertThat(Budgets.isActive(firstHourOfDay, Instant.parse("2026-03-02T00:30:00Z"))).isTrue();
    assertThat(Budgets.isActive(firstHourOfDay, Instant.parse("2026-03-02T01:30:00Z"))).isFalse();
  }

  @Test
  void aBudgetWithoutScheduleIsAlwaysActive() {
    assertThat(Budgets.isActive(nodes("10%"), MONDAY_NOON)).isTrue();
  }

  @Test
  void allowedIsTheMinimumOverTheBudgetsForTheReason() {
    PoolPolicy pool =
        new PoolPolicy(
            "default",
            ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED,
            Duration.ZERO,
            List.of(
                new Budget("50%", null, null, null),
                new Budget("2", null, null, Set.of(Reason.DRIFTED)),
                new Budget("0", null, null, Set.of(Reason.UNDERUTILIZED, Reason.EMPTY))));
    assertThat(Budgets.allowed(pool, Reason.DRIFTED, 10, MONDAY_NOON)).isEqualTo(2);
    assertThat(Budgets.allowed(pool, Reason.EMPTY, 10, MONDAY_NOON)).isZero();
    assertThat(Budgets.allowed(pool, Reason.UNDERUTILIZED, 10, MONDAY_NOON)).isZero();
  }

  @Test
  void anUnhealthyBudgetLimitsOnlyRepairAndIsNotReportedWhileNoMethodRepairs() {
    PoolPolicy pool =
        new PoolPolicy(
            "default",
            ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED,
            Duration.ZERO,
            List.of(new Budget("50%", null, null, null), new Budget("1", null, null, Set.of(Reason.UNHEALTHY))));
    assertThat(Budgets.allowed(pool, Reason.UNHEALTHY, 10, MONDAY_NOON)).isEqualTo(1);
    assertThat(Budgets.allowed(pool, Reason.DRIFTED, 10, MONDAY_NOON)).isEqualTo(5);
    assertThat(Reason.ofApiName("Unhealthy")).isEqualTo(Reason.UNHEALTHY);

    DisruptionFixture f = new DisruptionFixture();
    f.now = MONDAY_NOON;
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, pool.budgets(), ladder(2));
    f.node("n", "default", ladder(2).getFirst());
    assertThat(Budgets.allowed(f.input()).get("default")).containsOnlyKeys(Reason.EMPTY, Reason.DRIFTED, Reason.UNDERUTILIZED);
  }

  @Test
  void aReasonNoBudgetNamesIsUnlimited() {
    PoolPolicy pool =
        new PoolPolicy("default", ConsolidationPolicy.WHEN_EMPTY, Duration.ZERO, List.of(new Budget("1", null, null, Set.of(Reason.DRIFTED))));
    assertThat(Budgets.allowed(pool, Reason.EMPTY, 10, MONDAY_NOON)).isEqualTo(Integer.MAX_VALUE);
  }

  @Test
  void theDefaultBudgetIsTenPercent() {
    PoolPolicy pool = new PoolPolicy("default", ConsolidationPolicy.WHEN_EMPTY, Duration.ZERO, null);
    assertThat(pool.budgets()).containsExactly(Budget.DEFAULT);
    assertThat(Budgets.allowed(pool, Reason.EMPTY, 25, MONDAY_NOON)).isEqualTo(3);
  }

  @Test
  void nodesAlreadyDisruptingUseUpTheBudget() {
    DisruptionFixture f = new DisruptionFixture();
    f.now = MONDAY_NOON;
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(nodes("30%")), ladder(2));
    f.pool("other", ladder(2));
    for (int i = 0; i < 8; i++) {
      f.node("n-" + i, "default", ladder(2).getFirst());
    }
    f.node("marked", "default", ladder(2).getFirst()).markedForDeletion();
    f.node("deleting", "default", ladder(2).getFirst()).deleting();
    f.node("uninitialized", "default", ladder(2).getFirst()).uninitialized();
    f.node("elsewhere", "other", ladder(2).getFirst());
    DisruptionInput input = f.input();
    // numNodes = 10 (8 + marked + deleting; not the uninitialized one): ceil(3.0) = 3
    assertThat(Budgets.allowed(input)).containsEntry("default", Map.of(Reason.EMPTY, 3, Reason.DRIFTED, 3, Reason.UNDERUTILIZED, 3));
    // two already disrupting
    assertThat(Budgets.remaining(input, Reason.EMPTY)).containsEntry("default", 1).containsEntry("other", 1);
  }

  @Test
  void nodesConsumingBudgetsAreTheCountedNodesAlreadyDisrupting() {
    DisruptionFixture f = new DisruptionFixture();
    f.now = MONDAY_NOON;
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(nodes("30%")), ladder(2));
    f.pool("other", ladder(2));
    f.node("n", "default", ladder(2).getFirst());
    f.node("marked", "default", ladder(2).getFirst()).markedForDeletion();
    f.node("deleting", "default", ladder(2).getFirst()).deleting();
    f.node("not-ready", "default", ladder(2).getFirst()).notReady();
    f.node("uninitialized", "default", ladder(2).getFirst()).uninitialized().deleting();
    DisruptionInput input = f.input();
    assertThat(Budgets.consuming(input))
        .containsEntry("default", Map.of(Reason.EMPTY, 3, Reason.DRIFTED, 3, Reason.UNDERUTILIZED, 3))
        .containsEntry("other", Map.of(Reason.EMPTY, 0, Reason.DRIFTED, 0, Reason.UNDERUTILIZED, 0));
  }

  // Upstream v1.15 pkg/controllers/disruption/suite_test.go "BuildDisruptionBudgetMapping": ten
  // initialized nodes of one NodePool with a 100% budget.
  private static DisruptionFixture tenNodes(String budget) {
    DisruptionFixture f = new DisruptionFixture();
    f.now = MONDAY_NOON;
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(nodes(budget)), ladder(2));
    for (int i = 0; i < 10; i++) {
      f.node("n-" + i, "default", ladder(2).getFirst());
    }
    return f;
  }

  private static final List<Reason> DISCRETIONARY = List.of(Reason.EMPTY, Reason.UNDERUTILIZED, Reason.DRIFTED);

  /** Pool {@code default} has {@code remaining} disruptions left for each of {@code reasons}. */
  private static void assertRemaining(DisruptionInput input, List<Reason> reasons, int remaining) {
    for (Reason reason : reasons) {
      assertThat(Budgets.remaining(input, reason)).as(reason.apiName()).containsEntry("default", remaining);
    }
  }

  @ParameterizedTest(name = "an {0} node is not counted")
  @CsvSource({"unmanaged", "uninitialized", "instance-terminating"})
  void nodesOutsideTheBudgetsAreNotCounted(String kind) {
    DisruptionFixture f = tenNodes("100%");
    DisruptionFixture.NodeBuilder extra = f.node(kind, "default", ladder(2).getFirst());
    switch (kind) {
      case "unmanaged" -> extra.unmanaged();
      case "uninitialized" -> extra.uninitialized().notReady();
      default -> extra.instanceTerminating();
    }
    assertRemaining(f.input(), DISCRETIONARY, 10);
  }

  @Test
  void aPoolWhoseNodesAreAllDeletingHasNoBudgetLeft() {
    DisruptionFixture f = tenNodes("10%");
    f.nodes.forEach(DisruptionFixture.NodeBuilder::deleting);
    assertRemaining(f.input(), List.of(Reason.values()), 0);
  }

  @Test
  void deletingAndMarkedNodesCountTowardsTheTotalAndAgainstTheBudget() {
    DisruptionFixture f = tenNodes("100%");
    f.nodes.get(0).deleting();
    f.nodes.get(1).markedForDeletion();
    assertRemaining(f.input(), DISCRETIONARY, 8);
  }

  @Test
  void notReadyNodesUseUpEveryBudgetButTheUnhealthyOne() {
    DisruptionFixture f = tenNodes("100%");
    f.nodes.get(0).notReady();
    f.nodes.get(1).notReady();
    DisruptionInput input = f.input();
    assertRemaining(input, DISCRETIONARY, 8);
    // NotReady is what node repair repairs: counting them against its own budget would starve it.
    assertThat(Budgets.remaining(input, Reason.UNHEALTHY)).containsEntry("default", 10);
    // They still count towards the pool's total, so what the budgets allow is unchanged.
    assertThat(Budgets.allowed(input)).containsEntry("default", Map.of(Reason.EMPTY, 10, Reason.DRIFTED, 10, Reason.UNDERUTILIZED, 10));
  }

  @Test
  void deletingNodesStillUseUpTheUnhealthyBudget() {
    DisruptionFixture f = tenNodes("100%");
    f.nodes.get(0).deleting().notReady();
    f.nodes.get(1).deleting();
    assertThat(Budgets.remaining(f.input(), Reason.UNHEALTHY)).containsEntry("default", 8);
  }

  @Test
  void aNotReadyNodeCountsOnceEvenWhenItIsAlsoDeleting() {
    DisruptionFixture f = tenNodes("100%");
    f.nodes.get(0).deleting().notReady();
    f.nodes.get(1).markedForDeletion().notReady();
    f.nodes.get(2).notReady();
    assertThat(Budgets.remaining(f.input(), Reason.DRIFTED)).containsEntry("default", 7);
  }

  @Test
  void aNotReadyNodeBlocksEmptinessWhenItUsesUpTheBudget() {
    DisruptionFixture f = new DisruptionFixture();
    f.now = MONDAY_NOON;
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY, Duration.ZERO, List.of(nodes("1")), ladder(2));
    f.node("busy", "default", ladder(2).getFirst()).notReady().pods(DisruptionFixture.pod("100m"));
    f.node("empty", "default", ladder(2).getFirst());

    Decision decision = f.decide();

    assertThat(decision.commands()).isEmpty();
    assertThat(decision.allowedDisruptions()).containsEntry("default", Map.of(Reason.EMPTY, 1, Reason.DRIFTED, 1, Reason.UNDERUTILIZED, 1));
    assertThat(decision.blocked()).anySatisfy(b -> {
      assertThat(b.nodeName()).isEqualTo("empty");
      assertThat(b.message()).contains("budget for nodepool default reason Empty allows 0 disruptions")
          .contains("already being disrupted");
    });

    f.nodes.getFirst().ready = true;
    assertThat(f.decide().commands()).singleElement().satisfies(c -> assertThat(c.candidates()).singleElement()
        .satisfies(candidate -> assertThat(candidate.name()).isEqualTo("empty")));
  }

  @Test
  void remainingNeverGoesNegative() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(nodes("0")), ladder(1));
    f.node("a", "default", ladder(1).getFirst()).markedForDeletion();
    assertThat(Budgets.remaining(f.input(), Reason.DRIFTED)).containsEntry("default", 0);
  }
}
