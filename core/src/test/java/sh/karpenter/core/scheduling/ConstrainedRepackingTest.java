package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Set;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * The cost post-pass on constrained pods (docs/behaviour/scheduling.md#cost-post-pass): re-planning
 * per domain keeps every pod's zone, every hostname cap (spread maxSkew, self anti-affinity), places
 * every pod first fit placed, and never costs more than first fit's plan.
 */
class ConstrainedRepackingTest {
  @Test
  void theIssuesZoneSpreadExampleCostsNoMoreAndKeepsTheSpread() {
    List<Pod> pods = new ArrayList<>();
    String[][] shapes = {{"500m", "1Gi"}, {"250m", "512Mi"}, {"500m", "512Mi"}, {"500m", "1Gi"}, {"300m", "512Mi"}};
    for (int d = 0; d < 5; d++) {
      String app = "web-" + d;
      for (int i = 0; i < 22; i++) {
        pods.add(pod(app, i, shapes[d][0], shapes[d][1]).topologySpreadConstraint(spread(Labels.ZONE, app, 1)).build());
      }
    }
    check(pods, "zone-spread");
  }

  @Test
  void hostnameSpreadAndAntiAffinityStayWithinTheirCapsPerNode() {
    List<Pod> pods = new ArrayList<>();
    for (int d = 0; d < 8; d++) {
      String app = "svc-" + d;
      for (int i = 0; i < 12; i++) {
        pods.add(pod(app, i, (d % 3 + 1) * 250 + "m", (d % 2 + 1) + "Gi").topologySpreadConstraint(spread(Labels.HOSTNAME, app, 1 + d % 2)).build());
      }
    }
    for (int s = 0; s < 4; s++) {
      String app = "store-" + s;
      for (int i = 0; i < 4; i++) {
        pods.add(pod(app, i, "1", "4Gi").requiredPodAntiAffinity(PodAffinityTerm.of(selector(app), Labels.HOSTNAME)).build());
      }
    }
    SchedulingResult repacked = check(pods, "hostname");
    assertThat(repacked.newNodeClaims()).hasSizeGreaterThan(12);
  }

  @Test
  void aDomainWithMoreHostnameCapsThanThePackerTakesIsRepackedInGroups() {
    // 40 hostname-spread workloads: 40 binding caps in one domain, more than one re-plan packs.
    List<Pod> pods = new ArrayList<>();
    String[][] shapes = {{"250m", "512Mi"}, {"500m", "1Gi"}, {"1", "2Gi"}, {"1", "4Gi"}, {"2", "4Gi"}};
    for (int d = 0; d < 40; d++) {
      String app = "svc-" + d;
      for (int i = 0; i < 6; i++) {
        pods.add(pod(app, i, shapes[d % shapes.length][0], shapes[d % shapes.length][1]).topologySpreadConstraint(spread(Labels.HOSTNAME, app, 1)).build());
      }
    }
    SchedulingResult firstFit = solve(pods, false);
    SchedulingResult repacked = check(pods, "40 hostname spreads");
    assertThat(cost(repacked)).as("repacked cost").isLessThan(cost(firstFit) * 0.99);
  }

  @Test
  void aReplannedNodeClaimOfPodsNoZoneTermTiesIsPricedInAnyZoneTheyAllow() {
    // First fit puts the free pods on NodeClaims a zone spread pinned; the per-domain re-plan packs
    // some of them on NodeClaims of their own, which must not keep the zone (the plan contract:
    // the cheapest compatible offering, in whatever zone).
    List<Pod> pods = new ArrayList<>();
    for (int d = 0; d < 3; d++) {
      String app = "web-" + d;
      for (int i = 0; i < 13; i++) {
        pods.add(pod(app, i, "1", "2Gi").topologySpreadConstraint(spread(Labels.ZONE, app, 1)).build());
      }
    }
    for (int i = 0; i < 40; i++) {
      pods.add(pod("free", i, "300m", "600Mi").build());
    }
    SchedulingResult repacked = check(pods, "zone spread and free pods");
    int freeOnly = 0;
    for (PlannedNodeClaim claim : repacked.newNodeClaims()) {
      if (claim.pods().stream().allMatch(pod -> pod.topologySpreadConstraints().isEmpty())) {
        freeOnly++;
        var zone = claim.requirements().has(Labels.ZONE) ? claim.requirements().get(Labels.ZONE) : null;
        assertThat(zone == null || zone.values().size() != 1).as(claim.pods().size() + " free pods pinned to zone " + zone).isTrue();
      }
    }
    assertThat(freeOnly).as("NodeClaims of free pods only").isPositive();
  }

  static List<Long> seeds() {
    List<Long> seeds = new ArrayList<>();
    for (long seed = 1; seed <= 12; seed++) {
      seeds.add(seed);
    }
    return seeds;
  }

  /** Random mixes of zone and hostname spread, hostname and zone anti-affinity and free pods. */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void seededConstrainedMixesKeepEveryConstraint(long seed) {
    Random random = new Random(seed);
    List<Pod> pods = new ArrayList<>();
    String[] cpus = {"100m", "250m", "500m", "1", "2", "3"};
    String[] memories = {"128Mi", "512Mi", "1Gi", "2Gi", "4Gi", "8Gi"};
    int apps = 3 + random.nextInt(6);
    for (int a = 0; a < apps; a++) {
      String app = "app-" + a;
      int replicas = 2 + random.nextInt(25);
      String cpu = cpus[random.nextInt(cpus.length)];
      String memory = memories[random.nextInt(memories.length)];
      int kind = random.nextInt(5);
      for (int i = 0; i < replicas; i++) {
        Pod.Builder pod = pod(app, i, cpu, memory);
        switch (kind) {
          case 0 -> pod.topologySpreadConstraint(spread(Labels.ZONE, app, 1));
          case 1 -> pod.topologySpreadConstraint(spread(Labels.HOSTNAME, app, 1 + random.nextInt(3)));
          case 2 -> pod.requiredPodAntiAffinity(PodAffinityTerm.of(selector(app), Labels.HOSTNAME));
          case 3 -> pod.topologySpreadConstraint(spread(Labels.ZONE, app, 1)).topologySpreadConstraint(spread(Labels.HOSTNAME, app, 2));
          default -> {}
        }
        pods.add(pod.build());
      }
    }
    check(pods, "seed " + seed);
  }

  /** Solves with and without the post-pass and checks the repacked plan; returns it. */
  private static SchedulingResult check(List<Pod> pods, String label) {
    SchedulingResult firstFit = solve(pods, false);
    SchedulingResult repacked = solve(pods, true);
    assertThat(repacked.unschedulable()).as(label).hasSameSizeAs(firstFit.unschedulable());
    assertThat(cost(repacked)).as(label + ": repacked cost").isLessThanOrEqualTo(cost(firstFit) + 1e-9);
    assertThat(zoneCounts(repacked)).as(label + ": pods per app and zone").isEqualTo(zoneCounts(firstFit));
    Set<Set<String>> kept = new HashSet<>();
    for (PlannedNodeClaim claim : firstFit.newNodeClaims()) {
      kept.add(names(claim));
    }
    for (PlannedNodeClaim claim : repacked.newNodeClaims()) {
      // First fit's own NodeClaims may hold maxSkew plus the least count; the re-planned ones hold at most maxSkew.
      if (kept.contains(names(claim))) {
        continue;
      }
      Map<String, Integer> perApp = new HashMap<>();
      for (Pod pod : claim.pods()) {
        perApp.merge(pod.labels().get("app"), 1, Integer::sum);
      }
      for (Pod pod : claim.pods()) {
        int count = perApp.get(pod.labels().get("app"));
        for (TopologySpreadConstraint spread : pod.topologySpreadConstraints()) {
          if (spread.topologyKey().equals(Labels.HOSTNAME)) {
            assertThat(count).as(label + ": " + pod.name() + " hostname spread on one node").isLessThanOrEqualTo(spread.maxSkew());
          }
        }
        if (!pod.requiredPodAntiAffinity().isEmpty()) {
          assertThat(count).as(label + ": " + pod.name() + " anti-affinity on one node").isEqualTo(1);
        }
      }
    }
    return repacked;
  }

  private static Set<String> names(PlannedNodeClaim claim) {
    Set<String> names = new HashSet<>();
    claim.pods().forEach(pod -> names.add(pod.name()));
    return names;
  }

  private static SchedulingResult solve(List<Pod> pods, boolean costRepacking) {
    SchedulingInput input =
        new SchedulingInput(
            List.of(CostGapTest.defaultNodePool(false)), List.of(), pods, List.of(), null, SchedulerOptions.DEFAULT.withCostRepacking(costRepacking));
    return new Scheduler(input).solve();
  }

  private static double cost(SchedulingResult result) {
    return result.newNodeClaims().stream().mapToDouble(PlannedNodeClaim::price).sum();
  }

  private static Map<String, Integer> zoneCounts(SchedulingResult result) {
    Map<String, Integer> counts = new HashMap<>();
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      var zone = claim.requirements().get(Labels.ZONE);
      for (Pod pod : claim.pods()) {
        if (pod.topologySpreadConstraints().stream().anyMatch(s -> s.topologyKey().equals(Labels.ZONE))) {
          assertThat(zone.values()).as(pod.name() + " zone").hasSize(1);
          counts.merge(pod.labels().get("app") + "/" + zone.values().first(), 1, Integer::sum);
        }
      }
    }
    return counts;
  }

  private static Pod.Builder pod(String app, int replica, String cpu, String memory) {
    return Pod.builder()
        .name(app + "-" + replica)
        .uid(app + "-" + replica)
        .labels(Map.of("app", app))
        .container(Resources.builder().cpu(cpu).memory(memory).build());
  }

  private static LabelSelector selector(String app) {
    return LabelSelector.of(Map.of("app", app));
  }

  private static TopologySpreadConstraint spread(String key, String app, int maxSkew) {
    return TopologySpreadConstraint.of(maxSkew, key, WhenUnsatisfiable.DoNotSchedule, selector(app));
  }
}
