package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.cost.CandidateOffering;
import sh.karpenter.core.cost.LowerBound;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * Plan cost against the proven lower bound on unconstrained pod mixes (requests only) over the
 * bundled AWS catalogue with one default NodePool. The test prints the ratio of a fixed seeded mix
 * and guards it against regressions; {@link #main} prints the full table (every mix, pod count and
 * capacity-type setting): {@code java -cp core/target/classes:core/target/test-classes:<deps>
 * sh.karpenter.core.scheduling.CostGapTest}.
 */
class CostGapTest {
  private static final List<InstanceType> AWS = InstanceTypeCatalog.aws().instanceTypes();

  /** Pod shapes by weight: cpu, memory, weight. */
  enum Mix {
    WEB(new String[][] {{"100m", "128Mi", "3"}, {"250m", "256Mi", "4"}, {"250m", "512Mi", "3"}, {"500m", "1Gi", "2"}, {"1", "2Gi", "1"}}),
    MEMORY_HEAVY(new String[][] {{"1", "8Gi", "4"}, {"500m", "4Gi", "2"}, {"2", "16Gi", "1"}}),
    CPU_HEAVY(new String[][] {{"4", "2Gi", "4"}, {"2", "1Gi", "2"}, {"8", "4Gi", "1"}}),
    MIXED(new String[][] {
      {"250m", "256Mi", "6"}, {"500m", "1Gi", "4"}, {"1", "2Gi", "3"}, {"1", "8Gi", "2"}, {"4", "2Gi", "2"}, {"2", "16Gi", "1"}
    });

    final String[][] shapes;

    Mix(String[][] shapes) {
      this.shapes = shapes;
    }

    List<Pod> pods(int count, long seed) {
      Random random = new Random(seed);
      int total = 0;
      for (String[] shape : shapes) {
        total += Integer.parseInt(shape[2]);
      }
      List<Pod> pods = new ArrayList<>(count);
      for (int i = 0; i < count; i++) {
        int point = random.nextInt(total);
        String[] chosen = shapes[0];
        for (String[] shape : shapes) {
          point -= Integer.parseInt(shape[2]);
          if (point < 0) {
            chosen = shape;
            break;
          }
        }
        pods.add(
            Pod.builder()
                .name(name().toLowerCase() + "-" + i)
                .uid(String.format("%s-%06d", name(), i))
                .creationTimestampMillis(i)
                .labels(Map.of("app", name().toLowerCase()))
                .container(Resources.builder().cpu(chosen[0]).memory(chosen[1]).build())
                .build());
      }
      return pods;
    }
  }

  /** The cost of a plan and the bound for its pods. */
  record Gap(double cost, double bound, int nodeClaims, int unschedulable, long millis) {
    double ratio() {
      return cost / bound;
    }
  }

  static NodeClaimTemplate defaultNodePool(boolean spot) {
    Requirements requirements =
        spot
            ? Requirements.of(
                Requirement.in(Labels.OS, "linux"),
                Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT, Labels.CAPACITY_TYPE_ON_DEMAND))
            : Requirements.of(Requirement.in(Labels.OS, "linux"), Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND));
    return new NodeClaimTemplate("default", 0, Map.of(), Map.of(), List.of(), List.of(), requirements, null, Resources.EMPTY, AWS);
  }

  static Gap measure(NodeClaimTemplate pool, List<Pod> pods) {
    SchedulingInput input = new SchedulingInput(List.of(pool), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT);
    long start = System.nanoTime();
    SchedulingResult result = new Scheduler(input).solve();
    long millis = (System.nanoTime() - start) / 1_000_000;
    double cost = 0;
    List<Pod> scheduled = new ArrayList<>();
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      cost += claim.price();
      scheduled.addAll(claim.pods());
    }
    List<CandidateOffering> offerings = new ArrayList<>();
    for (InstanceType type : InstanceTypes.compatible(pool.instanceTypes(), pool.requirements())) {
      for (Offering offering : type.offerings()) {
        if (offering.available() && offering.isCompatible(pool.requirements())) {
          offerings.add(CandidateOffering.purchasable(type.name() + "/" + offering.zone(), offering.price(), type.allocatable()));
        }
      }
    }
    LowerBound bound = LowerBound.forPods(scheduled, pod -> Boolean.TRUE, offerings, (pod, offering) -> true);
    return new Gap(cost, bound.perHour(), result.newNodeClaims().size(), result.unschedulable().size(), millis);
  }

  @Test
  void mixedPodsOnSpotAndOnDemandStayNearTheLowerBound() {
    Gap gap = measure(defaultNodePool(true), Mix.MIXED.pods(1000, 7));
    System.out.printf("mixed 1000 pods, spot+on-demand: cost %.4f, bound %.4f, ratio %.4f%n", gap.cost(), gap.bound(), gap.ratio());
    assertThat(gap.unschedulable()).isZero();
    assertThat(gap.ratio()).isLessThan(1.10);
  }

  @Test
  void memoryHeavyPodsOnDemandStayNearTheLowerBound() {
    Gap gap = measure(defaultNodePool(false), Mix.MEMORY_HEAVY.pods(300, 11));
    System.out.printf("memory-heavy 300 pods, on-demand: cost %.4f, bound %.4f, ratio %.4f%n", gap.cost(), gap.bound(), gap.ratio());
    assertThat(gap.unschedulable()).isZero();
    assertThat(gap.ratio()).isLessThan(1.10);
  }

  public static void main(String[] args) {
    int[] counts = {100, 500, 2000, 5000};
    for (boolean spot : new boolean[] {true, false}) {
      NodeClaimTemplate pool = defaultNodePool(spot);
      for (Mix mix : Mix.values()) {
        for (int count : counts) {
          Gap gap = measure(pool, mix.pods(count, 42));
          System.out.printf(
              "%-10s %-13s %5d pods: cost %9.4f  bound %9.4f  ratio %.4f  (%d claims, %d unschedulable, %d ms)%n",
              spot ? "spot+od" : "on-demand", mix.name().toLowerCase(), count, gap.cost(), gap.bound(), gap.ratio(),
              gap.nodeClaims(), gap.unschedulable(), gap.millis());
        }
      }
    }
  }
}
