package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.disruption.DisruptionFixture.NOW;
import static sh.karpenter.core.disruption.DisruptionFixture.ladder;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.wellknown.Labels;

/**
 * Why-not reasons (docs/behaviour/disruption.md#why-not): every managed node a pass leaves alone gets
 * exactly one reason, the most important that holds; disrupted nodes and unmanaged nodes get none.
 */
class WhyNotTest {
  private static final List<InstanceType> TYPES = ladder(8);

  private static InstanceType t(int cpus) {
    return TYPES.get(cpus - 1);
  }

  private static Budget budget(String nodes) {
    return new Budget(nodes, null, null, null);
  }

  private static Map<String, Undisrupted> byNode(Decision decision) {
    return decision.undisrupted().stream().collect(Collectors.toMap(Undisrupted::nodeName, Function.identity()));
  }

  private static final Requirement ON_DEMAND = Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND);

  private static DisruptionFixture cluster() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("100%")), TYPES, ON_DEMAND);
    return f;
  }

  /** A node that consolidation cannot help: its pod needs more room than any other node has and the cheapest type that fits it. */
  private static void full(DisruptionFixture f, String name) {
    f.node(name, "default", t(4)).pods(pod("3500m"));
  }

  @Test
  void eachProtectionIsItsOwnReasonNamingTheObject() {
    DisruptionFixture f = cluster();
    f.pool("empty-only", ConsolidationPolicy.WHEN_EMPTY, Duration.ZERO, List.of(), TYPES, ON_DEMAND);
    f.pool("never", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, null, List.of(), TYPES, ON_DEMAND);
    f.pool("slow", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ofMinutes(10), List.of(), TYPES, ON_DEMAND);
    f.node("deleting", "default", t(4)).deleting().pods(pod("1"));
    f.node("marked", "default", t(4)).markedForDeletion().pods(pod("1"));
    f.node("new", "default", t(4)).uninitialized().pods(pod("1"));
    f.node("nominated", "default", t(4)).nominated().pods(pod("1"));
    f.node("annotated", "default", t(4)).doNotDisrupt().pods(pod("1"));
    f.node("pod-annotated", "default", t(4)).pods(pod("1"))
        .blockedBy("default/keep", "pod default/keep has \"karpenter.sh/do-not-disrupt\" annotation");
    f.node("pdb", "default", t(4)).pods(pod("1")).blockedBy("default/web-1", "pdb default/web prevents pod evictions");
    f.node("when-empty", "empty-only", t(4)).pods(pod("1"));
    f.node("never", "never", t(4)).pods(pod("1"));
    f.node("young", "slow", t(4)).notConsolidatable().lastPodEvent(NOW.minusSeconds(60)).pods(pod("1"));
    full(f, "full");
    f.node("unmanaged", "default", t(4)).unmanaged().pods(pod("1"));

    Decision decision = f.decide();

    assertThat(decision.isEmpty()).as("commands %s", decision.commands()).isTrue();
    Map<String, Undisrupted> reasons = byNode(decision);
    assertThat(reasons).doesNotContainKey("unmanaged");
    assertThat(reasons.get("deleting").why()).isEqualTo(WhyNot.BEING_DELETED);
    assertThat(reasons.get("marked").why()).isEqualTo(WhyNot.BEING_DELETED);
    assertThat(reasons.get("new").why()).isEqualTo(WhyNot.NOT_INITIALIZED);
    assertThat(reasons.get("nominated").why()).isEqualTo(WhyNot.NOMINATED);
    assertThat(reasons.get("annotated")).satisfies(r -> {
      assertThat(r.why()).isEqualTo(WhyNot.DO_NOT_DISRUPT);
      assertThat(r.message()).contains("node has the \"karpenter.sh/do-not-disrupt\" annotation");
    });
    assertThat(reasons.get("pod-annotated")).satisfies(r -> {
      assertThat(r.why()).isEqualTo(WhyNot.DO_NOT_DISRUPT);
      assertThat(r.message()).contains("default/keep");
    });
    assertThat(reasons.get("pdb")).satisfies(r -> {
      assertThat(r.why()).isEqualTo(WhyNot.PDB);
      assertThat(r.message()).isEqualTo("pdb default/web prevents pod evictions of pod default/web-1");
    });
    assertThat(reasons.get("when-empty")).satisfies(r -> {
      assertThat(r.why()).isEqualTo(WhyNot.POLICY);
      assertThat(r.message()).contains("empty-only", "WhenEmpty");
    });
    assertThat(reasons.get("never")).satisfies(r -> {
      assertThat(r.why()).isEqualTo(WhyNot.POLICY);
      assertThat(r.message()).contains("never", "consolidateAfter: Never");
    });
    assertThat(reasons.get("young")).satisfies(r -> {
      assertThat(r.why()).isEqualTo(WhyNot.WITHIN_CONSOLIDATE_AFTER);
      assertThat(r.message()).contains("10m", "slow", NOW.plusSeconds(540).toString());
    });
    assertThat(reasons.get("full")).satisfies(r -> {
      assertThat(r.why()).isEqualTo(WhyNot.NO_CHEAPER_PLACEMENT);
      assertThat(r.nodePoolName()).isEqualTo("default");
    });
  }

  @Test
  void aUsedUpBudgetNamesTheNodePoolAndReason() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(budget("0")), TYPES);
    f.node("big", "default", t(8)).pods(pod("1"));
    f.node("idle", "default", t(8));

    Map<String, Undisrupted> reasons = byNode(f.decide());

    assertThat(reasons.get("big").why()).isEqualTo(WhyNot.BUDGET);
    assertThat(reasons.get("big").message()).contains("nodepool default", "Underutilized");
    assertThat(reasons.get("idle").why()).isEqualTo(WhyNot.BUDGET);
    assertThat(reasons.get("idle").message()).contains("nodepool default", "Empty");
  }

  @Test
  void nodesACommandTakesGetNoReasonAndTheOthersWereNotEvaluated() {
    DisruptionFixture f = cluster();
    f.node("idle", "default", t(4));
    f.node("busy", "default", t(8)).pods(pod("1"));

    Decision decision = f.decide();

    assertThat(decision.method()).isEqualTo(Method.EMPTINESS);
    assertThat(decision.undisrupted()).singleElement().satisfies(r -> {
      assertThat(r.nodeName()).isEqualTo("busy");
      assertThat(r.why()).isEqualTo(WhyNot.NOT_EVALUATED);
      assertThat(r.message()).contains("emptiness");
    });
  }

  @Test
  void aMoveTheBalancedPolicyRejectsIsItsOwnReason() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.BALANCED, Duration.ZERO, List.of(budget("100%")), TYPES);
    Pod[] small = new Pod[8];
    for (int i = 0; i < small.length; i++) {
      small[i] = pod("100m").nodeName("busy-cheap").build();
    }
    f.node("busy-cheap", "default", t(1)).pods(small);
    f.node("full-dear", "default", t(8)).notConsolidatable().pods(pod("1"), pod("1"), pod("1"), pod("1"), pod("1"), pod("1"), pod("1"));

    Map<String, Undisrupted> reasons = byNode(f.decide());

    assertThat(reasons.get("busy-cheap").why()).isEqualTo(WhyNot.BALANCED_SCORE);
    assertThat(reasons.get("busy-cheap").message()).contains("below 0.50");
    assertThat(reasons.get("full-dear").why()).isEqualTo(WhyNot.WITHIN_CONSOLIDATE_AFTER);
  }

  @Test
  void theMostImportantReasonWins() {
    DisruptionFixture f = new DisruptionFixture();
    f.pool("default", ConsolidationPolicy.WHEN_EMPTY, Duration.ZERO, List.of(budget("0")), TYPES);
    // do-not-disrupt pod, PDB pod, WhenEmpty policy, budget 0 and not Consolidatable all hold
    f.node("all", "default", t(4)).notConsolidatable().pods(pod("1"))
        .blockedBy("default/web-1", "pdb default/web prevents pod evictions")
        .blockedBy("default/keep", "pod default/keep has \"karpenter.sh/do-not-disrupt\" annotation");
    f.node("pdb-and-policy", "default", t(4)).pods(pod("1")).blockedBy("default/web-2", "pdb default/web prevents pod evictions");
    f.node("policy-and-window", "default", t(4)).notConsolidatable().pods(pod("1"));
    f.node("window-and-budget", "default", t(4)).notConsolidatable();
    f.node("nominated-and-annotated", "default", t(4)).nominated().doNotDisrupt();

    Map<String, Undisrupted> reasons = byNode(f.decide());

    assertThat(reasons.get("all").why()).isEqualTo(WhyNot.DO_NOT_DISRUPT);
    assertThat(reasons.get("pdb-and-policy").why()).isEqualTo(WhyNot.PDB);
    assertThat(reasons.get("policy-and-window").why()).isEqualTo(WhyNot.POLICY);
    assertThat(reasons.get("window-and-budget").why()).isEqualTo(WhyNot.WITHIN_CONSOLIDATE_AFTER);
    assertThat(reasons.get("nominated-and-annotated").why()).isEqualTo(WhyNot.NOMINATED);
  }

  @Test
  void blockedEntriesAreClassedByEventAndMessage() {
    assertThat(new Blocked("n", "c", "Unconsolidatable", "payback of 14 days exceeds 7 days").why()).isEqualTo(WhyNot.PAYBACK_TOO_LONG);
    assertThat(new Blocked("n", "c", "Unconsolidatable", "can't replace with a cheaper node").why()).isEqualTo(WhyNot.NO_CHEAPER_PLACEMENT);
    assertThat(new Blocked("n", "c", "Unconsolidatable", "can't remove without creating 2 nodes").why()).isEqualTo(WhyNot.NO_CHEAPER_PLACEMENT);
    assertThat(new Blocked("n", "c", "Unconsolidatable", "instance type \"x\" (z, spot) can't be resolved in nodepool p").why())
        .isEqualTo(WhyNot.OTHER);
    assertThat(new Blocked("n", "c", "DisruptionBlocked", "pdb default/web prevents pod evictions").why()).isEqualTo(WhyNot.PDB);
    assertThat(new Blocked("n", "c", "DisruptionBlocked", "budget for nodepool p reason Empty allows 0 disruptions").why())
        .isEqualTo(WhyNot.BUDGET);
    assertThat(new Blocked("n", "c", "DisruptionBlocked", "disruption is blocked through the \"karpenter.sh/do-not-disrupt\" annotation").why())
        .isEqualTo(WhyNot.DO_NOT_DISRUPT);
    assertThat(new Blocked("n", "c", "NodeRepairBlocked", "more than 20% of nodes in nodepool \"x\" are unhealthy").why()).isEqualTo(WhyNot.OTHER);
  }

  @Test
  void apiNamesAreDistinctConditionReasons() {
    Set<String> names = EnumSet.allOf(WhyNot.class).stream().map(WhyNot::apiName).collect(Collectors.toSet());
    assertThat(names).hasSize(WhyNot.values().length).allMatch(n -> n.matches("^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$"));
    for (WhyNot why : WhyNot.values()) {
      assertThat(WhyNot.ofApiName(why.apiName())).isSameAs(why);
    }
  }

  /** Whatever the cluster, every managed node is either in a command or has exactly one reason. */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 4, 5, 6, 7, 8})
  void everyManagedNodeIsDisruptedOrHasExactlyOneReason(long seed) {
    java.util.Random random = new java.util.Random(seed);
    DisruptionFixture f = new DisruptionFixture();
    ConsolidationPolicy[] policies = ConsolidationPolicy.values();
    f.pool("default", policies[random.nextInt(policies.length)], random.nextBoolean() ? Duration.ZERO : null,
        List.of(budget(Integer.toString(random.nextInt(3)))), TYPES);
    int count = 3 + random.nextInt(6);
    for (int i = 0; i < count; i++) {
      DisruptionFixture.NodeBuilder node = f.node("n" + i, "default", t(1 + random.nextInt(8)));
      int pods = random.nextInt(3);
      for (int p = 0; p < pods; p++) {
        node.pods(pod("500m"));
      }
      switch (random.nextInt(8)) {
        case 0 -> node.doNotDisrupt();
        case 1 -> node.notConsolidatable();
        case 2 -> node.uninitialized();
        case 3 -> node.blockedBy("default/p" + i, "pdb default/p prevents pod evictions");
        case 4 -> node.drifted("NodePoolDrifted", NOW.minusSeconds(60));
        default -> { }
      }
    }
    Decision decision = f.decide();
    Set<String> disrupted = decision.commands().stream().flatMap(c -> c.candidates().stream()).map(Candidate::name).collect(Collectors.toSet());
    List<String> explained = decision.undisrupted().stream().map(Undisrupted::nodeName).toList();
    assertThat(explained).as("seed %d", seed).doesNotHaveDuplicates().noneMatch(disrupted::contains);
    assertThat(explained.size() + disrupted.size()).as("seed %d", seed).isEqualTo(count);
    assertThat(decision.undisrupted()).as("seed %d", seed).allSatisfy(r -> assertThat(r.message()).isNotBlank());
  }
}
