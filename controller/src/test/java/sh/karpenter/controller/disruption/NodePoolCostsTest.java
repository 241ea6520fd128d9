package sh.karpenter.controller.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import io.prometheus.client.CollectorRegistry;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.snapshot.ClusterSnapshot;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.wellknown.Labels;

/** {@link NodePoolCosts}: the cost-gap gauges per NodePool, computed only when a pool's inputs change. */
class NodePoolCostsTest {
  private final CollectorRegistry registry = new CollectorRegistry();
  private final Metrics metrics = new Metrics(registry);
  private final TestingClock clock = new TestingClock(Instant.parse("2030-01-02T00:00:00Z"));
  /** Runs nothing until the test says so, like a busy background thread. */
  private final List<Runnable> tasks = new ArrayList<>();
  private final NodePoolCosts costs = new NodePoolCosts(metrics, tasks::add, clock);

  private static final InstanceType LARGE = new InstanceType("large",
      Requirements.of(Requirement.in(Labels.INSTANCE_TYPE, "large"), Requirement.in(Labels.ARCH, "amd64"), Requirement.in(Labels.OS, "linux"),
          Requirement.in(Labels.ZONE, "zone-a"), Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND)),
      List.of(Offering.of("zone-a", Labels.CAPACITY_TYPE_ON_DEMAND, 0.40, true)),
      Resources.builder().cpu("8").memory("16Gi").pods(50).build(), Overhead.NONE);

  private static NodeClaimTemplate template(String pool) {
    return new NodeClaimTemplate(pool, 0, Map.of(), Map.of(), List.of(), List.of(), Requirements.EMPTY, null, Resources.EMPTY, List.of(LARGE));
  }

  private static ExistingNode node(String name, String pool, int pods) {
    List<Pod> bound = new ArrayList<>();
    for (int i = 0; i < pods; i++) {
      bound.add(Pod.builder().namespace("default").name(name + "-" + i).container(Resources.builder().cpu("2").memory("1Gi").build()).build());
    }
    return new ExistingNode(name,
        Map.of(Labels.INSTANCE_TYPE, "large", Labels.ZONE, "zone-a", Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND),
        List.of(), LARGE.allocatable(), bound, true, pool);
  }

  private static ClusterSnapshot snapshot(List<NodeClaimTemplate> templates, List<ExistingNode> nodes) {
    return new ClusterSnapshot(templates, nodes, List.of(), List.of(), List.of(), null, Map.of(), List.of(), Map.of());
  }

  private Double gauge(String name, String pool) {
    return registry.getSampleValue(name, new String[] {"nodepool"}, new String[] {pool});
  }

  private void runTasks() {
    List<Runnable> now = List.copyOf(tasks);
    tasks.clear();
    now.forEach(Runnable::run);
  }

  @Test
  void eachPoolGetsItsCurrentCostLowerBoundAndGapOnceTheBackgroundTaskRan() {
    costs.observe(snapshot(List.of(template("general"), template("batch")),
        List.of(node("a", "general", 1), node("b", "general", 1), node("c", "batch", 3), node("unmanaged", null, 2))));

    assertThat(gauge("karpenter_nodepools_cost_current", "general")).as("nothing computed on the loop thread").isNull();
    assertThat(tasks).hasSize(1);
    runTasks();

    assertThat(gauge("karpenter_nodepools_cost_current", "general")).isCloseTo(0.80, within(1e-9));
    // two 2-CPU pods fit on one large node: the bound is at most its price, half of what the pool pays
    assertThat(gauge("karpenter_nodepools_cost_lower_bound", "general")).isPositive().isLessThanOrEqualTo(0.40 + 1e-9);
    assertThat(gauge("karpenter_nodepools_cost_gap_ratio", "general")).isGreaterThanOrEqualTo(0.5 - 1e-9);
    assertThat(gauge("karpenter_nodepools_cost_current", "batch")).isCloseTo(0.40, within(1e-9));
    assertThat(gauge("karpenter_nodepools_cost_current", "")).isNull();
  }

  @Test
  void aPassWithUnchangedInputsComputesNothingAndAChangedPoolIsComputedAgain() {
    ClusterSnapshot first = snapshot(List.of(template("general")), List.of(node("a", "general", 1)));
    costs.observe(first);
    runTasks();

    costs.observe(snapshot(List.of(template("general")), List.of(node("a", "general", 1))));
    assertThat(tasks).isEmpty();

    costs.observe(snapshot(List.of(template("general")), List.of(node("a", "general", 1), node("b", "general", 1))));
    assertThat(tasks).hasSize(1);
    runTasks();
    assertThat(gauge("karpenter_nodepools_cost_current", "general")).isCloseTo(0.80, within(1e-9));
  }

  @Test
  void onlyThePoolsNewestInputIsComputedWhileTheExecutorIsBusy() {
    costs.observe(snapshot(List.of(template("general")), List.of(node("a", "general", 1))));
    costs.observe(snapshot(List.of(template("general")), List.of(node("a", "general", 1), node("b", "general", 1))));
    costs.observe(snapshot(List.of(template("general")), List.of(node("a", "general", 1), node("b", "general", 1), node("c", "general", 1))));

    assertThat(tasks).as("one drain task, not one per pass").hasSize(1);
    runTasks();
    assertThat(gauge("karpenter_nodepools_cost_current", "general")).isCloseTo(1.20, within(1e-9));
  }

  @Test
  void aPoolWithoutATemplateLosesItsSeries() {
    costs.observe(snapshot(List.of(template("general"), template("batch")), List.of(node("a", "general", 1), node("c", "batch", 1))));
    runTasks();

    costs.observe(snapshot(List.of(template("general")), List.of(node("a", "general", 1))));

    assertThat(gauge("karpenter_nodepools_cost_current", "batch")).isNull();
    assertThat(gauge("karpenter_nodepools_cost_lower_bound", "batch")).isNull();
    assertThat(gauge("karpenter_nodepools_cost_gap_ratio", "batch")).isNull();
    assertThat(gauge("karpenter_nodepools_cost_current", "general")).isNotNull();
  }

  @Test
  void theBoundHasAStepBudgetAndADeadline() {
    assertThat(costs.budget().maxSteps()).isEqualTo(sh.karpenter.core.cost.BoundBudget.DEFAULT_MAX_STEPS);
    assertThat(costs.budget().timeLimit()).isEqualTo(NodePoolCosts.TIME_LIMIT);
  }
}
