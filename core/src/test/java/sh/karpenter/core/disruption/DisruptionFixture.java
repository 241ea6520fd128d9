package sh.karpenter.core.disruption;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Labels;

/**
 * A small cluster for disruption tests, in the spirit of upstream's disruption suite: NodePools (policy
 * and template), nodes with their NodeClaim state and pods, pending pods; {@link #decide()} runs one
 * loop at {@link #NOW}.
 */
final class DisruptionFixture {
  static final Instant NOW = Instant.parse("2026-03-02T12:00:00Z");
  static final List<String> ZONES = FakeInstanceTypes.ZONES;
  private static final AtomicInteger SEQUENCE = new AtomicInteger();

  final TestingClock clock = new TestingClock(NOW);
  DisruptionOptions options = DisruptionOptions.defaults(clock);
  Instant now = NOW;
  final Map<String, PoolPolicy> pools = new LinkedHashMap<>();
  final List<NodeClaimTemplate> templates = new ArrayList<>();
  final List<NodeBuilder> nodes = new ArrayList<>();
  final List<Pod> pending = new ArrayList<>();
  final List<Pod> daemonSets = new ArrayList<>();

  /**
   * An amd64 linux instance type with on-demand offerings at {@code onDemand} and, when {@code spot} is
   * positive, spot offerings at {@code spot}, in all three zones; no overhead, 110 pods.
   */
  static InstanceType type(String name, String cpu, String memory, double onDemand, double spot) {
    List<Offering> offerings = new ArrayList<>();
    for (String zone : ZONES) {
      offerings.add(Offering.of(zone, Labels.CAPACITY_TYPE_ON_DEMAND, onDemand, true));
      if (spot > 0) {
        offerings.add(Offering.of(zone, Labels.CAPACITY_TYPE_SPOT, spot, true));
      }
    }
    List<String> capacityTypes =
        spot > 0 ? List.of(Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_SPOT) : List.of(Labels.CAPACITY_TYPE_ON_DEMAND);
    Requirements requirements =
        Requirements.of(
            Requirement.in(Labels.INSTANCE_TYPE, name),
            Requirement.in(Labels.ARCH, "amd64"),
            Requirement.in(Labels.OS, "linux"),
            Requirement.of(Labels.ZONE, Operator.In, ZONES),
            Requirement.of(Labels.CAPACITY_TYPE, Operator.In, capacityTypes));
    Resources capacity = Resources.builder().cpu(cpu).memory(memory).pods(110).build();
    return new InstanceType(name, requirements, offerings, capacity, null);
  }

  /** {@code count} types {@code t-1 .. t-count}: type i has i CPUs, 2i Gi, on-demand 0.1·i, spot 0.04·i. */
  static List<InstanceType> ladder(int count) {
    List<InstanceType> types = new ArrayList<>();
    for (int i = 1; i <= count; i++) {
      types.add(type("t-" + i, Integer.toString(i), (2 * i) + "Gi", 0.1 * i, 0.04 * i));
    }
    return types;
  }

  static Pod.Builder pod(String cpu) {
    int n = SEQUENCE.incrementAndGet();
    return Pod.builder()
        .name("pod-" + n)
        .uid(String.format("uid-%06d", n))
        .creationTimestampMillis(n)
        .owner("ReplicaSet", "web")
        .container(Resources.builder().cpu(cpu).memory("100Mi").build());
  }

  DisruptionFixture pool(String name, ConsolidationPolicy policy, Duration consolidateAfter, List<Budget> budgets, List<InstanceType> types, Requirement... requirements) {
    pools.put(name, new PoolPolicy(name, policy, consolidateAfter, budgets));
    Requirements all = Requirements.of(requirements).add(Requirement.in(Labels.NODE_POOL, name));
    templates.add(new NodeClaimTemplate(name, 0, Map.of(), Map.of(), List.of(), List.of(), all, null, Resources.EMPTY, types));
    return this;
  }

  /** A WhenEmptyOrUnderutilized pool with consolidateAfter 0s and the default budget. */
  DisruptionFixture pool(String name, List<InstanceType> types, Requirement... requirements) {
    return pool(name, ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(), types, requirements);
  }

  /** A managed, initialized, Consolidatable node of {@code pool}, created a day ago, on-demand in zone 1. */
  NodeBuilder node(String name, String pool, InstanceType type) {
    NodeBuilder node = new NodeBuilder(name, pool, type);
    nodes.add(node);
    return node;
  }

  DisruptionInput input() {
    List<StateNode> built = new ArrayList<>();
    for (NodeBuilder node : nodes) {
      built.add(node.build());
    }
    SchedulingInput scheduling = new SchedulingInput(templates, List.of(), pending, daemonSets, null, SchedulerOptions.DEFAULT);
    return new DisruptionInput(built, pools, scheduling, now, options);
  }

  Decision decide() {
    return Disruption.decide(input());
  }

  /** A node under construction. */
  static final class NodeBuilder {
    final String name;
    String pool;
    InstanceType type;
    String zone = ZONES.getFirst();
    String capacityType = Labels.CAPACITY_TYPE_ON_DEMAND;
    boolean managed = true;
    boolean initialized = true;
    boolean consolidatable = true;
    Instant createdAt = NOW.minus(Duration.ofDays(1));
    Instant lastPodEventAt;
    /** When it became initialized; null means at its creation (for an initialized node). */
    Instant initializedAt;
    Duration expireAfter = Duration.ofDays(30);
    Drift drift;
    boolean ready = true;
    boolean deleting;
    boolean instanceTerminating;
    boolean markedForDeletion;
    boolean nominated;
    boolean doNotDisrupt;
    boolean terminationGracePeriod;
    Resources allocatable;
    final List<Pod> pods = new ArrayList<>();
    final List<Pod> daemonPods = new ArrayList<>();
    final List<PodBlocker> blockers = new ArrayList<>();
    final Map<String, String> extraLabels = new HashMap<>();
    final List<Taint> taints = new ArrayList<>();
    final List<NodeHealth.Condition> conditions = new ArrayList<>();
    boolean doNotRepair;
    boolean registered = true;

    NodeBuilder(String name, String pool, InstanceType type) {
      this.name = name;
      this.pool = pool;
      this.type = type;
    }

    NodeBuilder zone(String z) {
      zone = z;
      return this;
    }

    NodeBuilder spot() {
      capacityType = Labels.CAPACITY_TYPE_SPOT;
      return this;
    }

    NodeBuilder unmanaged() {
      managed = false;
      pool = null;
      return this;
    }

    NodeBuilder uninitialized() {
      initialized = false;
      return this;
    }

    NodeBuilder notConsolidatable() {
      consolidatable = false;
      return this;
    }

    NodeBuilder lastPodEvent(Instant at) {
      lastPodEventAt = at;
      return this;
    }

    NodeBuilder initializedAt(Instant at) {
      initializedAt = at;
      return this;
    }

    NodeBuilder createdAt(Instant at) {
      createdAt = at;
      return this;
    }

    NodeBuilder expireAfter(Duration d) {
      expireAfter = d;
      return this;
    }

    NodeBuilder drifted(String reason, Instant since) {
      drift = new Drift(reason, since);
      return this;
    }

    NodeBuilder deleting() {
      deleting = true;
      return this;
    }

    /** The Node's Ready condition is not True. */
    NodeBuilder notReady() {
      ready = false;
      return this;
    }

    /** The NodeClaim is {@code InstanceTerminating=True} (and so, as upstream, deleting). */
    NodeBuilder instanceTerminating() {
      instanceTerminating = true;
      deleting = true;
      return this;
    }

    NodeBuilder markedForDeletion() {
      markedForDeletion = true;
      return this;
    }

    NodeBuilder nominated() {
      nominated = true;
      return this;
    }

    NodeBuilder doNotDisrupt() {
      doNotDisrupt = true;
      return this;
    }

    NodeBuilder terminationGracePeriod() {
      terminationGracePeriod = true;
      return this;
    }

    /** A Node condition (node repair), transitioned at {@code since}. */
    NodeBuilder condition(String type, String status, Instant since) {
      conditions.add(new NodeHealth.Condition(type, status, since));
      return this;
    }

    NodeBuilder doNotRepair() {
      doNotRepair = true;
      return this;
    }

    /** An in-flight NodeClaim without a Node object (node repair cannot see it). */
    NodeBuilder unregistered() {
      registered = false;
      initialized = false;
      return this;
    }

    NodeBuilder allocatable(Resources r) {
      allocatable = r;
      return this;
    }

    NodeBuilder label(String key, String value) {
      extraLabels.put(key, value);
      return this;
    }

    /** Binds reschedulable pods to the node. */
    NodeBuilder pods(Pod.Builder... builders) {
      for (Pod.Builder b : builders) {
        pods.add(b.nodeName(name).build());
      }
      return this;
    }

    NodeBuilder pods(Pod... bound) {
      pods.addAll(List.of(bound));
      return this;
    }

    /** Binds a DaemonSet pod (not reschedulable). */
    NodeBuilder daemonPod(Pod.Builder b) {
      daemonPods.add(b.owner("DaemonSet", "agent").nodeName(name).build());
      return this;
    }

    NodeBuilder blockedBy(String podKey, String reason) {
      blockers.add(new PodBlocker(podKey, reason));
      return this;
    }

    Map<String, String> labels() {
      Map<String, String> labels = new HashMap<>();
      labels.put(Labels.HOSTNAME, name);
      labels.put(Labels.ZONE, zone);
      labels.put(Labels.ARCH, "amd64");
      labels.put(Labels.OS, "linux");
      if (type != null) {
        labels.put(Labels.INSTANCE_TYPE, type.name());
      }
      labels.put(Labels.CAPACITY_TYPE, capacityType);
      if (pool != null) {
        labels.put(Labels.NODE_POOL, pool);
      }
      labels.putAll(extraLabels);
      return labels;
    }

    StateNode build() {
      List<Pod> all = new ArrayList<>(pods);
      all.addAll(daemonPods);
      Resources capacity = allocatable != null ? allocatable : type.allocatable();
      ExistingNode node = new ExistingNode(name, labels(), taints, capacity, all, initialized, pool);
      return new StateNode(
          node,
          managed ? name + "-claim" : null,
          createdAt,
          lastPodEventAt,
          initialized ? (initializedAt != null ? initializedAt : createdAt) : null,
          expireAfter,
          consolidatable,
          drift,
          ready,
          deleting,
          instanceTerminating,
          markedForDeletion,
          nominated,
          doNotDisrupt,
          terminationGracePeriod,
          pods,
          blockers,
          registered ? new NodeHealth(conditions, createdAt, doNotRepair) : null);
    }
  }
}
