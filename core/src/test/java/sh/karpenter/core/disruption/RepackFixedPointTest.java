package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.disruption.DisruptionFixture.ZONES;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.wellknown.Labels;

/**
 * Seeded random clusters, repack consolidation on: decisions are carried out one after the other (the
 * candidates go, their pods land where a fresh scheduling pass puts them, replacements come up as
 * their cheapest offering, as benchmarks' ConsolidationDecisions applies commands) until a decision
 * finds nothing. Every command lowers the cluster's price strictly, stays within its budget, takes no
 * node with a blocking pod (PDB) or {@code do-not-disrupt}, and validates against the cluster it was
 * decided on; the cluster reaches a fixed point within {@value #MAX_LOOPS} loops. A failure names its
 * seed.
 */
class RepackFixedPointTest {
  private static final int MAX_LOOPS = 60;
  /** Economies of scale, so that packing matters: per CPU, larger types are cheaper. */
  private static final List<InstanceType> TYPES = List.of(
      DisruptionFixture.type("s-2", "2", "4Gi", 0.30, 0.12),
      DisruptionFixture.type("m-4", "4", "8Gi", 0.50, 0.20),
      DisruptionFixture.type("l-8", "8", "16Gi", 0.80, 0.32),
      DisruptionFixture.type("x-16", "16", "32Gi", 1.40, 0.56));
  private static final List<String> BUDGETS = List.of("10%", "30%", "1", "2", "100%");

  /** Repack commands over all seeds, and those launching several nodes: the test must exercise the method. */
  private static final AtomicInteger REPACKS = new AtomicInteger();
  private static final AtomicInteger MULTI_REPLACEMENT_REPACKS = new AtomicInteger();

  @AfterAll
  static void repackActed() {
    assertThat(REPACKS.get()).as("repack commands over all seeds").isGreaterThan(0);
    assertThat(MULTI_REPLACEMENT_REPACKS.get()).as("repack commands launching several nodes").isGreaterThan(0);
  }

  static LongStream seeds() {
    return LongStream.range(0, 80);
  }

  /** A node of the model the commands are applied to. */
  private static final class Node {
    final String name;
    final String pool;
    final InstanceType type;
    final String zone;
    final String capacityType;
    final List<Pod> pods = new ArrayList<>();
    boolean doNotDisrupt;
    boolean pdb;
    boolean notConsolidatable;

    Node(String name, String pool, InstanceType type, String zone, String capacityType) {
      this.name = name;
      this.pool = pool;
      this.type = type;
      this.zone = zone;
      this.capacityType = capacityType;
    }

    double price() {
      for (Offering offering : type.offerings()) {
        if (offering.zone().equals(zone) && offering.capacityType().equals(capacityType)) {
          return offering.price();
        }
      }
      throw new IllegalStateException("no offering for " + name);
    }
  }

  private static final class Model {
    final List<Node> nodes = new ArrayList<>();
    final Map<String, Budget> budgets = new HashMap<>();
    final Map<String, ConsolidationPolicy> policies = new HashMap<>();
    final boolean spotToSpot;
    int next;

    Model(Random random) {
      spotToSpot = random.nextBoolean();
      int pools = 1 + random.nextInt(2);
      for (int p = 0; p < pools; p++) {
        budgets.put("pool-" + p, new Budget(BUDGETS.get(random.nextInt(BUDGETS.size())), null, null, null));
        policies.put("pool-" + p, random.nextInt(4) == 0 ? ConsolidationPolicy.WHEN_EMPTY : ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED);
      }
      int count = 3 + random.nextInt(12);
      for (int n = 0; n < count; n++) {
        InstanceType type = TYPES.get(random.nextInt(TYPES.size()));
        Node node = new Node("node-" + next++, "pool-" + random.nextInt(pools), type, ZONES.get(random.nextInt(ZONES.size())),
            random.nextInt(4) == 0 ? Labels.CAPACITY_TYPE_SPOT : Labels.CAPACITY_TYPE_ON_DEMAND);
        long free = type.allocatable().cpuMilli() * (20 + random.nextInt(70)) / 100;
        int pods = random.nextInt(6);
        for (int i = 0; i < pods; i++) {
          long cpu = 200 + 100L * random.nextInt(18);
          if (cpu > free) {
            break;
          }
          free -= cpu;
          node.pods.add(pod(cpu + "m").nodeName(node.name).build());
        }
        switch (random.nextInt(12)) {
          case 0 -> node.doNotDisrupt = true;
          case 1 -> node.pdb = !node.pods.isEmpty();
          case 2 -> node.notConsolidatable = true;
          default -> {}
        }
        nodes.add(node);
      }
    }

    DisruptionFixture fixture() {
      DisruptionFixture f = new DisruptionFixture();
      f.options = f.options.withSpotToSpotConsolidation(spotToSpot).withRepackConsolidation(true, Duration.ofHours(2));
      for (String pool : new java.util.TreeSet<>(budgets.keySet())) {
        f.pool(pool, policies.get(pool), Duration.ZERO, List.of(budgets.get(pool)), TYPES);
      }
      for (Node node : nodes) {
        DisruptionFixture.NodeBuilder b = f.node(node.name, node.pool, node.type).zone(node.zone).pods(node.pods.toArray(Pod[]::new));
        if (Labels.CAPACITY_TYPE_SPOT.equals(node.capacityType)) {
          b.spot();
        }
        if (node.doNotDisrupt) {
          b.doNotDisrupt();
        }
        if (node.pdb) {
          b.blockedBy(node.pods.getFirst().key(), "pdb default/guarded allows 0 disruptions");
        }
        if (node.notConsolidatable) {
          b.notConsolidatable();
        }
      }
      return f;
    }

    double cost() {
      return nodes.stream().mapToDouble(Node::price).sum();
    }

    /** Carries out a command: the candidates go, their pods are placed by a fresh pass, replacements start as their cheapest offering. */
    void apply(DisruptionInput input, Command command) {
      Set<String> gone = new HashSet<>();
      List<Pod> moving = new ArrayList<>();
      for (Candidate candidate : command.candidates()) {
        gone.add(candidate.name());
        moving.addAll(candidate.reschedulablePods());
      }
      List<ExistingNode> rest = input.nodes().stream().filter(n -> !gone.contains(n.name())).map(StateNode::node).toList();
      nodes.removeIf(n -> gone.contains(n.name));
      SchedulingInput s = input.scheduling();
      SchedulerOptions options = s.options().withReservedOfferingMode(SchedulerOptions.ReservedOfferingMode.Fallback)
          .withCostRepacking(command.method() == Method.REPACK_CONSOLIDATION);
      SchedulingResult result =
          new Scheduler(new SchedulingInput(s.templates(), rest, moving, s.daemonSetPods(), s.volumes(), options, s.namespaceLabels())).solve();
      assertThat(result.unschedulable()).isEmpty();
      assertThat(result.newNodeClaims()).hasSize(command.replacements().size());
      Map<String, Node> byName = new HashMap<>();
      nodes.forEach(n -> byName.put(n.name, n));
      result.existingNodePlacements().forEach((name, pods) -> pods.forEach(p -> byName.get(name).pods.add(p.toBuilder().nodeName(name).build())));
      for (int i = 0; i < command.replacements().size(); i++) {
        PlannedNodeClaim replacement = command.replacements().get(i);
        Offering offering = replacement.cheapestOffering();
        Node node = new Node("node-" + next++, replacement.nodePoolName(), replacement.cheapestInstanceType(), offering.zone(), offering.capacityType());
        result.newNodeClaims().get(i).pods().forEach(p -> node.pods.add(p.toBuilder().nodeName(node.name).build()));
        nodes.add(node);
      }
    }
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void decisionsLowerTheCostStrictlyAndReachAFixedPoint(long seed) {
    Model model = new Model(new Random(seed));
    int loops = 0;
    while (true) {
      assertThat(loops).as("seed %d: no fixed point within %d loops", seed, MAX_LOOPS).isLessThan(MAX_LOOPS);
      DisruptionInput input = model.fixture().input();
      Decision decision = Disruption.decide(input);
      if (decision.isEmpty()) {
        break;
      }
      for (Command command : decision.commands()) {
        assertSafe(seed, input, command);
        if (command.method() == Method.REPACK_CONSOLIDATION) {
          REPACKS.incrementAndGet();
          if (command.replacements().size() > 1) {
            MULTI_REPLACEMENT_REPACKS.incrementAndGet();
          }
        }
        assertThat(Disruption.validate(command, input)).as("seed %d: %s", seed, command).isEqualTo(Validation.VALID);
        double before = model.cost();
        model.apply(input, command);
        assertThat(model.cost()).as("seed %d: cost after %s", seed, command.method()).isLessThan(before - 1e-9);
      }
      loops++;
    }
  }

  private static void assertSafe(long seed, DisruptionInput input, Command command) {
    Map<String, Integer> remaining = Budgets.remaining(input, command.reason());
    Map<String, Integer> taken = new HashMap<>();
    for (Candidate candidate : command.candidates()) {
      assertThat(candidate.state().blockers()).as("seed %d: %s holds a blocking pod", seed, candidate.name()).isEmpty();
      assertThat(candidate.state().doNotDisrupt()).as("seed %d: %s is do-not-disrupt", seed, candidate.name()).isFalse();
      taken.merge(candidate.nodePoolName(), 1, Integer::sum);
    }
    taken.forEach((pool, count) ->
        assertThat(count).as("seed %d: %s candidates of %s", seed, command.reason(), pool).isLessThanOrEqualTo(remaining.getOrDefault(pool, 0)));
  }
}
