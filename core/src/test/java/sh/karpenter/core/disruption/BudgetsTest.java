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
    // numNodes = 9 (8 + marked; not the deleting or uninitialized one): ceil(2.7) = 3
    assertThat(Budgets.allowed(input)).containsEntry("default", Map.of(Reason.EMPTY, 3, Reason.DRIFTED, 3, Reason.UNDERUTILIZED, 3));
    // two already disrupting
    assertThat(Budgets.remaining(input, Reason.EMPTY)).containsEntry("default", 1).containsEntry("other", 1);
  }

  @Test
  void remainingNeverGoesNegative() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(nodes("0")), ladder(1));
    f.node("a", "default", ladder(1).getFirst()).markedForDeletion();
    assertThat(Budgets.remaining(f.input(), Reason.DRIFTED)).containsEntry("default", 0);
  }
}
