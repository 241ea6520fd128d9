package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.scheduling.SchedulingHarness.pod;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.WeightedPodAffinityTerm;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Toleration;
import sh.karpenter.core.wellknown.Labels;

/**
 * A {@link SchedulerCache} changes nothing but speed: on seeded random clusters (several NodePools
 * with weights, taints, zone and capacity-type requirements, limits, minValues, reserved offerings,
 * DaemonSets, existing nodes, pods with selectors, spread, (anti-)affinity, preferences and host
 * ports, under every scheduler option), a series of passes sharing one cache returns exactly what
 * each pass returns alone, in any order, and a cache prepares the templates again when the NodePools,
 * the DaemonSets or the resource dimensions change.
 */
class SchedulerCacheTest {
  private static final List<String> ZONES = FakeInstanceTypes.ZONES;
  private static final Taint DEDICATED = new Taint("dedicated", "batch", Taint.Effect.NoSchedule);
  private static final Taint SOFT = new Taint("soft", "yes", Taint.Effect.PreferNoSchedule);
  private static final int WORLDS = 40;
  private static final int PASSES = 6;

  /** NodePools, DaemonSets and existing nodes that several passes share, and the catalogue they launch from. */
  private record World(List<NodeClaimTemplate> templates, List<Pod> daemonSets, List<InstanceType> catalogue, List<ExistingNode> nodes) {}

  @Test
  @DisplayName("passes sharing a cache return what each pass returns without one, in any order")
  void cachedPassesMatchUncachedPasses() {
    int claims = 0;
    for (int seed = 0; seed < WORLDS; seed++) {
      Random random = new Random(seed);
      World world = world(random, seed);
      List<SchedulingInput> inputs = new ArrayList<>();
      for (int i = 0; i < PASSES; i++) {
        inputs.add(input(random, world, seed * 100 + i));
      }
      List<String> expected = new ArrayList<>();
      for (SchedulingInput input : inputs) {
        SchedulingResult result = new Scheduler(input).solve();
        claims += result.newNodeClaims().size();
        expected.add(render(result));
      }
      SchedulerCache cache = new SchedulerCache();
      for (int i = 0; i < inputs.size(); i++) {
        assertThat(render(new Scheduler(inputs.get(i), cache).solve())).as("seed %d, pass %d", seed, i).isEqualTo(expected.get(i));
      }
      for (int i = inputs.size() - 1; i >= 0; i--) {
        assertThat(render(new Scheduler(inputs.get(i), cache).solve())).as("seed %d, pass %d again", seed, i).isEqualTo(expected.get(i));
      }
    }
    assertThat(claims).as("the random clusters plan NodeClaims").isGreaterThan(WORLDS);
  }

  @Test
  @DisplayName("one cache used across clusters with different NodePools returns each pass's own result")
  void cacheFollowsChangingNodePools() {
    SchedulerCache cache = new SchedulerCache();
    for (int seed = 0; seed < WORLDS; seed++) {
      Random random = new Random(1000 + seed);
      World world = world(random, 1000 + seed);
      for (int i = 0; i < 2; i++) {
        SchedulingInput input = input(random, world, seed * 10 + i);
        assertThat(render(new Scheduler(input, cache).solve())).as("seed %d, pass %d", seed, i).isEqualTo(render(new Scheduler(input).solve()));
      }
    }
  }

  @Test
  @DisplayName("NodeClaims repacked for cost come out the same with a cache")
  void repackedNodeClaimsAreTheSameWithACache() {
    Random random = new Random(7);
    NodeClaimTemplate pool = CostGapTest.defaultNodePool(random.nextBoolean());
    Pod daemon = pod("150m", "200Mi").owner("DaemonSet", "agent").build();
    SchedulerCache cache = new SchedulerCache();
    int repacked = 0;
    for (int pass = 0; pass < 30; pass++) {
      List<Pod> pods = CostGapTest.Mix.MIXED.pods(2 + random.nextInt(14), random.nextInt(4));
      SchedulingInput input = new SchedulingInput(List.of(pool), List.of(), pods, List.of(daemon), null, SchedulerOptions.DEFAULT);
      String alone = render(new Scheduler(input).solve());
      assertThat(render(new Scheduler(input, cache).solve())).as("pass %d", pass).isEqualTo(alone);
      assertThat(render(new Scheduler(input, cache).solve())).as("pass %d again", pass).isEqualTo(alone);
      if (!alone.equals(render(new Scheduler(withOptions(input, input.options().withCostRepacking(false))).solve()))) {
        repacked++;
      }
    }
    assertThat(repacked).as("passes whose NodeClaims the cost post-pass changed").isPositive();
  }

  @Test
  @DisplayName("the cache keeps the prepared templates while the NodePools, DaemonSets and dimensions stay the same")
  void cacheReusesOnlyMatchingTemplates() {
    Random random = new Random(42);
    World world = world(random, 42);
    SchedulingInput first = input(random, world, 1);
    SchedulingInput second = input(random, world, 2);
    int dimensions = ResourceNames.count();
    SchedulerCache cache = new SchedulerCache();

    PreparedTemplates prepared = cache.prepare(first, dimensions);
    assertThat(cache.prepare(second, dimensions)).as("other pods and nodes, same NodePools").isSameAs(prepared);
    ExistingNode node = node(random, world, "remembered");
    NodeSlot.Basis basis = cache.node(node, prepared);
    assertThat(cache.node(node, prepared)).as("the same node object").isSameAs(basis);
    assertThat(cache.node(node, PreparedTemplates.of(second, dimensions))).as("other prepared templates").isNotSameAs(basis);

    List<NodeClaimTemplate> copies = new ArrayList<>();
    for (NodeClaimTemplate t : world.templates()) {
      copies.add(new NodeClaimTemplate(
          t.nodePoolName(), t.weight(), t.labels(), t.annotations(), t.taints(), t.startupTaints(), t.requirements(), t.limits(), t.usage(), t.instanceTypes()));
    }
    PreparedTemplates forCopies = cache.prepare(withTemplates(second, copies), dimensions);
    assertThat(forCopies).as("NodePools are compared by identity").isNotSameAs(prepared);
    assertThat(cache.prepare(withTemplates(second, copies), dimensions)).isSameAs(forCopies);

    Pod daemon = pod("100m").owner("DaemonSet", "extra").build();
    List<Pod> daemons = new ArrayList<>(second.daemonSetPods());
    daemons.add(daemon);
    SchedulingInput moreDaemons = new SchedulingInput(
        copies, second.nodes(), second.pendingPods(), daemons, second.volumes(), second.options(), second.namespaceLabels());
    PreparedTemplates withDaemon = cache.prepare(moreDaemons, dimensions);
    assertThat(withDaemon).as("another DaemonSet").isNotSameAs(forCopies);
    assertThat(cache.node(node, withDaemon)).as("nodes are looked at again for the DaemonSet").isNotSameAs(basis);

    PreparedTemplates wider = cache.prepare(moreDaemons, dimensions + 1);
    assertThat(wider.dimensions).isEqualTo(dimensions + 1);
    assertThat(wider.templates).allSatisfy(t -> assertThat(t.dimensions).isEqualTo(dimensions + 1));
  }

  private static SchedulingInput withTemplates(SchedulingInput input, List<NodeClaimTemplate> templates) {
    return new SchedulingInput(
        templates, input.nodes(), input.pendingPods(), input.daemonSetPods(), input.volumes(), input.options(), input.namespaceLabels());
  }

  private static SchedulingInput withOptions(SchedulingInput input, SchedulerOptions options) {
    return new SchedulingInput(
        input.templates(), input.nodes(), input.pendingPods(), input.daemonSetPods(), input.volumes(), options, input.namespaceLabels());
  }

  private static World world(Random random, int seed) {
    List<InstanceType> catalogue = new ArrayList<>(FakeInstanceTypes.instanceTypes(4 + random.nextInt(40)));
    if (random.nextInt(3) == 0) {
      List<InstanceType> assorted = new ArrayList<>(FakeInstanceTypes.assorted());
      java.util.Collections.shuffle(assorted, random);
      catalogue.addAll(assorted.subList(0, 60));
    }
    if (random.nextInt(3) == 0) {
      for (int i = 0; i < 3; i++) {
        catalogue.add(reservedType("reserved-" + seed + "-" + i, "r-" + seed + "-" + i, ZONES.get(i % ZONES.size()), 1 + random.nextInt(3)));
      }
    }
    int pools = 1 + random.nextInt(3);
    List<NodeClaimTemplate> templates = new ArrayList<>();
    for (int p = 0; p < pools; p++) {
      String name = "pool-" + p;
      Requirements requirements = new Requirements();
      requirements.add(Requirement.in(Labels.NODE_POOL, name));
      if (random.nextInt(3) == 0) {
        requirements.add(Requirement.in(Labels.ZONE, ZONES.get(random.nextInt(ZONES.size())), ZONES.get(random.nextInt(ZONES.size()))));
      }
      if (random.nextInt(4) == 0) {
        requirements.add(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_RESERVED));
      }
      if (random.nextInt(5) == 0) {
        requirements.add(Requirement.of(Labels.INSTANCE_TYPE, Operator.Exists, List.of(), 2 + random.nextInt(3)));
      }
      List<Taint> taints = switch (random.nextInt(5)) {
        case 0 -> List.of(DEDICATED);
        case 1 -> List.of(SOFT);
        default -> List.of();
      };
      Resources limits = random.nextInt(3) == 0 ? Resources.builder().cpu(Integer.toString(8 + random.nextInt(60))).build() : null;
      Resources usage = limits != null && random.nextBoolean() ? Resources.builder().cpu("4").build() : null;
      templates.add(new NodeClaimTemplate(
          name, random.nextInt(3), Map.of("team", "t" + p), Map.of(), taints, List.of(), requirements, limits, usage, catalogue));
    }
    List<Pod> daemonSets = new ArrayList<>();
    int daemons = random.nextInt(3);
    for (int d = 0; d < daemons; d++) {
      Pod.Builder daemon = pod(random.nextInt(300) + 50 + "m", random.nextInt(200) + 50 + "Mi").owner("DaemonSet", "ds-" + d);
      switch (random.nextInt(4)) {
        case 0 -> daemon.toleration(Toleration.exists(DEDICATED.key(), null));
        case 1 -> daemon.nodeSelector(Map.of(Labels.ZONE, ZONES.get(random.nextInt(ZONES.size()))));
        case 2 -> daemon.hostPort(new HostPort(null, 9100, null));
        default -> {}
      }
      daemonSets.add(daemon.build());
    }
    World world = new World(templates, daemonSets, catalogue, new ArrayList<>());
    int nodes = random.nextInt(7);
    for (int n = 0; n < nodes; n++) {
      world.nodes().add(node(random, world, "shared-" + seed + "-" + n));
    }
    return world;
  }

  /** A 4-cpu type with on-demand offerings in every zone and one reserved offering with {@code capacity} instances. */
  private static InstanceType reservedType(String name, String reservation, String zone, int capacity) {
    List<Offering> offerings = new ArrayList<>();
    for (String z : ZONES) {
      offerings.add(Offering.of(z, Labels.CAPACITY_TYPE_ON_DEMAND, 0.9, true));
    }
    offerings.add(new Offering(
        Requirements.of(
            Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED),
            Requirement.in(Labels.ZONE, zone),
            Requirement.in(Labels.RESERVATION_ID, reservation)),
        0.01,
        true,
        capacity));
    Requirements requirements = Requirements.of(
        Requirement.in(Labels.INSTANCE_TYPE, name),
        Requirement.in(Labels.ARCH, "amd64"),
        Requirement.in(Labels.OS, "linux"),
        Requirement.of(Labels.ZONE, Operator.In, ZONES),
        Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_RESERVED));
    return new InstanceType(name, requirements, offerings, Resources.builder().cpu("4").memory("8Gi").pods(20).build(), Overhead.NONE);
  }

  private static SchedulingInput input(Random random, World world, int id) {
    // like the simulations of one disruption decision: the same node objects, some of them left out
    List<ExistingNode> nodes = new ArrayList<>();
    for (ExistingNode shared : world.nodes()) {
      if (random.nextInt(4) != 0) {
        nodes.add(shared);
      }
    }
    int nodeCount = random.nextInt(3);
    for (int n = 0; n < nodeCount; n++) {
      nodes.add(node(random, world, "node-" + id + "-" + n));
    }
    List<Pod> pods = new ArrayList<>();
    int podCount = 1 + random.nextInt(30);
    for (int i = 0; i < podCount; i++) {
      pods.add(pendingPod(random));
    }
    SchedulerOptions options = new SchedulerOptions(
        random.nextInt(4) == 0 ? SchedulerOptions.PreferencePolicy.Ignore : SchedulerOptions.PreferencePolicy.Respect,
        random.nextBoolean() ? SchedulerOptions.MinValuesPolicy.Strict : SchedulerOptions.MinValuesPolicy.BestEffort,
        random.nextBoolean() ? SchedulerOptions.ReservedOfferingMode.Strict : SchedulerOptions.ReservedOfferingMode.Fallback);
    return new SchedulingInput(world.templates(), nodes, pods, world.daemonSets(), null, options);
  }

  private static ExistingNode node(Random random, World world, String name) {
    InstanceType type = world.catalogue().get(random.nextInt(world.catalogue().size()));
    NodeClaimTemplate pool = world.templates().get(random.nextInt(world.templates().size()));
    Map<String, String> labels = new HashMap<>();
    labels.put(Labels.HOSTNAME, name);
    labels.put(Labels.INSTANCE_TYPE, type.name());
    labels.put(Labels.ZONE, ZONES.get(random.nextInt(ZONES.size())));
    labels.put(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND);
    labels.put(Labels.NODE_POOL, pool.nodePoolName());
    labels.put(Labels.ARCH, "amd64");
    labels.put(Labels.OS, "linux");
    List<Pod> bound = new ArrayList<>();
    int count = random.nextInt(3);
    for (int i = 0; i < count; i++) {
      bound.add(pendingPod(random).toBuilder().nodeName(name).build());
    }
    return new ExistingNode(name, labels, pool.taints(), type.allocatable(), bound, random.nextInt(5) != 0, pool.nodePoolName());
  }

  private static Pod pendingPod(Random random) {
    Pod.Builder builder = pod(10 + random.nextInt(3000) + "m", 16 + random.nextInt(6000) + "Mi");
    Map<String, String> spread = Map.of("group", "spread");
    Map<String, String> anti = Map.of("group", "anti");
    Map<String, String> web = Map.of("app", "web");
    switch (random.nextInt(12)) {
      case 0 -> builder.nodeSelector(Map.of(Labels.ZONE, ZONES.get(random.nextInt(ZONES.size()))));
      case 1 -> builder.nodeSelector(Map.of(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT));
      case 2 -> builder.labels(spread).topologySpreadConstraint(
          TopologySpreadConstraint.of(1, Labels.ZONE, TopologySpreadConstraint.WhenUnsatisfiable.DoNotSchedule, LabelSelector.of(spread)));
      case 3 -> builder.labels(anti).requiredPodAntiAffinity(PodAffinityTerm.of(LabelSelector.of(anti), Labels.HOSTNAME));
      case 4 -> builder.toleration(Toleration.exists(DEDICATED.key(), null));
      case 5 -> builder.preferredNodeAffinity(
          10, Requirements.of(Requirement.in(Labels.ZONE, ZONES.get(random.nextInt(ZONES.size())))));
      case 6 -> builder.labels(web).preferredPodAntiAffinity(
          new WeightedPodAffinityTerm(50, PodAffinityTerm.of(LabelSelector.of(web), Labels.HOSTNAME)));
      case 7 -> builder.hostPort(new HostPort(null, 8080, null));
      case 8 -> builder.labels(web).topologySpreadConstraint(
          TopologySpreadConstraint.of(1, Labels.HOSTNAME, TopologySpreadConstraint.WhenUnsatisfiable.ScheduleAnyway, LabelSelector.of(web)));
      case 9 -> builder.nodeSelector(Map.of(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED));
      default -> {}
    }
    return builder.build();
  }

  /** Everything a result says, in a stable text form. */
  static String render(SchedulingResult result) {
    StringBuilder s = new StringBuilder();
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      s.append("claim ").append(claim.nodePoolName())
          .append(' ').append(claim.requirements())
          .append(" options ").append(claim.instanceTypeOptions().stream().map(InstanceType::name).toList())
          .append(" pods ").append(claim.pods().stream().map(Pod::key).toList())
          .append(" requests ").append(claim.requests())
          .append(" cheapest ").append(claim.cheapestOffering()).append(' ').append(claim.cheapestOffering().reservationId())
          .append(" relaxed ").append(claim.minValuesRelaxed())
          .append('\n');
    }
    new TreeMap<>(result.existingNodePlacements())
        .forEach((node, pods) -> s.append("node ").append(node).append(' ').append(pods.stream().map(Pod::key).toList()).append('\n'));
    result.unschedulable().forEach(e -> s.append("unschedulable ").append(e.pod().key()).append(": ").append(e.reason()).append('\n'));
    result.deferred().forEach(e -> s.append("deferred ").append(e.pod().key()).append(": ").append(e.reason()).append('\n'));
    return s.toString();
  }
}
