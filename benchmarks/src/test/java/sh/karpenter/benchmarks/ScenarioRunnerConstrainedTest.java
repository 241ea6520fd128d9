package sh.karpenter.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.benchmarks.workload.ConstrainedClusters;

/** The constrained clusters' scenario group and its summary line (issue 18). */
class ScenarioRunnerConstrainedTest {

  @Test
  void theGroupRunsOnlyWhenAskedForAndNamesEveryCase() {
    assertThat(ScenarioRunner.scenarios(false, false)).noneMatch(s -> s.name().startsWith(ScenarioRunner.CONSTRAINED_PREFIX));

    assertThat(ScenarioRunner.scenarios(false, true))
        .filteredOn(s -> s.name().startsWith(ScenarioRunner.CONSTRAINED_PREFIX))
        .hasSize(ConstrainedClusters.values().length)
        .allMatch(ScenarioRunner.Scenario::costReport)
        .anyMatch(s -> s.name().equals("constrained-zone-spread-110"));
  }

  @Test
  void theSummaryGivesTheMedianAndTheWorstCase() {
    Map<String, Double> ratios = new LinkedHashMap<>();
    ratios.put("zone-spread-110", 1.24);
    ratios.put("gpu-200", 1.01);
    ratios.put("arm64-1000", 1.30);
    ratios.put("min-values-800", 1.17);

    assertThat(ScenarioRunner.constrainedSummary(ratios))
        .isEqualTo(
            "constrained cost/bound: median 1.21, worst 1.30 (arm64-1000) (goal median <= 1.10, worst <= 1.25): MISSED");
  }

  @Test
  void theSummarySaysMetWhenBothGoalsHold() {
    assertThat(ScenarioRunner.constrainedSummary(Map.of("a", 1.05, "b", 1.10, "c", 1.25)))
        .isEqualTo("constrained cost/bound: median 1.10, worst 1.25 (c) (goal median <= 1.10, worst <= 1.25): met");
  }
}
