package sh.karpenter.core.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
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

/** {@link NodePoolCost}: a pool's current cost from its nodes' offerings, and the bound on its pods. */
class NodePoolCostTest {
  private static final String ZONE = "zone-a";

  private static InstanceType type(String name, String cpu, String memory, double onDemand, double spot) {
    Requirements requirements = Requirements.of(
        Requirement.in(Labels.INSTANCE_TYPE, name),
        Requirement.in(Labels.ARCH, "amd64"),
        Requirement.in(Labels.OS, "linux"),
        Requirement.in(Labels.ZONE, ZONE),
        Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_SPOT));
    List<Offering> offerings = List.of(
        Offering.of(ZONE, Labels.CAPACITY_TYPE_ON_DEMAND, onDemand, true),
        Offering.of(ZONE, Labels.CAPACITY_TYPE_SPOT, spot, true));
    return new InstanceType(name, requirements, offerings, Resources.builder().cpu(cpu).memory(memory).pods(50).build(), Overhead.NONE);
  }

  private static final InstanceType SMALL = type("small", "2", "4Gi", 0.10, 0.04);
  private static final InstanceType LARGE = type("large", "8", "16Gi", 0.40, 0.16);

  private static NodeClaimTemplate template(List<InstanceType> types) {
    return new NodeClaimTemplate("general", 0, Map.of(), Map.of(), List.of(), List.of(), Requirements.EMPTY, null, Resources.EMPTY, types);
  }

  private static Pod pod(String name, String cpu) {
    return Pod.builder().namespace("default").name(name).container(Resources.builder().cpu(cpu).memory("1Gi").build()).build();
  }

  private static Pod daemon(String name, String cpu) {
    return Pod.builder().namespace("kube-system").name(name).owner("DaemonSet", "ds")
        .container(Resources.builder().cpu(cpu).memory("128Mi").build()).build();
  }

  private static ExistingNode node(String name, String type, String capacityType, List<Pod> pods) {
    Map<String, String> labels = new java.util.HashMap<>(Map.of(Labels.ZONE, ZONE, Labels.CAPACITY_TYPE, capacityType));
    if (type != null) {
      labels.put(Labels.INSTANCE_TYPE, type);
    }
    return new ExistingNode(name, labels, List.of(), Resources.builder().cpu("8").memory("16Gi").pods(50).build(), pods, true, "general");
  }

  @Test
  void currentCostIsTheSumOfEachNodesOfferingPrice() {
    List<ExistingNode> nodes = List.of(
        node("a", "large", Labels.CAPACITY_TYPE_ON_DEMAND, List.of(pod("p1", "1"))),
        node("b", "large", Labels.CAPACITY_TYPE_SPOT, List.of(pod("p2", "1"))),
        node("c", "small", Labels.CAPACITY_TYPE_ON_DEMAND, List.of()));

    NodePoolCost cost = NodePoolCost.of(template(List.of(SMALL, LARGE)), nodes, List.of(), BoundBudget.DEFAULT);

    assertThat(cost.nodePoolName()).isEqualTo("general");
    assertThat(cost.currentPerHour()).isCloseTo(0.40 + 0.16 + 0.10, within(1e-9));
    assertThat(cost.nodes()).isEqualTo(3);
    assertThat(cost.unpricedNodes()).isZero();
    assertThat(cost.pods()).isEqualTo(2);
  }

  @Test
  void aNodeWhoseOfferingIsUnknownAddsNothingAndIsCountedUnpriced() {
    List<ExistingNode> nodes = List.of(
        node("a", "large", Labels.CAPACITY_TYPE_ON_DEMAND, List.of()),
        node("gone-type", "retired", Labels.CAPACITY_TYPE_ON_DEMAND, List.of()),
        node("in-flight", null, Labels.CAPACITY_TYPE_ON_DEMAND, List.of()));

    NodePoolCost cost = NodePoolCost.of(template(List.of(SMALL, LARGE)), nodes, List.of(), BoundBudget.DEFAULT);

    assertThat(cost.currentPerHour()).isCloseTo(0.40, within(1e-9));
    assertThat(cost.unpricedNodes()).isEqualTo(2);
  }

  /** Two 1-CPU pods on two large on-demand nodes: one spot small node would do, so the bound is at most its price. */
  @Test
  void theBoundIsWhatTheRunningPodsNeedAtTheLeastAndTheGapIsTheShareAboveIt() {
    List<ExistingNode> nodes = List.of(
        node("a", "large", Labels.CAPACITY_TYPE_ON_DEMAND, List.of(pod("p1", "1"))),
        node("b", "large", Labels.CAPACITY_TYPE_ON_DEMAND, List.of(pod("p2", "1"))));

    NodePoolCost cost = NodePoolCost.of(template(List.of(SMALL, LARGE)), nodes, List.of(), BoundBudget.DEFAULT);

    assertThat(cost.lowerBound().perHour()).isPositive().isLessThanOrEqualTo(0.04 + 1e-9);
    assertThat(cost.gapRatio()).isCloseTo((0.80 - cost.lowerBound().perHour()) / 0.80, within(1e-12));
    assertThat(cost.gapRatio()).isGreaterThan(0.9);
  }

  @Test
  void daemonSetPodsAreOverheadNotDemand() {
    List<Pod> pods = List.of(pod("p1", "1500m"), daemon("ds-a", "100m"));
    List<ExistingNode> nodes = List.of(node("a", "small", Labels.CAPACITY_TYPE_ON_DEMAND, pods));

    NodePoolCost without = NodePoolCost.of(template(List.of(SMALL, LARGE)), nodes, List.of(), BoundBudget.DEFAULT);
    NodePoolCost with = NodePoolCost.of(template(List.of(SMALL, LARGE)), nodes, List.of(daemon("ds-a", "1")), BoundBudget.DEFAULT);

    assertThat(without.pods()).isEqualTo(1);
    // the DaemonSet leaves 1 CPU of a small node, too little for the 1.5-CPU pod: the bound rises
    assertThat(with.lowerBound().perHour()).isGreaterThan(without.lowerBound().perHour());
  }

  @Test
  void anEmptyPoolCostsNothingAndHasNoGap() {
    NodePoolCost cost = NodePoolCost.of(template(List.of(SMALL)), List.of(), List.of(), BoundBudget.DEFAULT);

    assertThat(cost.currentPerHour()).isZero();
    assertThat(cost.lowerBound().perHour()).isZero();
    assertThat(cost.gapRatio()).isZero();
  }

  /** Pods on capacity cheaper than anything the pool can launch now: the gap is negative, not hidden. */
  @Test
  void theGapIsNegativeWhenThePoolRunsCheaperThanItCouldLaunchNow() {
    InstanceType repriced = type("small", "2", "4Gi", 1.00, 0.90);
    List<ExistingNode> nodes = List.of(node("a", "retired", Labels.CAPACITY_TYPE_SPOT, List.of(pod("p1", "1500m"))),
        node("b", "small", Labels.CAPACITY_TYPE_SPOT, List.of(pod("p2", "1500m"))));

    NodePoolCost cost = NodePoolCost.of(template(List.of(repriced)), nodes, List.of(), BoundBudget.DEFAULT);

    assertThat(cost.currentPerHour()).isCloseTo(0.90, within(1e-9));
    assertThat(cost.lowerBound().perHour()).isGreaterThan(1.0);
    assertThat(cost.gapRatio()).isNegative();
  }

  @Test
  void theInputKeyChangesWithPodsNodesAndPricesOnly() {
    List<ExistingNode> nodes = new ArrayList<>(List.of(node("a", "large", Labels.CAPACITY_TYPE_ON_DEMAND, List.of(pod("p1", "1")))));
    List<Object> key = NodePoolCost.inputKey(template(List.of(SMALL, LARGE)), nodes, List.of());

    assertThat(NodePoolCost.inputKey(template(List.of(SMALL, LARGE)), List.copyOf(nodes), List.of())).isEqualTo(key);
    assertThat(NodePoolCost.inputKey(template(List.of(SMALL, LARGE)),
        List.of(node("a", "large", Labels.CAPACITY_TYPE_ON_DEMAND, List.of(pod("p1", "1"), pod("p2", "1")))), List.of()))
        .isNotEqualTo(key);
    assertThat(NodePoolCost.inputKey(template(List.of(SMALL, LARGE)),
        List.of(node("a", "large", Labels.CAPACITY_TYPE_ON_DEMAND, List.of(pod("p1", "2")))), List.of()))
        .isNotEqualTo(key);
    assertThat(NodePoolCost.inputKey(template(List.of(type("small", "2", "4Gi", 0.11, 0.04), LARGE)), nodes, List.of()))
        .isNotEqualTo(key);
    assertThat(NodePoolCost.inputKey(template(List.of(SMALL, LARGE)), nodes, List.of(daemon("ds", "100m")))).isNotEqualTo(key);
  }
}
