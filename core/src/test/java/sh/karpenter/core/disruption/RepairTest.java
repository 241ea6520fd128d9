package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.disruption.DisruptionFixture.NOW;
import static sh.karpenter.core.disruption.DisruptionFixture.ladder;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.cloudprovider.RepairPolicy;
import sh.karpenter.core.instancetype.InstanceType;

/**
 * Node repair, ported from upstream v1.15's repair suite (disruption/repair_test.go): toleration,
 * the 20% breaker, the {@code Unhealthy} budget, the vetoes, and the candidate order.
 */
class RepairTest {
  private static final List<InstanceType> TYPES = ladder(4);
  private static final Duration TOLERATION = Duration.ofMinutes(30);
  private static final List<RepairPolicy> POLICIES =
      List.of(new RepairPolicy("Ready", "False", TOLERATION), new RepairPolicy("Ready", "Unknown", TOLERATION), new RepairPolicy("BadNode", "False", TOLERATION));

  private static Instant ago(int minutes) {
    return NOW.minus(Duration.ofMinutes(minutes));
  }

  /** A pool with consolidation off (so only repair acts) and the given budgets; repair on with {@code policies}. */
  private static DisruptionFixture cluster(List<Budget> budgets, List<RepairPolicy> policies) {
    DisruptionFixture f = new DisruptionFixture();
    f.options = f.options.withRepairPolicies(policies);
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, null, budgets, TYPES);
    return f;
  }

  private static DisruptionFixture cluster() {
    return cluster(List.of(new Budget("100%", null, null, null)), POLICIES);
  }

  private static void healthy(DisruptionFixture f, int count) {
    for (int i = 0; i < count; i++) {
      f.node("healthy-" + i, "default", TYPES.get(1)).condition("Ready", "True", ago(600));
    }
  }

  private static List<String> names(Command command) {
    return command.candidates().stream().map(Candidate::name).toList();
  }

  @Test
  void shouldNotRepairBeforeTheTolerationElapses() {
    DisruptionFixture f = cluster();
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(29));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.eligibleNodes()).containsEntry(Reason.UNHEALTHY, 0);
  }

  @Test
  void shouldReplaceAnUnhealthyNodeOncePastTheToleration() {
    DisruptionFixture f = cluster();
    // the one node of its pool: nowhere else for its pod to go
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "Unknown", ago(31)).pods(pod("1500m"));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.REPAIR);
    Command command = decision.commands().getFirst();
    assertThat(command.reason()).isEqualTo(Reason.UNHEALTHY);
    assertThat(names(command)).containsExactly("sick");
    assertThat(command.repairCondition()).isEqualTo("Ready");
    assertThat(command.decision()).isEqualTo("replace");
    assertThat(decision.eligibleNodes()).containsEntry(Reason.UNHEALTHY, 1);
  }

  @Test
  void anUnhealthyNodeWhosePodsFitElsewhereIsDeletedWithoutAReplacement() {
    DisruptionFixture f = cluster();
    healthy(f, 4);
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "Unknown", ago(31)).pods(pod("1500m"));
    Command command = f.decide().commands().getFirst();
    assertThat(names(command)).containsExactly("sick");
    assertThat(command.decision()).isEqualTo("delete");
  }

  @Test
  void shouldDeleteAnEmptyUnhealthyNodeWithoutAReplacement() {
    DisruptionFixture f = cluster();
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31));
    Command command = f.decide().commands().getFirst();
    assertThat(command.method()).isEqualTo(Method.REPAIR);
    assertThat(command.decision()).isEqualTo("delete");
  }

  @Test
  void aConditionCannotPredateItsNode() {
    DisruptionFixture f = cluster();
    // the condition says it turned an hour ago, but the Node is only 10 minutes old
    f.node("sick", "default", TYPES.get(1)).createdAt(ago(10)).notReady().condition("Ready", "False", ago(60));
    assertThat(f.decide().isEmpty()).isTrue();
  }

  @Test
  void shouldNotRepairWhenNodeRepairIsOff() {
    DisruptionFixture f = cluster(List.of(new Budget("100%", null, null, null)), List.of());
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31)).pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.eligibleNodes()).doesNotContainKey(Reason.UNHEALTHY);
    assertThat(decision.allowedDisruptions().get("default")).doesNotContainKey(Reason.UNHEALTHY);
  }

  @Test
  void shouldNotRepairANodeWhoseConditionMatchesNoPolicy() {
    DisruptionFixture f = cluster();
    f.node("odd", "default", TYPES.get(1)).condition("Ready", "True", ago(600)).condition("DiskPressure", "True", ago(600));
    assertThat(f.decide().isEmpty()).isTrue();
  }

  @Test
  void shouldNotRepairANodeThatNeverRegistered() {
    DisruptionFixture f = cluster();
    f.node("inflight", "default", TYPES.get(1)).unregistered();
    assertThat(f.decide().isEmpty()).isTrue();
  }

  // upstream: "should stop repairing a NodePool when more than 20% of its nodes are unhealthy"
  @Test
  void shouldStopRepairingANodePoolWhenMoreThanTwentyPercentOfItsNodesAreUnhealthy() {
    DisruptionFixture f = cluster();
    healthy(f, 7);
    f.node("sick-0", "default", TYPES.get(1)).notReady().condition("BadNode", "False", ago(31));
    // still within toleration, but unhealthy all the same: the breaker counts them
    f.node("sick-1", "default", TYPES.get(1)).notReady().condition("BadNode", "False", ago(1));
    f.node("sick-2", "default", TYPES.get(1)).notReady().condition("BadNode", "False", ago(1));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.blocked()).singleElement().satisfies(b -> {
      assertThat(b.nodeName()).isEqualTo("sick-0");
      assertThat(b.event()).isEqualTo("NodeRepairBlocked");
      assertThat(b.message()).isEqualTo("more than 20% of nodes in nodepool \"default\" are unhealthy");
    });
  }

  @Test
  void theBreakerCountsEachNodePoolOnItsOwn() {
    DisruptionFixture f = cluster();
    f.pool("other", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, null, List.of(new Budget("100%", null, null, null)), TYPES);
    f.node("sick-0", "default", TYPES.get(1)).notReady().condition("BadNode", "False", ago(31));
    f.node("sick-1", "default", TYPES.get(1)).notReady().condition("BadNode", "False", ago(31));
    healthy(f, 1);
    f.node("other-sick", "other", TYPES.get(1)).notReady().condition("BadNode", "False", ago(40));
    for (int i = 0; i < 4; i++) {
      f.node("other-" + i, "other", TYPES.get(1)).condition("Ready", "True", ago(600));
    }
    Decision decision = f.decide();
    assertThat(names(decision.commands().getFirst())).containsExactly("other-sick");
  }

  // upstream: "should round the repair circuit-breaker threshold up for small NodePools"
  @Test
  void shouldRoundTheBreakerThresholdUpForSmallNodePools() {
    DisruptionFixture f = cluster();
    healthy(f, 2);
    f.node("sick", "default", TYPES.get(1)).notReady().condition("BadNode", "False", ago(31));
    assertThat(f.decide().method()).isEqualTo(Method.REPAIR);
  }

  @Test
  void twoOfThreeUnhealthyNodesAreNotTouched() {
    DisruptionFixture f = cluster();
    healthy(f, 1);
    f.node("sick-0", "default", TYPES.get(1)).notReady().condition("Ready", "Unknown", ago(31));
    f.node("sick-1", "default", TYPES.get(1)).notReady().condition("Ready", "Unknown", ago(31));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.blocked()).extracting(Blocked::event).containsOnly("NodeRepairBlocked").hasSize(2);
  }

  // upstream: "should not repair when the disruption budget is zero"
  @Test
  void anUnhealthyBudgetOfZeroStopsRepair() {
    DisruptionFixture f = cluster(List.of(new Budget("0", null, null, Set.of(Reason.UNHEALTHY))), POLICIES);
    healthy(f, 4);
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.blocked()).singleElement().satisfies(b -> {
      assertThat(b.event()).isEqualTo("DisruptionBlocked");
      assertThat(b.message()).isEqualTo("budget for nodepool default reason Unhealthy allows 0 disruptions");
    });
  }

  @Test
  void aBudgetOfOneUnhealthyNodeRepairsOneAtATime() {
    List<Budget> one = List.of(new Budget("1", null, null, Set.of(Reason.UNHEALTHY)));
    DisruptionFixture f = cluster(one, POLICIES);
    healthy(f, 8);
    f.node("sick-a", "default", TYPES.get(1)).notReady().condition("Ready", "Unknown", ago(31));
    f.node("sick-b", "default", TYPES.get(1)).notReady().condition("Ready", "Unknown", ago(31));
    // NotReady nodes do not use up the Unhealthy budget: one of the two is repaired
    Decision first = f.decide();
    assertThat(first.commands()).singleElement().satisfies(c -> assertThat(names(c)).containsExactly("sick-a"));

    // while sick-a's repair is in flight, sick-b waits for the budget
    DisruptionFixture g = cluster(one, POLICIES);
    healthy(g, 8);
    g.node("sick-a", "default", TYPES.get(1)).notReady().condition("Ready", "Unknown", ago(31)).markedForDeletion();
    g.node("sick-b", "default", TYPES.get(1)).notReady().condition("Ready", "Unknown", ago(31));
    Decision second = g.decide();
    assertThat(second.isEmpty()).isTrue();
    assertThat(second.blocked()).anySatisfy(b -> {
      assertThat(b.nodeName()).isEqualTo("sick-b");
      assertThat(b.message()).startsWith("budget for nodepool default reason Unhealthy allows 0 disruptions");
    });
  }

  @Test
  void otherReasonsBudgetsDoNotPaceRepair() {
    DisruptionFixture f = cluster(List.of(new Budget("0", null, null, Set.of(Reason.DRIFTED, Reason.EMPTY, Reason.UNDERUTILIZED))), POLICIES);
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31));
    assertThat(f.decide().method()).isEqualTo(Method.REPAIR);
  }

  // upstream: "should not repair a node carrying the do-not-repair annotation"
  @Test
  void doNotRepairVetoesRepair() {
    DisruptionFixture f = cluster();
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31)).doNotRepair();
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.blocked()).singleElement().satisfies(b -> {
      assertThat(b.event()).isEqualTo("DisruptionBlocked");
      assertThat(b.message()).isEqualTo("repair is blocked through the \"karpenter.sh/do-not-repair\" annotation");
    });
  }

  // upstream: "should not report the do-not-repair veto while the node is still within its policy's toleration"
  @Test
  void doNotRepairIsNotReportedWithinTheToleration() {
    DisruptionFixture f = cluster();
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(5)).doNotRepair();
    assertThat(f.decide().blocked()).isEmpty();
  }

  // upstream: "should still repair a node carrying only the do-not-disrupt annotation"
  @Test
  void doNotDisruptOnTheNodeDoesNotStopRepair() {
    DisruptionFixture f = cluster();
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31)).doNotDisrupt();
    assertThat(f.decide().method()).isEqualTo(Method.REPAIR);
  }

  // upstream: "should not bypass a blocking pod without a bounded drain"
  @Test
  void aBlockingPodWithoutATerminationGracePeriodBlocksRepair() {
    DisruptionFixture f = cluster();
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31)).pods(pod("500m").name("guarded"))
        .blockedBy("default/guarded", "pdb default/guard prevents pod evictions");
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.blocked()).anySatisfy(b -> assertThat(b.message()).isEqualTo("repair requires a termination grace period to bypass blocking pods"));
  }

  // upstream: "should size replacement capacity for a blocking pod when the drain is bounded"
  @Test
  void aBlockingPodWithATerminationGracePeriodIsMovedToTheReplacement() {
    DisruptionFixture f = cluster();
    f.node("sick", "default", TYPES.get(3)).notReady().condition("Ready", "False", ago(31)).terminationGracePeriod()
        .pods(pod("3").name("guarded")).blockedBy("default/guarded", "pdb default/guard prevents pod evictions");
    Command command = f.decide().commands().getFirst();
    assertThat(command.method()).isEqualTo(Method.REPAIR);
    assertThat(command.replacements()).singleElement().satisfies(r -> assertThat(r.pods()).extracting(p -> p.name()).containsExactly("guarded"));
  }

  // upstream: "should repair an unhealthy node that never initialized" and "should repair without disruption budget"
  @Test
  void anUninitializedNodeIsRepairedWithoutBudget() {
    DisruptionFixture f = cluster(List.of(new Budget("0", null, null, null)), POLICIES);
    healthy(f, 4);
    f.node("stuck", "default", TYPES.get(1)).uninitialized().notReady().condition("Ready", "False", ago(31));
    Command command = f.decide().commands().getFirst();
    assertThat(names(command)).containsExactly("stuck");
    assertThat(command.decision()).isEqualTo("delete");
  }

  // upstream: "should repair a node nominated for pending pods" (uninitialized nodes)
  @Test
  void aNominatedNodeIsRepairedOnlyWhileUninitialized() {
    DisruptionFixture f = cluster();
    f.node("stuck", "default", TYPES.get(1)).uninitialized().nominated().notReady().condition("Ready", "False", ago(31));
    assertThat(f.decide().method()).isEqualTo(Method.REPAIR);

    DisruptionFixture g = cluster();
    g.node("nominated", "default", TYPES.get(1)).nominated().notReady().condition("Ready", "False", ago(31));
    assertThat(g.decide().isEmpty()).isTrue();
  }

  @Test
  void deletingAndMarkedNodesAreNotRepairedAgain() {
    DisruptionFixture f = cluster();
    f.node("deleting", "default", TYPES.get(1)).deleting().notReady().condition("Ready", "False", ago(31));
    f.node("marked", "default", TYPES.get(1)).markedForDeletion().notReady().condition("Ready", "False", ago(31));
    healthy(f, 8);
    assertThat(f.decide().isEmpty()).isTrue();
  }

  // upstream: "should repair the higher-priority condition first"
  @Test
  void shouldRepairTheHigherPriorityConditionFirst() {
    List<RepairPolicy> policies =
        List.of(new RepairPolicy("LowPriority", "False", TOLERATION, 10), new RepairPolicy("HighPriority", "False", TOLERATION, 90));
    DisruptionFixture f = cluster(List.of(new Budget("1", null, null, null)), policies);
    healthy(f, 8);
    f.node("a-low", "default", TYPES.get(1)).condition("LowPriority", "False", ago(31));
    f.node("b-high", "default", TYPES.get(1)).condition("HighPriority", "False", ago(31));
    assertThat(names(f.decide().commands().getFirst())).containsExactly("b-high");
  }

  // upstream: "should order a node by its most urgent condition, not just its highest-priority one"
  @Test
  void shouldOrderANodeByItsMostUrgentCondition() {
    List<RepairPolicy> policies =
        List.of(new RepairPolicy("LowPriority", "False", TOLERATION, 10), new RepairPolicy("HighPriority", "False", TOLERATION, 90));
    DisruptionFixture f = cluster(List.of(new Budget("1", null, null, null)), policies);
    healthy(f, 8);
    // A: low priority, 5τ past its toleration (score 0 + 5); high priority just past it (1 + 0.1).
    // B: high priority, 3τ past its toleration (1 + 3).
    f.node("a", "default", TYPES.get(1)).condition("LowPriority", "False", ago(180)).condition("HighPriority", "False", ago(33));
    f.node("b", "default", TYPES.get(1)).condition("HighPriority", "False", ago(120));
    Command command = f.decide().commands().getFirst();
    assertThat(names(command)).containsExactly("a");
    // the command names the highest-priority eligible condition
    assertThat(command.repairCondition()).isEqualTo("HighPriority");
  }

  // upstream: "should break a tie by node name between candidates resolved at different times"
  @Test
  void equallyUrgentNodesAreTakenByName() {
    DisruptionFixture f = cluster(List.of(new Budget("1", null, null, null)), POLICIES);
    healthy(f, 8);
    f.node("node-b", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31));
    f.node("node-a", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31));
    assertThat(names(f.decide().commands().getFirst())).containsExactly("node-a");
  }

  @Test
  void anOlderFaultOfEqualPriorityGoesFirst() {
    DisruptionFixture f = cluster(List.of(new Budget("1", null, null, null)), POLICIES);
    healthy(f, 8);
    f.node("node-a", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31));
    f.node("node-b", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(45));
    assertThat(names(f.decide().commands().getFirst())).containsExactly("node-b");
  }

  @Test
  void repairRunsBeforeEveryOtherMethod() {
    DisruptionFixture f = new DisruptionFixture();
    f.options = f.options.withRepairPolicies(POLICIES);
    f.pool("default", TYPES);
    f.node("empty", "default", TYPES.get(1)).condition("Ready", "True", ago(600));
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31)).pods(pod("500m"));
    assertThat(f.decide().method()).isEqualTo(Method.REPAIR);
  }

  @Test
  void validationKeepsARepairCommandWhileTheNodeIsStillEligible() {
    DisruptionFixture f = cluster();
    f.node("sick", "default", TYPES.get(1)).notReady().condition("Ready", "False", ago(31));
    Command command = f.decide().commands().getFirst();
    assertThat(Disruption.validate(command, f.input()).valid()).isTrue();

    DisruptionFixture healed = cluster();
    healed.node("sick", "default", TYPES.get(1)).condition("Ready", "True", ago(1));
    assertThat(Disruption.validate(command, healed.input()).valid()).isFalse();
  }
}
