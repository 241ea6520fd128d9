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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.sweep.Seeds;
import sh.karpenter.core.wellknown.Labels;

/**
 * {@link InFlightNodeClaims} keeps upstream's first-fit order and its scans find the claim a plain
 * scan over every claim finds: against a brute-force scan of the sorted claims under random sizes,
 * domains and rejections, and whole scheduling passes with the index against passes trying every
 * claim ({@code plainScan}), rendered in full, over topology-heavy pod mixes and the scenarios of
 * {@link SchedulingDigestTest}.
 */
class InFlightNodeClaimsTest {
  private static final List<String> ZONES = FakeInstanceTypes.ZONES;
  private static final String CAPACITY = Labels.CAPACITY_TYPE;

  static LongStream seeds() {
    return Seeds.sweep(100);
  }

  /** Whole passes, twice each: fewer cases. */
  static LongStream passSeeds() {
    return Seeds.sweep(50);
  }

  // --- the structure against a brute-force scan ---------------------------------------------

  /** What one claim says about the indexed keys, and how large it is. */
  record ClaimSpec(int pods, Requirement zone, Requirement capacity) {}

  /**
   * Claims, then random changes (pods joining, domains narrowing), then pods each rejected by their
   * topology on some zone and capacity-type values and, independently, by some claims for other reasons.
   */
  record StructureCase(List<ClaimSpec> claims, List<int[]> changes, List<Long> podSeeds) {}

  static StructureCase drawStructure(Random random) {
    List<ClaimSpec> claims = Seeds.listOf(random, 0, 60, r -> new ClaimSpec(Seeds.between(r, 1, 6), zone(r), capacity(r)));
    List<int[]> changes = Seeds.listOf(random, 0, 40, r -> new int[] {r.nextInt(1000), r.nextInt(3)});
    List<Long> podSeeds = Seeds.listOf(random, 1, 20, Random::nextLong);
    return new StructureCase(claims, changes, podSeeds);
  }

  private static Requirement zone(Random random) {
    return switch (random.nextInt(5)) {
      case 0 -> null;
      case 1 -> Requirement.in(Labels.ZONE, ZONES.get(0), ZONES.get(1));
      default -> Requirement.in(Labels.ZONE, Seeds.oneOf(random, ZONES));
    };
  }

  private static Requirement capacity(Random random) {
    return switch (random.nextInt(3)) {
      case 0 -> null;
      case 1 -> Requirement.in(CAPACITY, Labels.CAPACITY_TYPE_SPOT);
      default -> Requirement.in(CAPACITY, Labels.CAPACITY_TYPE_ON_DEMAND);
    };
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void scanFindsWhatABruteForceScanFinds(long seed) {
    Seeds.check(seed, InFlightNodeClaimsTest::drawStructure, InFlightNodeClaimsTest::scanFindsWhatABruteForceScanFinds);
  }

  private static void scanFindsWhatABruteForceScanFinds(StructureCase c) {
    SchedulingInput input = input(List.of(), 4);
    PreparedTemplates prepared = PreparedTemplates.of(input, dimensions());
    TemplateIndex template = prepared.templates.get(0);
    InFlightNodeClaims claims = new InFlightNodeClaims(List.of(Labels.ZONE, CAPACITY));
    List<InFlightNodeClaim> reference = new ArrayList<>();
    Pod filler = Pod.builder().name("filler").uid("filler").build();
    int sequence = 0;
    for (ClaimSpec spec : c.claims()) {
      InFlightNodeClaim claim =
          new InFlightNodeClaim(
              template, "host-" + sequence, sequence++, requirements(spec.zone(), spec.capacity()), template.launchable.clone(), null, null, Set.of(), SchedulerOptions.DEFAULT, null, null);
      for (int p = 0; p < spec.pods(); p++) {
        claim.pods.add(new SchedulingPod(filler, prepared.dimensions, 0, true));
      }
      claims.add(claim);
      reference.add(claim);
    }
    Random random = new Random(c.claims().size());
    for (int[] change : c.changes()) {
      if (reference.isEmpty()) {
        break;
      }
      InFlightNodeClaim claim = reference.get(change[0] % reference.size());
      claims.update(claim, () -> {
        claim.pods.add(new SchedulingPod(filler, prepared.dimensions, 0, true));
        if (change[1] == 1) {
          claim.requirements = requirements(Requirement.in(Labels.ZONE, Seeds.oneOf(random, ZONES)), claim.requirements.find(CAPACITY));
        } else if (change[1] == 2) {
          claim.requirements = requirements(claim.requirements.find(Labels.ZONE), capacity(random));
        }
      });
    }
    reference.sort(InFlightNodeClaims.ORDER);
    List<InFlightNodeClaim> ordered = new ArrayList<>();
    claims.forEach(ordered::add);
    assertThat(ordered).as("first-fit order").containsExactlyElementsOf(reference);
    assertThat(claims.size()).isEqualTo(reference.size());

    for (long podSeed : c.podSeeds()) {
      Random pod = new Random(podSeed);
      // The pod's topology rejects some zones (or an unpinned zone) and some capacity types; some claims fail it otherwise.
      Set<Requirement> zonesRejected = new HashSet<>();
      Set<Requirement> capacitiesRejected = new HashSet<>();
      for (int i = 0; i < 3; i++) {
        if (pod.nextInt(3) == 0) {
          zonesRejected.add(zone(pod));
        }
        if (pod.nextInt(4) == 0) {
          capacitiesRejected.add(capacity(pod));
        }
      }
      Set<InFlightNodeClaim> otherwiseRejected = new HashSet<>();
      for (InFlightNodeClaim claim : reference) {
        if (pod.nextInt(3) == 0) {
          otherwiseRejected.add(claim);
        }
      }
      InFlightNodeClaim expected = null;
      for (InFlightNodeClaim claim : reference) {
        if (rejectedKey(claim, zonesRejected, capacitiesRejected) == null && !otherwiseRejected.contains(claim)) {
          expected = claim;
          break;
        }
      }
      InFlightNodeClaim found = null;
      List<InFlightNodeClaim> tried = new ArrayList<>();
      InFlightNodeClaims.Scan scan = claims.scan();
      while (scan.hasNext()) {
        InFlightNodeClaim claim = scan.next();
        tried.add(claim);
        String key = rejectedKey(claim, zonesRejected, capacitiesRejected);
        if (key != null) {
          scan.ruleOut(claim, key);
        } else if (!otherwiseRejected.contains(claim)) {
          found = claim;
          break;
        }
      }
      assertThat(found).as("first fit").isSameAs(expected);
      assertThat(tried).as("claims tried, in order").isSortedAccordingTo(InFlightNodeClaims.ORDER).doesNotHaveDuplicates();
    }
  }

  /** The key whose topology constraint rejects the pod on the claim (zone checked first), or null. */
  private static String rejectedKey(InFlightNodeClaim claim, Set<Requirement> zones, Set<Requirement> capacities) {
    if (zones.contains(claim.requirements.find(Labels.ZONE))) {
      return Labels.ZONE;
    }
    if (capacities.contains(claim.requirements.find(CAPACITY))) {
      return CAPACITY;
    }
    return null;
  }

  private static Requirements requirements(Requirement zone, Requirement capacity) {
    Requirements requirements = Requirements.of(Requirement.in(Labels.NODE_POOL, "default"));
    if (zone != null) {
      requirements.add(zone);
    }
    if (capacity != null) {
      requirements.add(capacity);
    }
    return requirements.frozen();
  }

  @Test
  void ruleOutOfAHostnameSkipsNothing() {
    InFlightNodeClaims claims = new InFlightNodeClaims(List.of(Labels.ZONE));
    SchedulingInput input = input(List.of(), 4);
    PreparedTemplates prepared = PreparedTemplates.of(input, dimensions());
    TemplateIndex template = prepared.templates.get(0);
    List<InFlightNodeClaim> made = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      InFlightNodeClaim claim =
          new InFlightNodeClaim(template, "host-" + i, i, requirements(Requirement.in(Labels.ZONE, ZONES.get(0)), null), template.launchable.clone(), null, null, Set.of(), SchedulerOptions.DEFAULT, null, null);
      claims.add(claim);
      made.add(claim);
    }
    InFlightNodeClaims.Scan scan = claims.scan();
    List<InFlightNodeClaim> seen = new ArrayList<>();
    while (scan.hasNext()) {
      InFlightNodeClaim claim = scan.next();
      seen.add(claim);
      scan.ruleOut(claim, Labels.HOSTNAME);
    }
    assertThat(seen).containsExactlyElementsOf(made);
  }

  // --- whole passes against passes trying every claim ----------------------------------------

  enum Kind { GENERIC, ZONE_SPREAD, CAPACITY_SPREAD, HOSTNAME_SPREAD, ZONE_AFFINITY, HOSTNAME_ANTI_AFFINITY, ZONE_SELECTOR, ZONE_ANTI_AFFINITY }

  record PodSpec(Kind kind, int cpuMilli, int memoryMi, int label, int selected) {}

  record PassCase(List<PodSpec> pods, int typeCount) {}

  static PassCase drawPass(Random random) {
    List<PodSpec> pods =
        Seeds.listOf(
            random,
            1,
            300,
            r -> new PodSpec(Seeds.oneOf(r, Kind.values()), Seeds.between(r, 50, 3000), Seeds.between(r, 64, 8192), r.nextInt(4), r.nextInt(4)));
    return new PassCase(pods, Seeds.between(random, 1, 12));
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("passSeeds")
  void passesPlaceAsAPlainScanDoes(long seed) {
    Seeds.check(seed, InFlightNodeClaimsTest::drawPass, c -> {
      List<Pod> pods = new ArrayList<>();
      for (int i = 0; i < c.pods().size(); i++) {
        pods.add(pod(c.pods().get(i), i));
      }
      placesAsAPlainScan(input(pods, c.typeCount()));
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("passSeeds")
  void digestScenariosPlaceAsAPlainScanDoes(long seed) {
    placesAsAPlainScan(SchedulingDigestTest.input(new Random(seed)));
  }

  private static void placesAsAPlainScan(SchedulingInput input) {
    StringBuilder indexed = new StringBuilder();
    StringBuilder plain = new StringBuilder();
    SchedulingDigestTest.render(new SchedulingPass(input, PreparedTemplates.of(input, dimensions()), null, false).run(Deadline.NONE), indexed);
    SchedulingDigestTest.render(new SchedulingPass(input, PreparedTemplates.of(input, dimensions()), null, true).run(Deadline.NONE), plain);
    assertThat(indexed.toString()).isEqualTo(plain.toString());
  }

  private static int dimensions() {
    ResourceNames.index(NodePoolLimits.NODES);
    return ResourceNames.count();
  }

  private static SchedulingInput input(List<Pod> pods, int typeCount) {
    NodeClaimTemplate pool =
        new NodeClaimTemplate(
            "default", 0, Map.of(), Map.of(), List.of(), List.of(), Requirements.of(Requirement.in(Labels.NODE_POOL, "default")), null, null,
            FakeInstanceTypes.instanceTypes(typeCount));
    return new SchedulingInput(List.of(pool), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT);
  }

  private static Pod pod(PodSpec spec, int i) {
    Map<String, String> labels = new HashMap<>(Map.of("my-label", "v" + spec.label()));
    LabelSelector selected = LabelSelector.of(Map.of("my-label", "v" + spec.selected()));
    Pod.Builder pod =
        Pod.builder()
            .name(String.format("pod-%03d", i))
            .uid(String.format("uid-%03d", i))
            .creationTimestampMillis(1000 + i % 7)
            .labels(labels)
            .container(Resources.builder().cpu(spec.cpuMilli() + "m").memory(spec.memoryMi() + "Mi").build());
    switch (spec.kind()) {
      case ZONE_SPREAD -> pod.topologySpreadConstraint(TopologySpreadConstraint.of(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, selected));
      case CAPACITY_SPREAD -> pod.topologySpreadConstraint(TopologySpreadConstraint.of(1, CAPACITY, WhenUnsatisfiable.DoNotSchedule, selected));
      case HOSTNAME_SPREAD -> pod.topologySpreadConstraint(TopologySpreadConstraint.of(1, Labels.HOSTNAME, WhenUnsatisfiable.DoNotSchedule, selected));
      case ZONE_AFFINITY -> pod.requiredPodAffinity(PodAffinityTerm.of(LabelSelector.of(labels), Labels.ZONE));
      case HOSTNAME_ANTI_AFFINITY -> pod.labels(Map.of("app", "nginx")).requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("app", "nginx")), Labels.HOSTNAME));
      case ZONE_ANTI_AFFINITY -> pod.requiredPodAntiAffinity(PodAffinityTerm.of(selected, Labels.ZONE));
      case ZONE_SELECTOR -> pod.nodeSelector(Map.of(Labels.ZONE, ZONES.get(spec.selected() % ZONES.size())));
      case GENERIC -> {}
    }
    return pod.build();
  }
}
