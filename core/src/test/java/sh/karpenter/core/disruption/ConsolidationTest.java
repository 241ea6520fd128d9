package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static sh.karpenter.core.disruption.DisruptionFixture.NOW;
import static sh.karpenter.core.disruption.DisruptionFixture.ZONES;
import static sh.karpenter.core.disruption.DisruptionFixture.ladder;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.wellknown.Labels;

/**
 * Emptiness and consolidation, ported from upstream's disruption suite
 * (docs/behaviour/upstream-scenarios.md, scenarios 48–62) as decisions over hand-built clusters.
 * Catalogue: {@code ladder(n)}, type {@code t-i} has i CPUs, on-demand 0.1·i and spot 0.04·i per
 * hour.
 */
class ConsolidationTest {
  private static final List<InstanceType> TYPES = ladder(20);
  private static final Requirement ON_DEMAND = Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND);
  private static final Requirement SPOT = Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT);

  private static InstanceType t(int cpus) {
    return TYPES.get(cpus - 1);
  }

  private static List<String> names(Command command) {
    return command.candidates().stream().map(Candidate::name).toList();
  }

  private static List<String> optionNames(PlannedNodeClaim claim) {
    return claim.instanceTypeOptions().stream().map(InstanceType::name).toList();
  }

  private static List<String> messages(Decision decision, String node) {
    return decision.blocked().stream().filter(b -> b.nodeName().equals(node)).map(Blocked::message).toList();
  }

  private static Budget budget(String nodes) {
    return new Budget(nodes, null, null, null);
  }

  // 48
  @Test
  void shouldOnlyAllow3EmptyNodesToBeDisrupted() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("30%")), TYPES);
    for (int i = 0; i < 10; i++) {
      f.node("node-" + i, "default", t(4));
    }
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.EMPTINESS);
    assertThat(decision.commands()).hasSize(1);
    Command command = decision.commands().getFirst();
    assertThat(command.candidates()).hasSize(3);
    assertThat(command.decision()).isEqualTo("delete");
    assertThat(command.reason()).isEqualTo(Reason.EMPTY);
    assertThat(command.savings()).isCloseTo(1.2, within(1e-9));
    assertThat(decision.allowedDisruptions().get("default")).containsEntry(Reason.EMPTY, 3);
    assertThat(decision.eligibleNodes()).containsEntry(Reason.EMPTY, 10);
  }

  @Test
  void shouldAllowAllEmptyNodesToBeDisruptedWithAFullBudget() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY, Duration.ZERO, List.of(budget("100%")), TYPES);
    for (int i = 0; i < 10; i++) {
      f.node("node-" + i, "default", t(4));
    }
    assertThat(f.decide().commands().getFirst().candidates()).hasSize(10);
  }

  @Test
  void emptinessNeedsConsolidationOnAndTheConsolidatableCondition() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("never", ConsolidationPolicy.WHEN_EMPTY, null, List.of(budget("100%")), TYPES);
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY, Duration.ofMinutes(5), List.of(budget("100%")), TYPES);
    f.node("disabled", "never", t(2));
    f.node("recent", "default", t(2)).notConsolidatable();
    f.node("ready", "default", t(2));
    Decision decision = f.decide();
    assertThat(names(decision.commands().getFirst())).containsExactly("ready");
  }

  // 49
  @Test
  void shouldNotConsolidateWhenTheBudgetAllowsNoDisruptions() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("0%")), TYPES, ON_DEMAND);
    f.node("a", "default", t(4)).pods(pod("500m"));
    f.node("b", "default", t(4)).pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.allowedDisruptions().get("default")).containsEntry(Reason.UNDERUTILIZED, 0);
    assertThat(messages(decision, "a")).contains("budget for nodepool default reason Underutilized allows 0 disruptions");
    assertThat(decision.blocked()).allMatch(b -> b.event().equals("DisruptionBlocked"));
  }

  // 50
  @Test
  void cannotReplaceSpotWithSpotIfItIsPartOfThe15CheapestInstanceTypes() {
    DisruptionFixture f = new DisruptionFixture();
    f.options = f.options.withSpotToSpotConsolidation(true);
    f.pool("default", TYPES, SPOT);
    f.node("spot", "default", t(10)).spot().pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "spot"))
        .containsExactly("SpotToSpotConsolidation requires 15 cheaper instance type options than the current candidate to consolidate, got 9");
  }

  @Test
  void spotToSpotLaunchesFromTheFifteenCheapestTypes() {
    DisruptionFixture f = new DisruptionFixture();
    f.options = f.options.withSpotToSpotConsolidation(true);
    f.pool("default", TYPES, SPOT);
    f.node("spot", "default", t(20)).spot().pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.SINGLE_NODE_CONSOLIDATION);
    PlannedNodeClaim replacement = decision.commands().getFirst().replacements().getFirst();
    assertThat(optionNames(replacement)).hasSize(15).startsWith("t-1", "t-2").endsWith("t-15");
    assertThat(replacement.requirements().get(Labels.CAPACITY_TYPE).values()).containsExactly(Labels.CAPACITY_TYPE_SPOT);
    assertThat(replacement.requirements().get(Labels.INSTANCE_TYPE).values()).hasSize(15);
    assertThat(decision.commands().getFirst().savings()).isCloseTo(0.8 - 0.04, within(1e-9));
  }

  @Test
  void spotToSpotNeedsTheFeatureGate() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES, SPOT);
    f.node("spot", "default", t(20)).spot().pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "spot")).containsExactly("SpotToSpotConsolidation is disabled, can't replace a spot node with a spot node");
  }

  // 51
  @Test
  void wontReplaceOnDemandNodeIfOnDemandReplacementIsMoreExpensive() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ladder(4), ON_DEMAND);
    f.node("cheap", "default", t(1)).pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "cheap")).containsExactly("can't replace with a cheaper node");
    assertThat(decision.blocked().getFirst().event()).isEqualTo("Unconsolidatable");
  }

  @Test
  void onDemandReplacedBySpotOrOnDemandIsPinnedToSpot() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ladder(4));
    f.node("od", "default", t(4)).pods(pod("500m"));
    Command command = f.decide().commands().getFirst();
    PlannedNodeClaim replacement = command.replacements().getFirst();
    assertThat(replacement.requirements().get(Labels.CAPACITY_TYPE).values()).containsExactly(Labels.CAPACITY_TYPE_SPOT);
    assertThat(replacement.cheapestOffering().capacityType()).isEqualTo(Labels.CAPACITY_TYPE_SPOT);
    assertThat(optionNames(replacement)).containsExactly("t-1", "t-2", "t-3", "t-4");
    assertThat(command.savings()).isCloseTo(0.4 - 0.04, within(1e-9));
    assertThat(replacement.pods()).hasSize(1);
  }

  @Test
  void onDemandReplacementsKeepOnlyCheaperTypes() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES, ON_DEMAND);
    f.node("big", "default", t(8)).pods(pod("2"));
    Command command = f.decide().commands().getFirst();
    assertThat(command.decision()).isEqualTo("replace");
    assertThat(optionNames(command.replacements().getFirst())).containsExactly("t-2", "t-3", "t-4", "t-5", "t-6", "t-7");
    assertThat(command.savings()).isCloseTo(0.6, within(1e-9));
  }

  // 52
  @Test
  void canDeleteNodesWhenNonKarpenterCapacityCanFitPods() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES);
    f.node("unmanaged", null, null).unmanaged().allocatable(Resources.builder().cpu("4").memory("8Gi").pods(110).build());
    f.node("candidate", "default", t(2)).pods(pod("500m"), pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.SINGLE_NODE_CONSOLIDATION);
    Command command = decision.commands().getFirst();
    assertThat(names(command)).containsExactly("candidate");
    assertThat(command.replacements()).isEmpty();
    assertThat(command.savings()).isCloseTo(0.2, within(1e-9));
  }

  // 53
  @Test
  void wontDeleteNodeIfItWouldRequirePodsToScheduleOnAnUninitializedNode() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ladder(4), ON_DEMAND);
    f.node("uninitialized", "default", t(4)).uninitialized();
    f.node("candidate", "default", t(1)).pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "candidate")).containsExactly("would schedule pods onto uninitialized node uninitialized");
  }

  // 54
  @Test
  void shouldNotConsolidatePodsOntoADestinationNodeThatIsUnderItsConsolidateAfterWindow() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ofHours(1), List.of(budget("100%")), ladder(4), ON_DEMAND);
    DisruptionFixture.NodeBuilder destination =
        f.node("destination", "default", t(4)).pods(pod("500m")).notConsolidatable().lastPodEvent(NOW.minus(Duration.ofMinutes(10)));
    f.node("candidate", "default", t(1)).pods(pod("500m")).lastPodEvent(NOW.minus(Duration.ofHours(2)));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "candidate")).containsExactly("can't replace with a cheaper node");

    destination.lastPodEvent(NOW.minus(Duration.ofHours(2)));
    Decision later = f.decide();
    assertThat(later.method()).isEqualTo(Method.SINGLE_NODE_CONSOLIDATION);
    assertThat(names(later.commands().getFirst())).containsExactly("candidate");
    assertThat(later.commands().getFirst().replacements()).isEmpty();
  }

  /**
   * Without a pod event the window counts from the NodeClaim's initialization, as upstream's
   * IsUnderConsolidateAfter does (before, the simulation counted from its creation): a node created
   * two hours ago but initialized ten minutes ago is still inside a one-hour window.
   */
  @Test
  void aDestinationWithoutPodEventsIsUnderItsWindowFromItsInitializationNotItsCreation() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ofHours(1), List.of(budget("100%")), ladder(4), ON_DEMAND);
    DisruptionFixture.NodeBuilder destination =
        f.node("destination", "default", t(4)).pods(pod("500m")).notConsolidatable()
            .createdAt(NOW.minus(Duration.ofHours(2))).initializedAt(NOW.minus(Duration.ofMinutes(10)));
    f.node("candidate", "default", t(1)).pods(pod("500m")).lastPodEvent(NOW.minus(Duration.ofHours(2)));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "candidate")).containsExactly("can't replace with a cheaper node");

    destination.initializedAt(NOW.minus(Duration.ofMinutes(90)));
    Decision later = f.decide();
    assertThat(later.method()).isEqualTo(Method.SINGLE_NODE_CONSOLIDATION);
    assertThat(later.commands().getFirst().replacements()).isEmpty();
  }

  /** An uninitialized NodeClaim has no window (upstream); the move fails for the uninitialized node instead. */
  @Test
  void anUninitializedDestinationHasNoConsolidateAfterWindow() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ofHours(1), List.of(budget("100%")), ladder(4), ON_DEMAND);
    f.node("destination", "default", t(4)).pods(pod("500m")).notConsolidatable().uninitialized().createdAt(NOW.minus(Duration.ofMinutes(10)));
    f.node("candidate", "default", t(1)).pods(pod("500m")).lastPodEvent(NOW.minus(Duration.ofHours(2)));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "candidate")).containsExactly("would schedule pods onto uninitialized node destination");
  }

  @Test
  void driftIgnoresTheConsolidateAfterWindow() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ofHours(1), List.of(budget("100%")), ladder(4), ON_DEMAND);
    f.node("destination", "default", t(4)).pods(pod("500m")).notConsolidatable().lastPodEvent(NOW.minus(Duration.ofMinutes(10)));
    f.node("drifted", "default", t(1)).pods(pod("500m")).notConsolidatable().drifted("RequirementsDrifted", NOW.minus(Duration.ofHours(1)));
    Command command = f.decide().commands().getFirst();
    assertThat(command.method()).isEqualTo(Method.DRIFT);
    assertThat(command.replacements()).isEmpty();
  }

  // 56
  @Test
  void canMerge3NodesInto1() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("100%")), ladder(8), ON_DEMAND);
    f.node("a", "default", t(4)).pods(pod("500m"));
    f.node("b", "default", t(4)).pods(pod("500m"));
    f.node("c", "default", t(4)).pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.MULTI_NODE_CONSOLIDATION);
    Command command = decision.commands().getFirst();
    assertThat(names(command)).containsExactlyInAnyOrder("a", "b", "c");
    assertThat(command.replacements()).hasSize(1);
    assertThat(command.replacements().getFirst().cheapestInstanceType().name()).isEqualTo("t-2");
    assertThat(command.savings()).isCloseTo(1.2 - 0.2, within(1e-9));
    assertThat(decision.eligibleNodes()).containsEntry(Reason.UNDERUTILIZED, 3);
  }

  @Test
  void wontMerge2NodesInto1OfTheSameType() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("100%")), ladder(4), ON_DEMAND);
    f.node("few", "default", t(1)).pods(pod("300m"));
    f.node("many", "default", t(1)).pods(pod("300m"), pod("300m"));
    Decision decision = f.decide();
    // merging both into one t-1 is no better than deleting the node with fewer pods
    assertThat(decision.method()).isEqualTo(Method.SINGLE_NODE_CONSOLIDATION);
    Command command = decision.commands().getFirst();
    assertThat(names(command)).containsExactly("few");
    assertThat(command.replacements()).isEmpty();
  }

  @Test
  void mergesAllCandidatesWhenNoShorterPrefixIsCheaper() {
    // Bisection alone stops here: any two of the three nodes would become one "large" at the price of
    // the two, which is no saving, so it never tries all three, which fit one "large" for 2/3 of the price.
    InstanceType small = DisruptionFixture.type("small", "1", "2Gi", 0.1, 0);
    InstanceType large = DisruptionFixture.type("large", "3", "6Gi", 0.2, 0);
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("100%")), List.of(small, large), ON_DEMAND);
    f.node("one", "default", small).pods(pod("400m"));
    f.node("two", "default", small).pods(pod("400m"), pod("400m"));
    f.node("three", "default", small).pods(pod("400m"), pod("400m"));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.MULTI_NODE_CONSOLIDATION);
    Command command = decision.commands().getFirst();
    assertThat(names(command)).containsExactlyInAnyOrder("one", "two", "three");
    assertThat(command.replacements()).hasSize(1);
    assertThat(command.replacements().getFirst().cheapestInstanceType().name()).isEqualTo("large");
    assertThat(command.savings()).isCloseTo(0.3 - 0.2, within(1e-9));
  }

  // 57
  @Test
  void canReplaceNodeMaintainingZonalTopologySpread() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("100%")), ladder(4), ON_DEMAND);
    Map<String, String> labels = Map.of("app", "spread");
    TopologySpreadConstraint spread =
        TopologySpreadConstraint.of(1, Labels.ZONE, TopologySpreadConstraint.WhenUnsatisfiable.DoNotSchedule, LabelSelector.of(labels));
    for (int z = 0; z < 3; z++) {
      f.node("node-z" + (z + 1), "default", t(4)).zone(ZONES.get(z)).pods(pod("500m").labels(labels).topologySpreadConstraint(spread));
    }
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.SINGLE_NODE_CONSOLIDATION);
    Command command = decision.commands().getFirst();
    assertThat(names(command)).containsExactly("node-z1");
    PlannedNodeClaim replacement = command.replacements().getFirst();
    assertThat(replacement.requirements().get(Labels.ZONE).values()).containsExactly("test-zone-1");
    assertThat(replacement.cheapestInstanceType().name()).isEqualTo("t-1");
  }

  @Test
  void wontDeleteNodeIfItWouldViolatePodAntiAffinity() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("100%")), ladder(4), ON_DEMAND);
    Map<String, String> labels = Map.of("app", "aa");
    PodAffinityTerm apart = PodAffinityTerm.of(LabelSelector.of(labels), Labels.HOSTNAME);
    f.node("a", "default", t(1)).pods(pod("100m").labels(labels).requiredPodAntiAffinity(apart));
    f.node("b", "default", t(1)).pods(pod("100m").labels(labels).requiredPodAntiAffinity(apart));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "a")).containsExactly("can't replace with a cheaper node");
  }

  // 58
  @Test
  void shouldNotScheduleAnAdditionalNodeWhenReceivingPendingPodsWhileConsolidating() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ladder(8), ON_DEMAND);
    Pod moved = pod("500m").nodeName("candidate").build();
    f.node("candidate", "default", t(8)).pods(moved);
    f.pending.add(pod("6").build());
    Command command = f.decide().commands().getFirst();
    assertThat(command.replacements()).hasSize(1);
    assertThat(command.replacements().getFirst().pods()).containsExactly(moved);
  }

  @Test
  void pendingPodsThatCannotScheduleDoNotBlockConsolidation() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ladder(4), ON_DEMAND);
    f.node("destination", "default", t(4)).pods(pod("500m")).notConsolidatable();
    f.node("candidate", "default", t(2)).pods(pod("500m"));
    f.pending.add(pod("64").build());
    Command command = f.decide().commands().getFirst();
    assertThat(names(command)).containsExactly("candidate");
    assertThat(command.replacements()).isEmpty();
  }

  // 59
  @Test
  void willConsiderANodeWithADaemonSetPodAsEmpty() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES);
    f.node("daemons-only", "default", t(2)).daemonPod(pod("100m"));
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.EMPTINESS);
    assertThat(names(decision.commands().getFirst())).containsExactly("daemons-only");
  }

  @Test
  void willNotConsiderANodeWithATerminatingStatefulSetPodAsEmpty() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES, ON_DEMAND);
    f.node("stateful", "default", t(1)).pods(pod("500m").owner("StatefulSet", "db").terminating(true));
    Decision decision = f.decide();
    assertThat(decision.eligibleNodes()).containsEntry(Reason.EMPTY, 0);
    assertThat(decision.method()).isNotEqualTo(Method.EMPTINESS);
  }

  // 61
  @Test
  void shouldNotConsiderCandidatesThatHaveFullyBlockingPdbs() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES);
    f.node("destination", "default", t(4)).notConsolidatable().pods(pod("100m"));
    f.node("blocked", "default", t(2)).pods(pod("100m").name("web-0")).blockedBy("default/web-0", "pdb default/web prevents pod evictions");
    f.node("do-not-disrupt", "default", t(2)).pods(pod("100m").name("x")).blockedBy("default/x", "karpenter.sh/do-not-disrupt annotation");
    f.node("multiple", "default", t(2)).pods(pod("100m").name("y")).blockedBy("default/y", "pod default/y is selected by multiple PDBs (a, b)");
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "blocked")).containsExactly("pdb default/web prevents pod evictions");
    assertThat(messages(decision, "do-not-disrupt")).containsExactly("disruption is blocked by pod default/x: karpenter.sh/do-not-disrupt annotation");
    assertThat(messages(decision, "multiple")).containsExactly("pod default/y is selected by multiple PDBs (a, b)");
  }

  @Test
  void nominatedAndDoNotDisruptNodesAreBlocked() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", TYPES);
    f.node("nominated", "default", t(2)).nominated();
    f.node("annotated", "default", t(2)).doNotDisrupt();
    f.node("orphan", "missing", t(2));
    f.node("deleting", "default", t(2)).deleting();
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "nominated")).containsExactly("node is nominated for a pending pod");
    assertThat(messages(decision, "annotated")).containsExactly("disruption is blocked through the \"karpenter.sh/do-not-disrupt\" annotation");
    assertThat(messages(decision, "orphan")).containsExactly("nodepool \"missing\" can't be resolved for the node");
    assertThat(messages(decision, "deleting")).isEmpty();
  }

  @Test
  void healthyNodesThatStayAreNotReported() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ladder(4), ON_DEMAND);
    f.node("full", "default", t(1)).pods(pod("1")).notConsolidatable();
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.blocked()).isEmpty();
  }

  @Test
  void whenEmptyPoliciesDoNotConsolidateUnderutilizedNodes() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY, Duration.ZERO, List.of(budget("100%")), TYPES, ON_DEMAND);
    f.node("a", "default", t(8)).pods(pod("500m"));
    f.node("b", "default", t(8)).pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(decision.eligibleNodes()).containsEntry(Reason.UNDERUTILIZED, 0);
  }

  @Test
  void candidatesAreInterleavedAcrossNodePools() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("a", TYPES);
    f.pool("b", TYPES);
    DisruptionFixture.NodeBuilder a1 = new DisruptionFixture.NodeBuilder("a1", "a", t(8)).pods(pod("1"));
    DisruptionFixture.NodeBuilder a2 = new DisruptionFixture.NodeBuilder("a2", "a", t(6)).pods(pod("1"));
    DisruptionFixture.NodeBuilder b1 = new DisruptionFixture.NodeBuilder("b1", "b", t(2)).pods(pod("1"));
    f.nodes.addAll(List.of(a1, a2, b1));
    List<Candidate> ordered = DisruptionPass.consolidationOrder(Candidates.of(f.input()).graceful());
    assertThat(ordered).extracting(Candidate::name).containsExactly("a1", "b1", "a2");
  }

  // 62
  @Test
  void shouldStopMultiNodeConsolidationAfterTheDeadlineIsReached() {
    DisruptionFixture f = tenUnderutilizedNodes();
    f.clock.autoAdvance(Duration.ofMinutes(2));
    DisruptionPass pass = new DisruptionPass(f.input());
    assertThat(MultiNodeConsolidation.compute(pass)).isEmpty();
    assertThat(pass.timedOut()).containsExactly(Method.MULTI_NODE_CONSOLIDATION);
  }

  @Test
  void multiNodeConsolidationReturnsTheLastValidCommandOnTimeout() {
    List<Command> unhurried = MultiNodeConsolidation.compute(new DisruptionPass(tenUnderutilizedNodes().input()));
    assertThat(unhurried.getFirst().candidates()).hasSize(10);

    DisruptionFixture hurried = tenUnderutilizedNodes();
    // Every clock read advances 5 s: the method's loop reads it once per step and each simulation once
    // per pod it tries (upstream's simulations run under the method's timeout). The first simulation
    // (6 candidates) finishes at 35 s; the second (8) runs out of the minute part-way, so its move is
    // not valid and the last valid prefix is the command.
    hurried.clock.autoAdvance(Duration.ofSeconds(5));
    DisruptionPass pass = new DisruptionPass(hurried.input());
    List<Command> commands = MultiNodeConsolidation.compute(pass);
    assertThat(pass.timedOut()).containsExactly(Method.MULTI_NODE_CONSOLIDATION);
    assertThat(commands).hasSize(1);
    assertThat(commands.getFirst().candidates()).hasSize(6);
  }

  @Test
  void singleNodeConsolidationStopsAtItsDeadline() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ladder(4), ON_DEMAND);
    f.node("candidate", "default", t(4)).pods(pod("500m"));
    f.clock.autoAdvance(Duration.ofMinutes(4));
    DisruptionPass pass = new DisruptionPass(f.input());
    assertThat(SingleNodeConsolidation.compute(pass)).isEmpty();
    assertThat(pass.timedOut()).containsExactly(Method.SINGLE_NODE_CONSOLIDATION);
  }

  @Test
  void aSimulationStopsAtItsMethodsDeadlineAndItsMoveIsNotValid() {
    DisruptionFixture f = tenUnderutilizedNodes();
    DisruptionPass pass = new DisruptionPass(f.input());
    pass.simulation.deadline(sh.karpenter.core.scheduling.Deadline.afterChecks(1));
    Simulation.Outcome outcome = pass.simulation.run(pass.consolidationCandidates().subList(0, 3), true);
    assertThat(outcome.ok()).isFalse();
    assertThat(outcome.message()).contains("scheduling simulation timed out before this pod was tried");
  }

  private static DisruptionFixture tenUnderutilizedNodes() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("100%")), ladder(8), ON_DEMAND);
    for (int i = 0; i < 10; i++) {
      f.node("node-" + i, "default", t(4)).pods(pod("500m"));
    }
    return f;
  }

  @Test
  void multiNodeConsolidationTakesOnlyCandidatesWithinBudget() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("2")), ladder(8), ON_DEMAND);
    for (int i = 0; i < 5; i++) {
      f.node("node-" + i, "default", t(4)).pods(pod("500m"));
    }
    Decision decision = f.decide();
    assertThat(decision.method()).isEqualTo(Method.MULTI_NODE_CONSOLIDATION);
    assertThat(decision.commands().getFirst().candidates()).hasSize(2);
  }

  @Test
  void unknownInstanceTypesAreReportedUnconsolidatable() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ladder(4), ON_DEMAND);
    f.node("retired", "default", DisruptionFixture.type("retired-type", "4", "8Gi", 1, 0)).pods(pod("500m"));
    Decision decision = f.decide();
    assertThat(decision.isEmpty()).isTrue();
    assertThat(messages(decision, "retired")).containsExactly("instance type \"retired-type\" (test-zone-1, on-demand) can't be resolved in nodepool default");
  }
}
