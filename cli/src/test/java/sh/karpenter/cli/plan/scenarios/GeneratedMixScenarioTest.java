package sh.karpenter.cli.plan.scenarios;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sh.karpenter.testkit.fixtures.GeneratedCluster;

/**
 * A 2,000-pod cluster generated from a fixed seed ({@link GeneratedCluster}: services with zone
 * spread, replicated stores with hostname anti-affinity, arm64-only and spot-tolerant batch work and
 * a few impossible pods). The whole plan must satisfy the contract.
 */
class GeneratedMixScenarioTest {
  private static final int PODS = 2_000;

  @TempDir Path dir;

  @Test
  void twoThousandPodMixHoldsEveryContractRule() throws IOException {
    Path snapshot = dir.resolve("mix.yaml");
    Files.writeString(snapshot, GeneratedCluster.generate(20240611L, PODS));

    ScenarioPlan plan = ScenarioPlan.of(List.of(snapshot));

    assertThat(plan.pending()).isEqualTo(PODS);
    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).allMatch(p -> p.startsWith("misc/impossible-"));
    assertThat(plan.unschedulablePods()).as(plan.unschedulableReport()).hasSize(3);
    assertThat(plan.json.at("/summary/lowerBoundPerHour").decimalValue()).isPositive();
  }
}
