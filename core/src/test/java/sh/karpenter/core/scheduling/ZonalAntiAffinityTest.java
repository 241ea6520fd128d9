package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.scheduling.SchedulingHarness.pod;
import static sh.karpenter.core.scheduling.SchedulingHarness.req;
import static sh.karpenter.core.scheduling.SchedulingHarness.resources;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.WeightedPodAffinityTerm;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;

/**
 * A NodeClaim's zone is decided when a pod with required zonal anti-affinity joins it, so every
 * replica that can be placed is placed in one pass (docs/behaviour/scheduling.md#zonal-anti-affinity-in-one-batch),
 * where upstream places one per batch.
 */
class ZonalAntiAffinityTest {
  private static final Map<String, String> LABELS = Map.of("app", "db");
  private static final LabelSelector SELECTOR = LabelSelector.of(LABELS);
  private static final PodAffinityTerm ONE_PER_ZONE = PodAffinityTerm.of(SELECTOR, Labels.ZONE);
  private SchedulingHarness env;

  @BeforeEach
  void setUp() {
    env = new SchedulingHarness();
  }

  private static Pod.Builder replica(String cpu) {
    return pod(cpu).labels(LABELS).requiredPodAntiAffinity(ONE_PER_ZONE);
  }

  private static List<Pod> replicas(int count) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      pods.add(replica("100m").build());
    }
    return pods;
  }

  /** The single zone the planned NodeClaim's launch requirements allow; fails when it is not pinned to one. */
  private static String pinnedZone(PlannedNodeClaim claim) {
    assertThat(claim.requirements().has(Labels.ZONE)).as("%s has a zone requirement", claim).isTrue();
    Requirement zone = claim.requirements().get(Labels.ZONE);
    assertThat(zone.complement()).isFalse();
    assertThat(zone.values()).as("zones of %s", claim).hasSize(1);
    return zone.any();
  }

  /** True when the planned NodeClaim leaves the zone to the cloud provider (no single-zone requirement). */
  private static boolean zoneOpen(PlannedNodeClaim claim) {
    return !claim.requirements().has(Labels.ZONE) || claim.requirements().get(Labels.ZONE).size() > 1;
  }

  private static ExistingNode zonalNode(String name, String zone, List<Pod> pods) {
    return new ExistingNode(
        name, Map.of(Labels.HOSTNAME, name, Labels.ZONE, zone, Labels.NODE_POOL, "default"), List.of(),
        resources("cpu", "1", "memory", "1Gi", "pods", "10"), pods, true, "default");
  }

  @Test
  @DisplayName("should place three one-per-zone replicas on three NodeClaims pinned to different zones in one pass")
  void threeReplicasOneBatch() {
    env.defaultNodePool();
    List<Pod> pods = replicas(3);
    env.provision(pods);
    assertThat(env.result.unschedulable()).isEmpty();
    assertThat(env.result.newNodeClaims()).hasSize(3);
    Set<String> zones = new HashSet<>();
    for (Pod pod : pods) {
      zones.add(pinnedZone(env.expectScheduled(pod)));
    }
    assertThat(zones).containsExactlyInAnyOrderElementsOf(FakeInstanceTypes.ZONES);
  }

  @Test
  @DisplayName("should place three of four one-per-zone replicas over three zones and explain the fourth")
  void fourReplicasThreeZones() {
    env.defaultNodePool();
    List<Pod> pods = replicas(4);
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(3);
    assertThat(env.result.newNodeClaims().stream().map(ZonalAntiAffinityTest::pinnedZone).toList())
        .containsExactlyInAnyOrderElementsOf(FakeInstanceTypes.ZONES);
    assertThat(env.result.unschedulable()).hasSize(1);
    assertThat(env.result.unschedulable().get(0).reason())
        .contains("pod anti-affinity on topology.kubernetes.io/zone leaves no domain")
        .contains("test-zone-1: 1, test-zone-2: 1, test-zone-3: 1");
  }

  @Test
  @DisplayName("scenario 80, upstream 'should support pod anti-affinity with a zone topology': one batch instead of three")
  void upstreamZoneTopologyScenario() {
    env.defaultNodePool();
    List<Pod> first = replicas(3);
    env.provision(first);
    // Upstream: ExpectSkew ConsistOf(1) after the first batch, (1, 1) after the second, (1, 1, 1) after the third.
    assertThat(env.spread(Labels.ZONE, first).values()).containsExactly(1, 1, 1);

    // The next batch sees the three replicas bound in their zones: nothing else can schedule.
    SchedulingHarness next = new SchedulingHarness();
    next.defaultNodePool();
    for (PlannedNodeClaim claim : env.result.newNodeClaims()) {
      String name = "node-" + pinnedZone(claim);
      List<Pod> bound = claim.pods().stream().map(p -> p.toBuilder().nodeName(name).build()).toList();
      next.node(zonalNode(name, pinnedZone(claim), bound));
    }
    List<Pod> more = replicas(3);
    next.provision(more);
    assertThat(next.result.newNodeClaims()).isEmpty();
    assertThat(next.result.unschedulable()).hasSize(3);
  }

  @Test
  @DisplayName("should leave the zones that replicas restricted by nodeSelector or node affinity need to them")
  void restrictedReplicasKeepTheirZones() {
    env.defaultNodePool();
    // The open replica is largest, so it is placed first; lexical order would pin it to test-zone-1.
    Pod open = replica("2").build();
    Pod zoneOne = replica("1").nodeSelector(Map.of(Labels.ZONE, "test-zone-1")).build();
    Pod zoneOneOrTwo =
        replica("500m").requiredNodeAffinityTerm(Requirements.of(req(Labels.ZONE, Operator.In, "test-zone-1", "test-zone-2"))).build();
    env.provision(open, zoneOne, zoneOneOrTwo);
    assertThat(env.result.unschedulable()).isEmpty();
    assertThat(pinnedZone(env.expectScheduled(open))).isEqualTo("test-zone-3");
    assertThat(pinnedZone(env.expectScheduled(zoneOne))).isEqualTo("test-zone-1");
    assertThat(pinnedZone(env.expectScheduled(zoneOneOrTwo))).isEqualTo("test-zone-2");
  }

  @Test
  @DisplayName("should place replicas only in the zones existing nodes do not occupy")
  void existingNodeOccupiesAZone() {
    env.defaultNodePool();
    Pod bound = replica("100m").nodeName("node-1").build();
    env.node(zonalNode("node-1", "test-zone-1", List.of(bound)));
    List<Pod> pods = replicas(3);
    env.provision(pods);
    assertThat(env.result.newNodeClaims().stream().map(ZonalAntiAffinityTest::pinnedZone).toList())
        .containsExactlyInAnyOrder("test-zone-2", "test-zone-3");
    assertThat(env.result.unschedulable()).hasSize(1);
    assertThat(env.result.unschedulable().get(0).reason()).contains("pod anti-affinity on topology.kubernetes.io/zone");
  }

  @Test
  @DisplayName("should pin the cheapest zone with an available offering for the NodeClaim's instance types")
  void cheapestAvailableZone() {
    InstanceType base = FakeInstanceTypes.defaults().get(0);
    InstanceType zonal =
        base.withOfferings(
            List.of(
                Offering.of("test-zone-1", Labels.CAPACITY_TYPE_ON_DEMAND, 0.05, false), // cheapest, but unavailable
                Offering.of("test-zone-2", Labels.CAPACITY_TYPE_ON_DEMAND, 0.9, true),
                Offering.of("test-zone-3", Labels.CAPACITY_TYPE_ON_DEMAND, 0.4, true)));
    env.nodePool(new SchedulingHarness.NodePool("default").instanceTypes(List.of(zonal)));
    Pod first = replica("2").build();
    Pod second = replica("1").build();
    Pod third = replica("500m").build();
    env.provision(first, second, third);
    assertThat(pinnedZone(env.expectScheduled(first))).isEqualTo("test-zone-3");
    assertThat(pinnedZone(env.expectScheduled(second))).isEqualTo("test-zone-2");
    env.expectNotScheduled(third);
  }

  @Test
  @DisplayName("should let other pods join a pinned NodeClaim only if they allow its zone")
  void laterPodsRespectThePinnedZone() {
    env.defaultNodePool();
    Pod replica = replica("1").build();
    Pod other = replica("500m").build();
    Pod elsewhere = pod("100m").nodeSelector(Map.of(Labels.ZONE, "test-zone-2")).build();
    env.provision(replica, other, elsewhere);
    String zone = pinnedZone(env.expectScheduled(replica));
    PlannedNodeClaim claim = env.expectScheduled(elsewhere);
    assertThat(pinnedZone(claim)).isEqualTo("test-zone-2");
    assertThat(claim.pods().contains(replica)).isEqualTo("test-zone-2".equals(zone));
  }

  @Test
  @DisplayName("should count a pending pod that two of the terms keep out once when choosing the zone")
  void podSelectedByTwoTermsCountsOnce() {
    env.defaultNodePool();
    Pod guard =
        pod("2")
            .requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("app", "a")), Labels.ZONE))
            .requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("tier", "x")), Labels.ZONE))
            .build();
    List<Pod> pods = new ArrayList<>(List.of(guard));
    // test-zone-1 is wanted by one pod both terms select; test-zone-2 by 1.5; test-zone-3 by 3.5:
    // counted once, test-zone-1 is least wanted (counted twice, it would weigh 2 and test-zone-2 would win).
    pods.add(pod("100m").labels(Map.of("app", "a", "tier", "x")).nodeSelector(Map.of(Labels.ZONE, "test-zone-1")).build());
    pods.add(pod("100m").labels(Map.of("app", "a")).nodeSelector(Map.of(Labels.ZONE, "test-zone-2")).build());
    pods.add(pod("100m").labels(Map.of("app", "a"))
        .requiredNodeAffinityTerm(Requirements.of(req(Labels.ZONE, Operator.In, "test-zone-2", "test-zone-3"))).build());
    for (int i = 0; i < 3; i++) {
      pods.add(pod("100m").labels(Map.of("app", "a")).nodeSelector(Map.of(Labels.ZONE, "test-zone-3")).build());
    }
    env.provision(pods);
    assertThat(pinnedZone(env.expectScheduled(guard))).isEqualTo("test-zone-1");
  }

  @Test
  @DisplayName("should leave the zone open, as upstream, when no other pending pod is kept out by the term")
  void loneReplicaStaysOpen() {
    env.defaultNodePool();
    Pod lone = replica("100m").build();
    env.provision(lone);
    assertThat(zoneOpen(env.expectScheduled(lone))).isTrue();
  }

  @Test
  @DisplayName("should not pin for preferred zonal anti-affinity (it is relaxed, as upstream)")
  void preferredTermsDoNotPin() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pods.add(pod("100m").labels(LABELS).preferredPodAntiAffinity(new WeightedPodAffinityTerm(10, ONE_PER_ZONE)).build());
    }
    env.provision(pods);
    assertThat(env.result.unschedulable()).isEmpty();
    assertThat(env.result.newNodeClaims()).allMatch(ZonalAntiAffinityTest::zoneOpen);
  }
}
