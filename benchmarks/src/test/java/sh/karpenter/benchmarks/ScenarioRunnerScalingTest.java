package sh.karpenter.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** The scenario runner's scaling lines: the diverse mix's 50,000 / 5,000 ratio is a target. */
class ScenarioRunnerScalingTest {

  private static ScenarioRunner.Outcome outcome(int pods, long wallMillis, long cpuMillis) {
    return new ScenarioRunner.Outcome(pods, new SolveTimer.Timing(null, wallMillis * 1_000_000, cpuMillis * 1_000_000, 1, 0), null, false);
  }

  @Test
  void theDiverseMixIsCheckedAtFiftyThousandOverFiveThousand() {
    Map<String, SortedMap<Integer, ScenarioRunner.Outcome>> byMix = new LinkedHashMap<>();
    byMix.computeIfAbsent(ScenarioRunner.mix("diverse-1000"), m -> new TreeMap<>()).put(1000, outcome(1000, 10, 10));
    byMix.get("diverse").put(5000, outcome(5000, 100, 80));
    byMix.get("diverse").put(50000, outcome(50000, 2000, 800));
    byMix.computeIfAbsent(ScenarioRunner.mix("anti-affinity-500"), m -> new TreeMap<>()).put(500, outcome(500, 10, 10));
    byMix.get("anti-affinity").put(2000, outcome(2000, 45, 40));
    byMix.computeIfAbsent(ScenarioRunner.mix("preferences-respect-4000"), m -> new TreeMap<>()).put(4000, outcome(4000, 1, 1));
    List<String> verdicts = new ArrayList<>();

    List<String> lines = ScenarioRunner.scaling(byMix, verdicts);

    assertThat(lines)
        .containsExactly(
            "scaling diverse 50000/5000 = 10.0x CPU time, 20.0x wall clock, for 10x the pods (target <= 15): MISSED on wall clock, met on CPU time",
            "scaling anti-affinity 2000/500 = 4.0x CPU time, 4.5x wall clock, for 4x the pods");
    assertThat(verdicts).containsExactly("scaling diverse 50000/5000 = 20.0x (target <= 15): MISSED on wall clock, met on CPU time");
  }

  @Test
  void aMixAtOneSizeHasNoLine() {
    Map<String, SortedMap<Integer, ScenarioRunner.Outcome>> byMix = new LinkedHashMap<>();
    byMix.computeIfAbsent("diverse", m -> new TreeMap<>()).put(50000, outcome(50000, 2000, 800));
    List<String> verdicts = new ArrayList<>();
    assertThat(ScenarioRunner.scaling(byMix, verdicts)).isEmpty();
    assertThat(verdicts).isEmpty();
  }
}
