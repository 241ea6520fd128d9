package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.disruption.DisruptionFixture.NOW;
import static sh.karpenter.core.disruption.DisruptionFixture.ladder;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.wellknown.Labels;

/**
 * Drift, ported from upstream's drift suite (docs/behaviour/upstream-scenarios.md, scenarios
 * 63–68).
 */
class DriftTest {
  private static final List<InstanceType> TYPES = ladder(4);
  private static final Requirement ON_DEMAND = Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND);

  private static Instant ago(int hours) {
    return NOW.minus(Duration.ofHours(hours));
  }

  private static DisruptionFixture cluster() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, null, List.of(new Budget("100%", null, null, null)), TYPES, ON_DEMAND);
    return f;
  }

  private static List<String> names(Command command) {
    return command.candidates().stream().map(Candidate::name).toList();
  }

  // 63
  @Test
  void shouldContinueToTheNextDriftedNodeIfTheFirstCannotRescheduleAllPods() {
    DisruptionFixture f = cluster();
    f.node("stuck", "default", TYPES.get(3)).label("special", "yes").pods(pod("500m").nodeSelector(Map.of("special", "yes"))).drifted("RequirementsDrifted", ago(3));
    f.node("movable", "default", TYPES.get(3)).pods(pod("500m")).drifted("RequirementsDrifted", ago(1));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.DRIFT);
    assertThat(names(decision.commands().getFirst())).containsExactly("movable");
    assertThat(decision.blocked())
        .singleElement()
        .satisfies(b -> {
          assertThat(b.nodeName()).isEqualTo("stuck");
          assertThat(b.event()).isEqualTo("DisruptionBlocked");
          assertThat(b.message()).startsWith("pod default/").contains("has no other place");
        });
  }

  // 64
  @Test
  void shouldDriftEmptyNodesBeforeNonEmptyNodes() {
    DisruptionFixture f = cluster();
    f.node("busy", "default", TYPES.get(1)).pods(pod("500m")).drifted("RequirementsDrifted", ago(3));
    f.node("empty", "default", TYPES.get(1)).drifted("RequirementsDrifted", ago(1));
    Command command = f.decide().commands().getFirst();
    assertThat(names(command)).containsExactly("empty");
    assertThat(command.replacements()).isEmpty();
  }

  @Test
  void allEmptyDriftedNodesWithinBudgetGoInOneCommand() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(new Budget("2", null, null, null)), TYPES);
    for (int i = 0; i < 4; i++) {
      f.node("empty-" + i, "default", TYPES.get(1)).notConsolidatable().drifted("RequirementsDrifted", ago(i + 1));
    }
    Command command = f.decide().commands().getFirst();
    assertThat(names(command)).containsExactly("empty-3", "empty-2");
  }

  // 66
  @Test
  void canReplaceDriftedNodesWithMultipleNodes() {
    DisruptionFixture f = cluster();
    InstanceType retired = DisruptionFixture.type("retired", "16", "32Gi", 1.6, 0);
    f.node("big", "default", retired).pods(pod("3"), pod("3"), pod("3")).drifted("InstanceTypeNotFound", ago(2));
    Decision decision = f.decide();
    Command command = decision.commands().getFirst();
    assertThat(command.method()).isEqualTo(Method.DRIFT);
    assertThat(command.decision()).isEqualTo("replace");
    assertThat(command.replacements()).hasSize(3);
    assertThat(command.replacements()).allSatisfy(r -> assertThat(r.pods()).hasSize(1));
    assertThat(decision.eligibleNodes()).containsEntry(Reason.DRIFTED, 1);
  }

  // 67
  @Test
  void shouldDriftOneNonEmptyNodeAtATimeStartingWithTheEarliestDrift() {
    DisruptionFixture f = cluster();
    f.node("second", "default", TYPES.get(1)).pods(pod("500m")).drifted("RequirementsDrifted", ago(2));
    f.node("first", "default", TYPES.get(1)).pods(pod("500m")).drifted("RequirementsDrifted", ago(3));
    f.node("third", "default", TYPES.get(1)).pods(pod("500m")).drifted("RequirementsDrifted", ago(1));
    Decision decision = f.decide();
    assertThat(decision.commands()).hasSize(1);
    assertThat(names(decision.commands().getFirst())).containsExactly("first");
  }

  // 68
  @Test
  void shouldNotCreateReplacementsForDriftedNodesWithBlockingPodsWhenTheTerminationGracePeriodIsSet() {
    DisruptionFixture f = cluster();
    f.node("guarded", "default", TYPES.get(1))
        .pods(pod("500m").name("web-0"))
        .blockedBy("default/web-0", "pdb default/web prevents pod evictions")
        .terminationGracePeriod()
        .drifted("RequirementsDrifted", ago(1));
    Decision decision = f.decide();
    Command command = decision.commands().getFirst();
    assertThat(command.method()).isEqualTo(Method.DRIFT);
    assertThat(names(command)).containsExactly("guarded");
    assertThat(command.replacements()).isEmpty();
    // consolidation still sees it blocked
    assertThat(decision.blocked()).extracting(Blocked::message).containsExactly("pdb default/web prevents pod evictions");
  }

  @Test
  void blockingPodsStopDriftWithoutATerminationGracePeriod() {
    DisruptionFixture f = cluster();
    f.node("guarded", "default", TYPES.get(1))
        .pods(pod("500m").name("web-0"))
        .blockedBy("default/web-0", "pdb default/web prevents pod evictions")
        .drifted("RequirementsDrifted", ago(1));
    assertThat(f.decide().isEmpty()).isTrue();
  }

  @Test
  void staticDriftRunsBeforeOtherDrift() {
    DisruptionFixture f = cluster();
    f.node("requirements", "default", TYPES.get(1)).pods(pod("500m")).drifted("RequirementsDrifted", ago(5));
    f.node("template", "default", TYPES.get(1)).pods(pod("500m")).drifted("NodePoolDrifted", ago(1));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.STATIC_DRIFT);
    assertThat(names(decision.commands().getFirst())).containsExactly("template");
    assertThat(decision.eligibleNodes()).containsEntry(Reason.DRIFTED, 2);
  }

  @Test
  void driftRespectsItsBudget() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool(
        "default",
        ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED,
        null,
        List.of(new Budget("100%", null, null, null), new Budget("0", null, null, java.util.Set.of(Reason.DRIFTED))),
        TYPES);
    f.node("drifted", "default", TYPES.get(1)).pods(pod("500m")).drifted("RequirementsDrifted", ago(1));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.blocked()).extracting(Blocked::message).containsExactly("budget for nodepool default reason Drifted allows 0 disruptions");
  }

  @Test
  void driftRunsBeforeConsolidation() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(new Budget("100%", null, null, null)), TYPES, ON_DEMAND);
    f.node("underutilized", "default", TYPES.get(3)).pods(pod("500m"));
    f.node("drifted", "default", TYPES.get(3)).pods(pod("500m")).notConsolidatable().drifted("RequirementsDrifted", ago(1));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.DRIFT);
    assertThat(names(decision.commands().getFirst())).containsExactly("drifted");
    assertThat(decision.eligibleNodes()).containsEntry(Reason.UNDERUTILIZED, 1).containsEntry(Reason.DRIFTED, 1);
  }
}
