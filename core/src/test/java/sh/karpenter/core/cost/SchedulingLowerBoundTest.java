package sh.karpenter.core.cost;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.wellknown.Labels;

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

  /** Pods of several shapes and constraints, some only the bound's relaxation can rule out. */
  private static List<Pod> mixedPods(int count) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Pod.Builder builder = Pod.builder();
      switch (i % 5) {
        case 0 -> builder.nodeSelector(Map.of(Labels.ZONE, "us-east-1" + (char) ('a' + i % 3)));
        case 1 -> builder.requiredNodeAffinityTerm(Requirements.of(Requirement.of(Labels.CAPACITY_TYPE, Operator.In, List.of("spot"), null)));
        case 2 -> builder.nodeSelector(Map.of(Labels.ZONE, "nowhere-1a")); // no offering is in that zone
        default -> {}
      }
      pods.add(pod(i, builder));
    }
    pods.add(Pod.builder().namespace("default").name("too-big").container(Resources.builder().cpu("5000").build())
        .toleration(Toleration.equal("dedicated", "batch", Taint.Effect.NoSchedule)).build());
    pods.add(Pod.builder().namespace("default").name("untolerated").container(Resources.builder().cpu("1").build()).build());
    return pods;
  }

  /** The bound depends on the set of pods, not on the order it is given them in. */
  @ParameterizedTest(name = "seed {0}")
  @ValueSource(longs = {1, 2, 3, 20240611})
  void theBoundIsTheSameInAnyOrder(long seed) {
    List<Pod> pods = mixedPods(300);
    SchedulingInput input = new SchedulingInput(List.of(POOL), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT);
    List<Pod> shuffled = new ArrayList<>(pods);
    Collections.shuffle(shuffled, new Random(seed));

    assertThat(SchedulingLowerBound.of(input, shuffled)).as("seed %d", seed).isEqualTo(SchedulingLowerBound.of(input, pods));
  }

  /**
   * The pods the relaxation allows are the pods a solve places when nothing but requirements,
   * taints and resources stops it: the bound over them, computed before the solve, is the bound of
   * its result.
   */
  @Test
  void thePodsTheRelaxationAllowsAreThePodsASolvePlaces() {
    List<Pod> pods = mixedPods(200);
    SchedulingInput input = new SchedulingInput(List.of(POOL), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT);

    SchedulingLowerBound.Guess guess = SchedulingLowerBound.guess(input, BoundBudget.DEFAULT).orElseThrow();
    List<Pod> placed = new Scheduler(input).solve().placedPods();

    assertThat(guess.pods()).hasSize(160).doesNotContain(pods.get(2), pods.get(200), pods.get(201));
    assertThat(placed).containsExactlyInAnyOrderElementsOf(guess.pods());
    assertThat(guess.bound()).isEqualTo(SchedulingLowerBound.of(input, placed)).isEqualTo(SchedulingLowerBound.of(input, guess.pods()));
    assertThat(guess.bound().perHour()).isPositive();
  }

  /** Without the budget to ask every offering about each pod constraint, there is no guess. */
  @Test
  void theGuessStaysWithinTheBudget() {
    List<Pod> pods = mixedPods(50);
    SchedulingInput input = new SchedulingInput(List.of(POOL), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT);

    assertThat(SchedulingLowerBound.guess(input, BoundBudget.DEFAULT.withMaxSteps(1000))).isEmpty();
  }

  /**
   * The bound prices offerings as the scheduler does, at launchable ones (upstream v1.15
   * Launchable): a reserved offering whose reservation is full is available but launches nothing, so
   * it must not pull the bound below what the scheduler can pay; with capacity left it counts.
   */
  @Test
  void aFullReservationIsNotAnOfferingTheBoundMayBuy() {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      pods.add(Pod.builder().namespace("default").name("p-" + i).container(Resources.builder().cpu("1").memory("1Gi").build()).build());
    }

    double full = boundWithReservation(pods, 0);
    double withRoom = boundWithReservation(pods, 5);
    double onDemandOnly = bound(pods, reservableType(null));

    assertThat(full).isEqualTo(onDemandOnly).isPositive();
    assertThat(withRoom).isLessThan(full);
    SchedulingInput input = input(pods, reservableType(reserved(0)));
    double planned = new Scheduler(input).solve().newNodeClaims().stream().mapToDouble(PlannedNodeClaim::price).sum();
    assertThat(planned).as("the plan costs at least its bound").isGreaterThanOrEqualTo(full);
  }

  private static double boundWithReservation(List<Pod> pods, int capacity) {
    return bound(pods, reservableType(reserved(capacity)));
  }

  private static double bound(List<Pod> pods, InstanceType type) {
    return SchedulingLowerBound.of(input(pods, type), pods).perHour();
  }

  private static SchedulingInput input(List<Pod> pods, InstanceType type) {
    NodeClaimTemplate pool =
        new NodeClaimTemplate("default", 0, Map.of(), Map.of(), List.of(), List.of(), new Requirements(), null, Resources.EMPTY, List.of(type));
    return new SchedulingInput(List.of(pool), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT);
  }

  private static Offering reserved(int capacity) {
    return new Offering(
        Requirements.of(
            Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED),
            Requirement.in(Labels.ZONE, "zone-a"),
            Requirement.in(Labels.RESERVATION_ID, "r-1")),
        0.01,
        true,
        capacity);
  }

  /** A 4-cpu type on demand at $1/h in zone-a, plus the reserved offering when given. */
  private static InstanceType reservableType(Offering reserved) {
    List<Offering> offerings = new ArrayList<>(List.of(Offering.of("zone-a", Labels.CAPACITY_TYPE_ON_DEMAND, 1.0, true)));
    if (reserved != null) {
      offerings.add(reserved);
    }
    Requirements requirements =
        Requirements.of(
            Requirement.in(Labels.INSTANCE_TYPE, "four-cpu"),
            Requirement.in(Labels.ARCH, "amd64"),
            Requirement.in(Labels.OS, "linux"),
            Requirement.in(Labels.ZONE, "zone-a"),
            Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_RESERVED));
    return new InstanceType("four-cpu", requirements, offerings, Resources.builder().cpu("4").memory("16Gi").pods(110).build(), Overhead.NONE);
  }
}
