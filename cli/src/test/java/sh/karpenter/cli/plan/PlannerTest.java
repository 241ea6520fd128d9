package sh.karpenter.cli.plan;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.scheduling.SchedulerOptions;

/**
 * {@link Planner}: the lower bound is the bound of the pods the solve placed; the one computed beside
 * the solve is used only when it is that one.
 */
class PlannerTest {
  private static final InstanceTypeCatalog CATALOGUE = InstanceTypeCatalog.aws();

  @TempDir Path dir;

  private PlanReport plan(Planner planner, Path... paths) {
    List<String> warnings = new ArrayList<>();
    return planner.plan(new ManifestReader(warnings::add).read(List.of(paths)), warnings::add);
  }

  /** The examples: every pod but one (it fits no type) is placed, and the bound is below the plan. */
  @Test
  void theExamplesGetTheBoundOfThePlacedPods() {
    Planner planner = new Planner(CATALOGUE, SchedulerOptions.DEFAULT);

    PlanReport report = plan(planner, Path.of("..", "examples"));

    assertThat(planner.boundBesideSolve()).as("the relaxation guessed the pods placed").isTrue();
    assertThat(report.summary().pendingPods() - report.summary().scheduledPods()).isEqualTo(1);
    assertThat(report.summary().lowerBoundPerHour()).isPositive().isLessThanOrEqualTo(report.summary().costPerHour());
  }

  /** A NodePool limit stops the solve where the relaxation goes on (it ignores limits): the bound is of the pods placed. */
  @Test
  void aSolveThatPlacesFewerPodsGetsTheBoundOfWhatItPlaced() throws IOException {
    Path file = dir.resolve("limited.yaml");
    StringBuilder yaml = new StringBuilder(
        """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: small}
        spec:
          limits: {cpu: "4"}
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              requirements:
              - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
        """);
    for (int i = 0; i < 6; i++) {
      yaml.append(
          """
          ---
          apiVersion: v1
          kind: Pod
          metadata: {name: p-%d, namespace: default}
          spec:
            containers: [{name: c, image: example.com/x:1, resources: {requests: {cpu: "1500m"}}}]
          """
              .formatted(i));
    }
    Files.writeString(file, yaml);
    Planner planner = new Planner(CATALOGUE, SchedulerOptions.DEFAULT);

    PlanReport report = plan(planner, file);

    assertThat(planner.boundBesideSolve()).as("the guess was wrong: taken again").isFalse();
    assertThat(report.summary().scheduledPods()).isLessThan(report.summary().pendingPods());
    assertThat(report.summary().scheduledPods()).isPositive();
    assertThat(report.summary().lowerBoundPerHour()).isPositive().isLessThanOrEqualTo(report.summary().costPerHour());
  }
}
