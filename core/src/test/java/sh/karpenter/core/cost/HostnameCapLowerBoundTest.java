package sh.karpenter.core.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.wellknown.Labels;

/**
 * Per-node caps of the bound: pods of one required hostname anti-affinity group that selects them
 * all fit at most one to a node, and the fit cuts say so; groups never merge.
 */
class HostnameCapLowerBoundTest {

  /** N pods of one group that one big node would hold: the bound is N of the cheapest node holding one. */
  @Test
  void podsOfOneAntiAffinityGroupPayOneNodeEach() {
    int n = 8;
    List<Pod> grouped = new ArrayList<>();
    List<Pod> plain = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      grouped.add(antiAffine("web-" + i, "web", "1"));
      plain.add(plain("web-" + i, "1"));
    }
    List<InstanceType> types = List.of(type("small", 2, 0.10), type("big", 16, 0.50));

    double capped = SchedulingLowerBound.of(input(grouped, types), grouped).perHour();
    double uncapped = SchedulingLowerBound.of(input(plain, types), plain).perHour();

    assertThat(uncapped).as("without the cap: half of one big node").isCloseTo(0.25, within(1e-6));
    assertThat(capped).as("one small node per pod").isGreaterThanOrEqualTo(n * 0.10 * (1 - 1e-6)).isLessThanOrEqualTo(n * 0.10);
    assertThat(planCost(input(grouped, types))).isGreaterThanOrEqualTo(capped);
  }

  /** Two groups of the same shape stay two classes: a node may hold one pod of each. */
  @Test
  void groupsOfTheSameShapeMayShareNodes() {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pods.add(antiAffine("a-" + i, "a", "1"));
      pods.add(antiAffine("b-" + i, "b", "1"));
    }
    List<InstanceType> types = List.of(type("two", 2, 0.10));
    // The plan pairing one pod of a with one of b on each of 4 nodes costs 0.40.
    double bound = SchedulingLowerBound.of(input(pods, types), pods).perHour();
    assertThat(bound).isLessThanOrEqualTo(0.40).isCloseTo(0.40, within(1e-6));
    assertThat(planCost(input(pods, types))).isGreaterThanOrEqualTo(bound);
  }

  /** The same on classes given directly: same requests and candidates, different groups, no merging. */
  @Test
  void classesOfDifferentGroupsDoNotMerge() {
    BitSet all = new BitSet();
    all.set(0);
    Resources requests = Resources.builder().cpu("1").pods(1).build();
    List<CandidateOffering> offerings = List.of(CandidateOffering.purchasable("two", 0.10, Resources.builder().cpu("2").pods(110).build()));
    List<DemandClass> twoGroups = List.of(new DemandClass("a", 4, requests, all, "group-a"), new DemandClass("b", 4, requests, all, "group-b"));
    List<DemandClass> oneGroup = List.of(new DemandClass("a", 4, requests, all, "group-a"), new DemandClass("a2", 4, requests, all, "group-a"));

    assertThat(LowerBound.compute(twoGroups, offerings).perHour()).isCloseTo(0.40, within(1e-6));
    assertThat(LowerBound.compute(oneGroup, offerings).perHour()).isCloseTo(0.80, within(1e-6));
  }

  /** A selector that does not match the pod itself, or another topology key, caps nothing. */
  @Test
  void onlyTermsSelectingThePodItselfOnHostnameCap() {
    Pod self = antiAffine("p", "web", "1");
    Pod other =
        Pod.builder().namespace("default").name("q").labels(Map.of("app", "web"))
            .requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("app", "db")), Labels.HOSTNAME))
            .container(Resources.builder().cpu("1").build()).build();
    Pod zone =
        Pod.builder().namespace("default").name("r").labels(Map.of("app", "web"))
            .requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("app", "web")), Labels.ZONE))
            .container(Resources.builder().cpu("1").build()).build();
    assertThat(SchedulingLowerBound.onePerNode(self)).isNotNull();
    assertThat(SchedulingLowerBound.onePerNode(other)).isNull();
    assertThat(SchedulingLowerBound.onePerNode(zone)).isNull();
    assertThat(SchedulingLowerBound.onePerNode(antiAffine("x", "db", "1"))).isNotEqualTo(SchedulingLowerBound.onePerNode(self));
  }

  /** Every 8th type of the AWS catalog: varied sizes and prices, and a quick sweep. */
  private static final List<InstanceType> CATALOG = everyEighth(InstanceTypeCatalog.aws().instanceTypes());

  private static List<InstanceType> everyEighth(List<InstanceType> types) {
    List<InstanceType> result = new ArrayList<>();
    for (int i = 0; i < types.size(); i += 8) {
      result.add(types.get(i));
    }
    return result;
  }

  static List<Long> seeds() {
    List<Long> seeds = new ArrayList<>();
    for (long s = 1; s <= 20; s++) {
      seeds.add(s * 7919);
    }
    return seeds;
  }

  /** Random mixes of capped groups (some with matchLabelKeys) and plain pods: the bound never exceeds the scheduler's plan. */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void theBoundNeverExceedsTheSchedulersPlan(long seed) {
    Random random = new Random(seed);
    List<Pod> pods = new ArrayList<>();
    int count = 10 + random.nextInt(40);
    String[] cpus = {"250m", "500m", "1", "1500m", "3"};
    for (int i = 0; i < count; i++) {
      String cpu = cpus[random.nextInt(cpus.length)];
      String memory = (256 << random.nextInt(5)) + "Mi";
      Pod.Builder builder = Pod.builder().namespace(random.nextBoolean() ? "default" : "other").name("p-" + i);
      Resources requests = Resources.builder().cpu(cpu).memory(memory).build();
      switch (random.nextInt(4)) {
        case 0 -> builder.labels(Map.of("app", "plain"));
        case 1, 2 -> {
          String app = "g" + random.nextInt(3);
          builder.labels(Map.of("app", app)).requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("app", app)), Labels.HOSTNAME));
        }
        default -> {
          String app = "v" + random.nextInt(2);
          builder
              .labels(Map.of("app", app, "version", "r" + random.nextInt(2)))
              .requiredPodAntiAffinity(
                  new PodAffinityTerm(LabelSelector.of(Map.of("app", app)), java.util.Set.of(), null, Labels.HOSTNAME, List.of("version")));
        }
      }
      pods.add(builder.container(requests).build());
    }
    NodeClaimTemplate pool =
        new NodeClaimTemplate(
            "default", 0, Map.of(), Map.of(), List.of(), List.of(),
            Requirements.of(Requirement.in(Labels.ARCH, "amd64")), null, Resources.EMPTY,
            CATALOG);
    SchedulingInput input = new SchedulingInput(List.of(pool), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT);
    SchedulingResult result = new Scheduler(input).solve();
    double plan = result.newNodeClaims().stream().mapToDouble(PlannedNodeClaim::price).sum();
    LowerBound bound = SchedulingLowerBound.of(input, result.placedPods());
    assertThat(bound.perHour()).as("bound %s vs plan %s", bound, plan).isLessThanOrEqualTo(plan * (1 + 1e-9));
  }

  private static Pod antiAffine(String name, String app, String cpu) {
    return Pod.builder()
        .namespace("default")
        .name(name)
        .labels(Map.of("app", app))
        .requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("app", app)), Labels.HOSTNAME))
        .container(Resources.builder().cpu(cpu).memory("1Gi").build())
        .build();
  }

  private static Pod plain(String name, String cpu) {
    return Pod.builder().namespace("default").name(name).container(Resources.builder().cpu(cpu).memory("1Gi").build()).build();
  }

  private static double planCost(SchedulingInput input) {
    SchedulingResult result = new Scheduler(input).solve();
    assertThat(result.placedPods()).hasSize(input.pendingPods().size());
    return result.newNodeClaims().stream().mapToDouble(PlannedNodeClaim::price).sum();
  }

  private static SchedulingInput input(List<Pod> pods, List<InstanceType> types) {
    NodeClaimTemplate pool =
        new NodeClaimTemplate("default", 0, Map.of(), Map.of(), List.of(), List.of(), new Requirements(), null, Resources.EMPTY, types);
    return new SchedulingInput(List.of(pool), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT);
  }

  /** An on-demand type in zone-a with {@code cpu} cpus and 4 GiB per cpu. */
  private static InstanceType type(String name, int cpu, double price) {
    Requirements requirements =
        Requirements.of(
            Requirement.in(Labels.INSTANCE_TYPE, name),
            Requirement.in(Labels.ARCH, "amd64"),
            Requirement.in(Labels.OS, "linux"),
            Requirement.in(Labels.ZONE, "zone-a"),
            Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND));
    return new InstanceType(
        name,
        requirements,
        List.of(Offering.of("zone-a", Labels.CAPACITY_TYPE_ON_DEMAND, price, true)),
        Resources.builder().cpu(String.valueOf(cpu)).memory((4 * cpu) + "Gi").pods(110).build(),
        Overhead.NONE);
  }
}
