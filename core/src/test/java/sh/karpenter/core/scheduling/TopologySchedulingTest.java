package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.scheduling.SchedulingHarness.label;
import static sh.karpenter.core.scheduling.SchedulingHarness.pod;
import static sh.karpenter.core.scheduling.SchedulingHarness.req;
import static sh.karpenter.core.scheduling.SchedulingHarness.reqs;
import static sh.karpenter.core.scheduling.SchedulingHarness.resources;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.TopologySpreadConstraint.NodeInclusionPolicy;
import sh.karpenter.core.pod.TopologySpreadConstraint.WhenUnsatisfiable;
import sh.karpenter.core.pod.WeightedPodAffinityTerm;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.wellknown.Labels;

/** Ports of upstream's provisioning/scheduling topology_test.go scenarios. */
class TopologySchedulingTest {
  private static final Map<String, String> LABELS = Map.of("test", "test");
  private static final LabelSelector SELECTOR = LabelSelector.of(LABELS);
  private SchedulingHarness env;

  @BeforeEach
  void setUp() {
    env = new SchedulingHarness();
  }

  private static TopologySpreadConstraint spread(String key, int maxSkew) {
    return TopologySpreadConstraint.of(maxSkew, key, WhenUnsatisfiable.DoNotSchedule, SELECTOR);
  }

  private static List<Pod> pods(int count, TopologySpreadConstraint... constraints) {
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Pod.Builder builder = pod("100m").labels(LABELS);
      for (TopologySpreadConstraint c : constraints) {
        builder.topologySpreadConstraint(c);
      }
      pods.add(builder.build());
    }
    return pods;
  }

  private static ExistingNode zonalNode(String name, String zone, List<Pod> pods) {
    return new ExistingNode(
        name, Map.of(Labels.HOSTNAME, name, Labels.ZONE, zone, Labels.NODE_POOL, "default"), List.of(),
        resources("cpu", "1", "memory", "1Gi", "pods", "10"), pods, true, "default");
  }

  private Map<String, Integer> zones(List<Pod> pods) {
    return env.spread(Labels.ZONE, pods);
  }

  // --- zonal spread ---

  @Test
  @DisplayName("should balance pods across zones (match labels)")
  void balanceZones() {
    env.defaultNodePool();
    List<Pod> pods = pods(6, spread(Labels.ZONE, 1));
    env.provision(pods);
    assertThat(zones(pods).values()).containsExactlyInAnyOrder(2, 2, 2);
  }

  @Test
  @DisplayName("should decide each NodeClaim's zone for a DoNotSchedule zone spread, so replicas place in one pass")
  void zoneSpreadDecidesTheZone() {
    env.defaultNodePool();
    List<Pod> pods = pods(3, spread(Labels.ZONE, 1));
    env.provision(pods);
    assertThat(env.result.unschedulable()).isEmpty();
    assertThat(env.result.newNodeClaims()).hasSize(3).allSatisfy(claim -> assertThat(claim.requirements().get(Labels.ZONE).values()).hasSize(1));
    assertThat(zones(pods).values()).containsExactly(1, 1, 1);
  }

  @Test
  @DisplayName("should only count pods matching the selector")
  void selectorOnly() {
    env.defaultNodePool();
    List<Pod> pods = pods(3, spread(Labels.ZONE, 1));
    List<Pod> others = List.of(pod("100m").labels(Map.of("other", "x")).build(), pod("100m").build());
    List<Pod> all = new ArrayList<>(pods);
    all.addAll(others);
    env.provision(all);
    assertThat(zones(pods).values()).containsExactlyInAnyOrder(1, 1, 1);
  }

  @Test
  @DisplayName("should only schedule to minimum domains if already violating max skew")
  void minimumDomainsWhenViolating() {
    env.defaultNodePool();
    List<Pod> bound = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      bound.add(pod("10m").labels(LABELS).nodeName("zone-1-node").build());
    }
    env.node(zonalNode("zone-1-node", "test-zone-1", bound));
    List<Pod> pods = pods(4, spread(Labels.ZONE, 1));
    env.provision(pods);
    Map<String, Integer> counts = zones(pods);
    assertThat(counts).doesNotContainKey("test-zone-1");
    assertThat(counts.values()).containsExactlyInAnyOrder(2, 2);
  }

  @Test
  @DisplayName("should not violate max-skew when unsat = do not schedule (discover domains)")
  void doNotScheduleDiscoversDomains() {
    env.nodePool(new SchedulingHarness.NodePool("default").require(req(Labels.ZONE, Operator.In, "test-zone-1", "test-zone-2")));
    env.node(
        new ExistingNode(
            "tainted-zone-3", Map.of(Labels.HOSTNAME, "tainted-zone-3", Labels.ZONE, "test-zone-3"),
            List.of(new Taint("foo", "bar", Taint.Effect.NoSchedule)), resources("cpu", "4", "pods", "10"), List.of(), true, null));
    List<Pod> pods = pods(3, spread(Labels.ZONE, 1));
    env.provision(pods);
    assertThat(zones(pods)).containsOnlyKeys("test-zone-1", "test-zone-2").containsValues(1, 1);
    assertThat(env.result.unschedulable()).hasSize(1);
    assertThat(env.result.unschedulable().get(0).reason()).contains("topology spread");
  }

  @Test
  @DisplayName("should not violate max-skew when unsat = do not schedule (pool restricted to two zones)")
  void doNotScheduleRestrictedPool() {
    env.nodePool(new SchedulingHarness.NodePool("default").require(req(Labels.ZONE, Operator.In, "test-zone-1", "test-zone-2")));
    List<Pod> pods = pods(4, spread(Labels.ZONE, 1));
    env.provision(pods);
    assertThat(zones(pods)).containsOnlyKeys("test-zone-1", "test-zone-2").containsValues(2, 2);
  }

  @Test
  @DisplayName("should respect minDomains constraints")
  void minDomains() {
    env.nodePool(new SchedulingHarness.NodePool("default").require(req(Labels.ZONE, Operator.In, "test-zone-1")));
    TopologySpreadConstraint constraint =
        new TopologySpreadConstraint(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, SELECTOR, 3, null, null, List.of());
    List<Pod> pods = pods(3, constraint);
    env.provision(pods);
    assertThat(zones(pods)).containsExactly(Map.entry("test-zone-1", 1));
    assertThat(env.result.unschedulable()).hasSize(2);
  }

  @Test
  @DisplayName("should violate max-skew when unsat = schedule anyway (capacity type)")
  void scheduleAnywayCapacityType() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pods.add(
          pod("100m")
              .labels(LABELS)
              .nodeSelector(Map.of(Labels.CAPACITY_TYPE, "spot"))
              .topologySpreadConstraint(TopologySpreadConstraint.of(1, Labels.CAPACITY_TYPE, WhenUnsatisfiable.ScheduleAnyway, SELECTOR))
              .build());
    }
    env.provision(pods);
    assertThat(env.spread(Labels.CAPACITY_TYPE, pods)).containsExactly(Map.entry("spot", 4));
  }

  @Test
  @DisplayName("should balance pods across capacity types")
  void balanceCapacityTypes() {
    env.defaultNodePool();
    List<Pod> pods = pods(4, spread(Labels.CAPACITY_TYPE, 1));
    env.provision(pods);
    assertThat(env.spread(Labels.CAPACITY_TYPE, pods)).containsOnlyKeys("spot", "on-demand").containsValues(2, 2);
  }

  @Test
  @DisplayName("should ignore ScheduleAnyway constraints under the Ignore preference policy")
  void scheduleAnywayIgnored() {
    env.defaultNodePool();
    env.options = SchedulerOptions.DEFAULT.withPreferencePolicy(SchedulerOptions.PreferencePolicy.Ignore);
    List<Pod> pods = pods(3, TopologySpreadConstraint.of(1, Labels.ZONE, WhenUnsatisfiable.ScheduleAnyway, SELECTOR));
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(1);
  }

  @Test
  @DisplayName("should support matchLabelKeys")
  void matchLabelKeys() {
    env.defaultNodePool();
    TopologySpreadConstraint constraint =
        new TopologySpreadConstraint(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, SELECTOR, null, null, null, List.of("revision"));
    List<Pod> first = new ArrayList<>();
    List<Pod> second = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      first.add(pod("100m").labels(Map.of("test", "test", "revision", "1")).topologySpreadConstraint(constraint).build());
      second.add(pod("100m").labels(Map.of("test", "test", "revision", "2")).topologySpreadConstraint(constraint).build());
    }
    List<Pod> all = new ArrayList<>(first);
    all.addAll(second);
    env.provision(all);
    assertThat(zones(first).values()).containsExactlyInAnyOrder(1, 1, 1);
    assertThat(zones(second).values()).containsExactlyInAnyOrder(1, 1, 1);
  }

  @Test
  @DisplayName("should balance pods across a label when mutually exclusive NodePools (by taints) share domains (NodeTaintsPolicy=honor)")
  void nodeTaintsPolicyHonor() {
    env.nodePool(
        new SchedulingHarness.NodePool("tainted")
            .require(req(Labels.ZONE, Operator.In, "test-zone-1"))
            .taint(new Taint("foo", "bar", Taint.Effect.NoSchedule)));
    env.nodePool(new SchedulingHarness.NodePool("open").require(req(Labels.ZONE, Operator.In, "test-zone-2", "test-zone-3")));
    TopologySpreadConstraint constraint =
        new TopologySpreadConstraint(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, SELECTOR, null, null, NodeInclusionPolicy.Honor, List.of());
    List<Pod> pods = pods(4, constraint);
    env.provision(pods);
    assertThat(zones(pods)).containsOnlyKeys("test-zone-2", "test-zone-3").containsValues(2, 2);
  }

  @Test
  @DisplayName("should limit spread when an untolerated tainted domain counts (NodeTaintsPolicy=ignore)")
  void nodeTaintsPolicyIgnore() {
    env.nodePool(
        new SchedulingHarness.NodePool("tainted")
            .require(req(Labels.ZONE, Operator.In, "test-zone-1"))
            .taint(new Taint("foo", "bar", Taint.Effect.NoSchedule)));
    env.nodePool(new SchedulingHarness.NodePool("open").require(req(Labels.ZONE, Operator.In, "test-zone-2", "test-zone-3")));
    List<Pod> pods = pods(4, spread(Labels.ZONE, 1));
    env.provision(pods);
    assertThat(zones(pods).values()).containsExactlyInAnyOrder(1, 1);
    assertThat(env.result.unschedulable()).hasSize(2);
  }

  @Test
  @DisplayName("should balance pods across a label (NodeAffinityPolicy=ignore)")
  void nodeAffinityPolicyIgnore() {
    env.defaultNodePool();
    TopologySpreadConstraint constraint =
        new TopologySpreadConstraint(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, SELECTOR, null, NodeInclusionPolicy.Ignore, null, List.of());
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pods.add(
          pod("100m")
              .labels(LABELS)
              .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "test-zone-1", "test-zone-2")))
              .topologySpreadConstraint(constraint)
              .build());
    }
    env.provision(pods);
    assertThat(zones(pods).values()).containsExactlyInAnyOrder(1, 1);
    assertThat(env.result.unschedulable()).hasSize(2);
  }

  @Test
  @DisplayName("should balance pods across a label (NodeAffinityPolicy=honor)")
  void nodeAffinityPolicyHonor() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pods.add(
          pod("100m")
              .labels(LABELS)
              .requiredNodeAffinityTerm(reqs(req(Labels.ZONE, Operator.In, "test-zone-1", "test-zone-2")))
              .topologySpreadConstraint(spread(Labels.ZONE, 1))
              .build());
    }
    env.provision(pods);
    assertThat(zones(pods)).containsOnlyKeys("test-zone-1", "test-zone-2").containsValues(2, 2);
  }

  @Test
  @DisplayName("should not limit spread options by preferred node affinity")
  void preferredAffinityDoesNotLimitSpread() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pods.add(
          pod("100m")
              .labels(LABELS)
              .preferredNodeAffinity(10, reqs(req(Labels.ZONE, Operator.In, "test-zone-1")))
              .topologySpreadConstraint(spread(Labels.ZONE, 1))
              .build());
    }
    env.provision(pods);
    assertThat(zones(pods).values()).containsExactlyInAnyOrder(1, 1, 1);
  }

  // --- hostname spread ---

  @Test
  @DisplayName("should balance pods on the same hostname up to maxskew")
  void hostnameMaxSkew() {
    env.defaultNodePool();
    List<Pod> pods = pods(4, spread(Labels.HOSTNAME, 2));
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(2).allSatisfy(c -> assertThat(c.pods()).hasSize(2));
  }

  @Test
  @DisplayName("should spread pods one per node with hostname maxSkew 1")
  void hostnameMaxSkewOne() {
    env.defaultNodePool();
    List<Pod> pods = pods(5, spread(Labels.HOSTNAME, 1));
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(5);
  }

  @Test
  @DisplayName("should spread pods while respecting both constraints (hostname and zonal)")
  void hostnameAndZonal() {
    env.defaultNodePool();
    List<Pod> pods = pods(6, spread(Labels.ZONE, 1), spread(Labels.HOSTNAME, 1));
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(6);
    assertThat(zones(pods).values()).containsExactlyInAnyOrder(2, 2, 2);
  }

  @Test
  @DisplayName("should count pods on existing nodes for hostname spread")
  void hostnameExisting() {
    env.defaultNodePool();
    Pod bound = pod("10m").labels(LABELS).nodeName("node-1").build();
    env.node(zonalNode("node-1", "test-zone-1", List.of(bound)));
    List<Pod> pods = pods(1, spread(Labels.HOSTNAME, 1));
    env.provision(pods);
    assertThat(env.existingNodeOf(pods.get(0))).isNull();
    env.expectScheduled(pods.get(0));
  }

  // --- pod affinity ---

  @Test
  @DisplayName("should respect self pod affinity for first empty topology domain only (hostname)")
  void selfAffinityHostname() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pods.add(pod("100m").labels(LABELS).requiredPodAffinity(PodAffinityTerm.of(SELECTOR, Labels.HOSTNAME)).build());
    }
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(1);
    assertThat(env.result.newNodeClaims().get(0).pods()).hasSize(3);
  }

  @Test
  @DisplayName("should respect self pod affinity (zone)")
  void selfAffinityZone() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pods.add(pod("2").labels(LABELS).requiredPodAffinity(PodAffinityTerm.of(SELECTOR, Labels.ZONE)).build());
    }
    env.provision(pods);
    assertThat(zones(pods)).hasSize(1);
    assertThat(env.result.unschedulable()).isEmpty();
  }

  @Test
  @DisplayName("should schedule a pod with affinity to the zone of an existing matching pod")
  void affinityToExisting() {
    env.defaultNodePool();
    Pod target = pod("10m").labels(LABELS).nodeName("node-2").build();
    env.node(zonalNode("node-2", "test-zone-2", List.of(target)));
    Pod pod = pod("2").requiredPodAffinity(PodAffinityTerm.of(SELECTOR, Labels.ZONE)).build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-2");
  }

  @Test
  @DisplayName("should handle multiple dependent affinities")
  void dependentAffinities() {
    env.defaultNodePool();
    Pod db = pod("1").labels(Map.of("type", "db")).build();
    Pod web = pod("500m").labels(Map.of("type", "web")).requiredPodAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("type", "db")), Labels.ZONE)).build();
    Pod cache = pod("200m").labels(Map.of("type", "cache")).requiredPodAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("type", "web")), Labels.ZONE)).build();
    Pod ui = pod("100m").requiredPodAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("type", "cache")), Labels.ZONE)).build();
    db = pod("1").labels(Map.of("type", "db")).nodeSelector(Map.of(Labels.ZONE, "test-zone-3")).build();
    env.provision(db, web, cache, ui);
    assertThat(zones(List.of(db, web, cache, ui))).containsExactly(Map.entry("test-zone-3", 4));
  }

  @Test
  @DisplayName("should fail to schedule pods with unsatisfiable dependencies")
  void unsatisfiableDependencies() {
    env.defaultNodePool();
    Pod pod = pod("1").requiredPodAffinity(PodAffinityTerm.of(LabelSelector.of(Map.of("type", "nobody")), Labels.ZONE)).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "pod affinity");
  }

  @Test
  @DisplayName("should filter pod affinity topologies by namespace, matching pods namespace list")
  void affinityNamespaceList() {
    env.defaultNodePool();
    Pod inOther = pod("10m").namespace("other").labels(LABELS).nodeName("node-2").build();
    Pod inDefault = pod("10m").labels(LABELS).nodeName("node-3").build();
    env.node(zonalNode("node-2", "test-zone-2", List.of(inOther)));
    env.node(zonalNode("node-3", "test-zone-3", List.of(inDefault)));
    Pod pod = pod("2").requiredPodAffinity(new PodAffinityTerm(SELECTOR, Set.of("other"), null, Labels.ZONE, List.of())).build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-2");
  }

  @Test
  @DisplayName("should filter pod affinity topologies by namespace selector")
  void affinityNamespaceSelector() {
    env.defaultNodePool();
    env.namespaceLabels = Map.of("team-a", Map.of("team", "a"), "default", Map.of());
    Pod target = pod("10m").namespace("team-a").labels(LABELS).nodeName("node-1").build();
    env.node(zonalNode("node-1", "test-zone-1", List.of(target)));
    Pod pod =
        pod("2").requiredPodAffinity(new PodAffinityTerm(SELECTOR, Set.of(), LabelSelector.of(Map.of("team", "a")), Labels.ZONE, List.of())).build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-1");
  }

  @Test
  @DisplayName("should relax a preferred pod affinity that cannot be met")
  void preferredAffinityRelaxed() {
    env.defaultNodePool();
    Pod pod = pod("1").preferredPodAffinity(new WeightedPodAffinityTerm(50, PodAffinityTerm.of(LabelSelector.of(Map.of("x", "y")), Labels.ZONE))).build();
    env.provision(pod);
    env.expectScheduled(pod);
  }

  // --- pod anti-affinity ---

  @Test
  @DisplayName("should schedule pods with hostname anti-affinity one per node")
  void antiAffinityHostname() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pods.add(pod("100m").labels(LABELS).requiredPodAntiAffinity(PodAffinityTerm.of(SELECTOR, Labels.HOSTNAME)).build());
    }
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).hasSize(4);
  }

  @Test
  @DisplayName("should place hostname anti-affinity pods on empty in-flight NodeClaims, one per node, instead of launching more")
  void antiAffinityHostnameOnInFlightNodes() {
    env.defaultNodePool();
    for (int i = 0; i < 4; i++) {
      String name = "in-flight-" + i;
      env.node(new ExistingNode(name, Map.of(Labels.HOSTNAME, name, Labels.ZONE, "test-zone-1", Labels.NODE_POOL, "default",
          Labels.INSTANCE_TYPE, "default-instance-type"), List.of(), resources("cpu", "4", "memory", "4Gi", "pods", "100"), List.of(), false, "default"));
    }
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pods.add(pod("100m").labels(LABELS).requiredPodAntiAffinity(PodAffinityTerm.of(SELECTOR, Labels.HOSTNAME)).build());
    }
    env.provision(pods);
    assertThat(env.result.newNodeClaims()).isEmpty();
    assertThat(pods.stream().map(env::existingNodeOf).distinct().count()).isEqualTo(4);
  }

  @Test
  @DisplayName("should schedule at most one pod per zone with zonal anti-affinity")
  void antiAffinityZone() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      pods.add(pod("100m").labels(LABELS).requiredPodAntiAffinity(PodAffinityTerm.of(SELECTOR, Labels.ZONE)).build());
    }
    env.provision(pods);
    // Upstream places one per batch (the zone stays open until launch); here each NodeClaim's zone is
    // decided as the pod joins, so one per zone in this pass (docs/behaviour/scheduling.md#zonal-anti-affinity-in-one-batch).
    assertThat(env.result.unschedulable()).hasSize(1);
    assertThat(zones(pods).values()).containsExactly(1, 1, 1);
  }

  @Test
  @DisplayName("should not violate pod anti-affinity on zone (inverse w/existing nodes)")
  void inverseAntiAffinityExisting() {
    env.defaultNodePool();
    List<ExistingNode> nodes = new ArrayList<>();
    for (int zone = 1; zone <= 3; zone++) {
      Pod guard = pod("10m").requiredPodAntiAffinity(PodAffinityTerm.of(SELECTOR, Labels.ZONE)).nodeName("node-" + zone).build();
      env.node(zonalNode("node-" + zone, "test-zone-" + zone, List.of(guard)));
    }
    Pod pod = pod("100m").labels(LABELS).build();
    env.provision(pod);
    env.expectNotScheduled(pod, "anti-affinity");
  }

  @Test
  @DisplayName("should schedule around existing pods' anti-affinity in other zones")
  void inverseAntiAffinityPartial() {
    env.defaultNodePool();
    Pod guard = pod("10m").requiredPodAntiAffinity(PodAffinityTerm.of(SELECTOR, Labels.ZONE)).nodeName("node-1").build();
    env.node(zonalNode("node-1", "test-zone-1", List.of(guard)));
    Pod pod = pod("100m").labels(LABELS).nodeSelector(Map.of(Labels.CAPACITY_TYPE, "spot")).build();
    env.provision(pod);
    assertThat(label(env.expectScheduled(pod), Labels.ZONE)).isEqualTo("test-zone-2");
  }

  @Test
  @DisplayName("should not violate pod anti-affinity on zone (Schrödinger)")
  void schrodinger() {
    env.defaultNodePool();
    Pod anywhere = pod("2").requiredPodAntiAffinity(PodAffinityTerm.of(SELECTOR, Labels.ZONE)).build();
    Pod labelled = pod("100m").labels(LABELS).build();
    env.provision(anywhere, labelled);
    // Upstream cannot place the labelled pod until the next batch, when the anti-affinity pod's node
    // has a zone; here its NodeClaim's zone is decided as it is placed, so the labelled pod goes to
    // another zone in the same pass (docs/behaviour/scheduling.md#zonal-anti-affinity-in-one-batch).
    String zone = label(env.expectScheduled(anywhere), Labels.ZONE);
    assertThat(env.expectScheduled(anywhere).requirements().get(Labels.ZONE).values()).containsExactly(zone);
    assertThat(label(env.expectScheduled(labelled), Labels.ZONE)).isNotEqualTo(zone);
  }

  @Test
  @DisplayName("should not violate pod anti-affinity on zone (pods pinned to every zone)")
  void antiAffinityPinnedZones() {
    env.defaultNodePool();
    List<Pod> guards = new ArrayList<>();
    for (int zone = 1; zone <= 3; zone++) {
      guards.add(
          pod("2").requiredPodAntiAffinity(PodAffinityTerm.of(SELECTOR, Labels.ZONE)).nodeSelector(Map.of(Labels.ZONE, "test-zone-" + zone)).build());
    }
    Pod labelled = pod("100m").labels(LABELS).build();
    List<Pod> all = new ArrayList<>(guards);
    all.add(labelled);
    env.provision(all);
    guards.forEach(env::expectScheduled);
    env.expectNotScheduled(labelled);
  }

  @Test
  @DisplayName("should relax preferred anti-affinity that cannot be met")
  void preferredAntiAffinity() {
    env.defaultNodePool();
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      pods.add(
          pod("100m").labels(LABELS)
              .preferredPodAntiAffinity(new WeightedPodAffinityTerm(10, PodAffinityTerm.of(SELECTOR, Labels.ZONE)))
              .build());
    }
    env.provision(pods);
    // The first pod may land in any zone, so it blocks all three (as upstream records it); the rest relax.
    assertThat(env.result.unschedulable()).isEmpty();
  }

  @Test
  @DisplayName("should honour tolerations in spread node filters only with nodeTaintsPolicy honor")
  void tolerantPodsSpreadOverTaintedPool() {
    env.nodePool(
        new SchedulingHarness.NodePool("tainted")
            .require(req(Labels.ZONE, Operator.In, "test-zone-1"))
            .taint(new Taint("foo", "bar", Taint.Effect.NoSchedule)));
    env.nodePool(new SchedulingHarness.NodePool("open").require(req(Labels.ZONE, Operator.In, "test-zone-2", "test-zone-3")));
    TopologySpreadConstraint constraint =
        new TopologySpreadConstraint(1, Labels.ZONE, WhenUnsatisfiable.DoNotSchedule, SELECTOR, null, null, NodeInclusionPolicy.Honor, List.of());
    List<Pod> pods = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pods.add(pod("100m").labels(LABELS).toleration(Toleration.exists("foo", null)).topologySpreadConstraint(constraint).build());
    }
    env.provision(pods);
    assertThat(zones(pods).values()).containsExactlyInAnyOrder(1, 1, 1);
  }
}
