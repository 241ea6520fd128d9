package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.sweep.Seeds;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Taints;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.wellknown.Labels;

/**
 * For random pods and catalogues, every placement the scheduler makes satisfies every hard
 * constraint (node selectors, taints, zonal spread skew, hostname anti-affinity), fits the
 * allocatable of every instance-type option, and every pending pod is reported exactly once. A seeded
 * sweep of 150 cases: each one a full scheduling pass.
 */
class SchedulerPropertiesTest {
  private static final Taint TAINT = new Taint("dedicated", "batch", Taint.Effect.NoSchedule);
  private static final List<String> ZONES = FakeInstanceTypes.ZONES;

  enum Kind { GENERIC, ZONE_SELECTOR, SPOT_SELECTOR, ZONE_SPREAD, HOSTNAME_ANTI_AFFINITY, TOLERATING }

  record PodSpec(Kind kind, int cpuMilli, int memoryMi, int zone) {}

  /** One to 40 pods, a catalogue of 1-24 fake instance types, and a NodePool tainted or not. */
  record Case(List<PodSpec> specs, int typeCount, boolean tainted) {}

  static LongStream seeds() {
    return Seeds.sweep(150);
  }

  static Case draw(Random random) {
    List<PodSpec> specs =
        Seeds.listOf(
            random,
            1,
            40,
            r -> new PodSpec(Seeds.oneOf(r, Kind.values()), Seeds.between(r, 10, 6000), Seeds.between(r, 16, 16384), Seeds.between(r, 0, 2)));
    return new Case(specs, Seeds.between(random, 1, 24), random.nextBoolean());
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void placementsSatisfyHardConstraints(long seed) {
    Seeds.check(seed, SchedulerPropertiesTest::draw, input -> placementsSatisfyHardConstraints(input.specs(), input.typeCount(), input.tainted()));
  }

  private static void placementsSatisfyHardConstraints(List<PodSpec> specs, int typeCount, boolean tainted) {
    List<InstanceType> types = FakeInstanceTypes.instanceTypes(typeCount);
    Requirements poolRequirements = Requirements.of(Requirement.in(Labels.NODE_POOL, "default"));
    NodeClaimTemplate pool =
        new NodeClaimTemplate("default", 0, Map.of(), Map.of(), tainted ? List.of(TAINT) : List.of(), List.of(), poolRequirements, null, null, types);
    List<Pod> pods = new ArrayList<>();
    Map<Pod, PodSpec> specOf = new HashMap<>();
    int n = 0;
    for (PodSpec spec : specs) {
      Pod pod = build(spec, n++);
      pods.add(pod);
      specOf.put(pod, spec);
    }
    SchedulingResult result =
        new Scheduler(new SchedulingInput(List.of(pool), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT)).solve();

    List<Pod> reported = new ArrayList<>();
    result.newNodeClaims().forEach(c -> reported.addAll(c.pods()));
    result.unschedulable().forEach(e -> reported.add(e.pod()));
    assertThat(reported).containsExactlyInAnyOrderElementsOf(pods);
    assertThat(result.unschedulable()).allSatisfy(e -> assertThat(e.reason()).isNotBlank());

    Map<String, Integer> spreadCounts = new HashMap<>();
    ZONES.forEach(z -> spreadCounts.put(z, 0));
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      for (InstanceType option : claim.instanceTypeOptions()) {
        assertThat(claim.requests().fits(option.allocatable())).as("%s fits %s", claim.requests(), option.name()).isTrue();
      }
      String zone = claim.cheapestOffering().zone();
      String capacityType = claim.cheapestOffering().capacityType();
      int antiAffinity = 0;
      for (Pod pod : claim.pods()) {
        assertThat(Taints.untolerated(claim.taints(), pod.tolerations(), false)).isNull();
        assertThat(claim.requirements().isCompatible(pod.strictRequirements(), Labels.WELL_KNOWN)).isTrue();
        PodSpec spec = specOf.get(pod);
        switch (spec.kind()) {
          case ZONE_SELECTOR -> assertThat(zone).isEqualTo(ZONES.get(spec.zone()));
          case SPOT_SELECTOR -> assertThat(capacityType).isEqualTo(Labels.CAPACITY_TYPE_SPOT);
          case ZONE_SPREAD -> {
            Requirement zones = claim.requirements().get(Labels.ZONE);
            assertThat(zones.size()).as("spread pods pin the zone").isEqualTo(1);
            spreadCounts.merge(zones.any(), 1, Integer::sum);
          }
          case HOSTNAME_ANTI_AFFINITY -> antiAffinity++;
          default -> {}
        }
      }
      assertThat(antiAffinity).as("anti-affinity pods per node").isLessThanOrEqualTo(1);
    }
    int max = spreadCounts.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    int min = spreadCounts.values().stream().mapToInt(Integer::intValue).min().orElse(0);
    assertThat(max - min).as("zonal skew %s", spreadCounts).isLessThanOrEqualTo(1);
    Set<Pod> unique = new HashSet<>(reported);
    assertThat(unique).hasSize(pods.size());
  }

  private static Pod build(PodSpec spec, int n) {
    Pod.Builder builder =
        Pod.builder()
            .name("p-" + n)
            .uid(String.format("uid-%04d", n))
            .creationTimestampMillis(n)
            .container(Resources.builder().milli("cpu", spec.cpuMilli()).memory(spec.memoryMi() + "Mi").build());
    Map<String, String> spreadLabels = Map.of("group", "spread");
    Map<String, String> antiLabels = Map.of("group", "anti");
    switch (spec.kind()) {
      case ZONE_SELECTOR -> builder.nodeSelector(Map.of(Labels.ZONE, ZONES.get(spec.zone())));
      case SPOT_SELECTOR -> builder.nodeSelector(Map.of(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT));
      case ZONE_SPREAD -> builder
          .labels(spreadLabels)
          .topologySpreadConstraint(
              TopologySpreadConstraint.of(1, Labels.ZONE, TopologySpreadConstraint.WhenUnsatisfiable.DoNotSchedule, LabelSelector.of(spreadLabels)));
      case HOSTNAME_ANTI_AFFINITY -> builder.labels(antiLabels).requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(antiLabels), Labels.HOSTNAME));
      case TOLERATING -> builder.toleration(Toleration.exists(TAINT.key(), null));
      default -> {}
    }
    return builder.build();
  }
}
