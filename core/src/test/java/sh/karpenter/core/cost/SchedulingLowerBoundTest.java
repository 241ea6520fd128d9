package sh.karpenter.core.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;

/** {@link SchedulingLowerBound}: pods are grouped by the constraints offerings can tell apart. */
class SchedulingLowerBoundTest {
  private static final NodeClaimTemplate POOL =
      new NodeClaimTemplate(
          "default",
          0,
          Map.of(),
          Map.of(),
          List.of(new Taint("dedicated", "batch", Taint.Effect.NoSchedule)),
          List.of(),
          Requirements.of(Requirement.of("kubernetes.io/arch", Operator.In, List.of("amd64"), null)),
          null,
          Resources.EMPTY,
          InstanceTypeCatalog.aws().instanceTypes());

  private static Pod pod(int i, Pod.Builder constraints) {
    return constraints
        .namespace("default")
        .name("pod-" + i)
        .container(Resources.builder().cpu((100 + 250 * (i % 4)) + "m").memory("512Mi").build())
        .toleration(Toleration.equal("dedicated", "batch", Taint.Effect.NoSchedule))
        .build();
  }

  /**
   * 2,000 pods, each tolerating a taint no offering has and selecting a label no offering defines,
   * are as interchangeable as pods without those constraints: asked about once, within a budget that
   * could not ask every offering about 2,000 distinct pods, they get the same bound.
   */
  @Test
  void constraintsNoOfferingCanTellApartDoNotMakeClasses() {
    List<Pod> plain = new ArrayList<>();
    List<Pod> distinct = new ArrayList<>();
    for (int i = 0; i < 2000; i++) {
      plain.add(pod(i, Pod.builder()));
      distinct.add(
          pod(i, Pod.builder()
              .toleration(Toleration.exists("team-" + i, Taint.Effect.NoSchedule))
              .nodeSelector(Map.of("example.com/owner", "team-" + i))
              .requiredNodeAffinityTerm(Requirements.of(
                  Requirement.of("kubernetes.io/arch", Operator.In, List.of("amd64"), null),
                  Requirement.of("example.com/slot", Operator.In, List.of("s" + i), null)))));
    }
    SchedulingInput input = new SchedulingInput(List.of(POOL), List.of(), distinct, List.of(), null, SchedulerOptions.DEFAULT);
    int offerings = 0;
    for (var type : POOL.instanceTypes()) {
      offerings += type.offerings().size();
    }
    BoundBudget budget = BoundBudget.DEFAULT.withMaxSteps((long) offerings * LowerBound.MAY_USE_STEPS * 100);

    LowerBound withConstraints = SchedulingLowerBound.of(input, distinct, budget);
    LowerBound without = SchedulingLowerBound.of(input, plain, budget);

    assertThat(withConstraints.method()).isEqualTo(LowerBound.Method.LP);
    assertThat(withConstraints.perHour()).isPositive().isEqualTo(without.perHour());
  }

  @Test
  void aToleranceOfAnOfferingsTaintStillCounts() {
    List<Pod> untolerated = List.of(
        Pod.builder().namespace("default").name("p").container(Resources.builder().cpu("1").build()).build());
    SchedulingInput input = new SchedulingInput(List.of(POOL), List.of(), untolerated, List.of(), null, SchedulerOptions.DEFAULT);

    LowerBound bound = SchedulingLowerBound.of(input, untolerated);

    assertThat(bound.unplaceableClasses()).isEqualTo(1);
    assertThat(bound.perHour()).isZero();
  }
}
