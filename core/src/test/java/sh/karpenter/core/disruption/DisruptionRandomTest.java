package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.disruption.DisruptionFixture.NOW;
import static sh.karpenter.core.disruption.DisruptionFixture.ZONES;
import static sh.karpenter.core.disruption.DisruptionFixture.ladder;
import static sh.karpenter.core.disruption.DisruptionFixture.pod;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/**
 * Seeded random clusters: whatever a loop decides, its candidates are within their budgets, every pod
 * of a candidate still finds a place when the move is simulated again, and the command validates
 * against the unchanged cluster.
 */
class DisruptionRandomTest {
  private static final List<InstanceType> TYPES = ladder(8);
  private static final List<ConsolidationPolicy> POLICIES = List.of(ConsolidationPolicy.values());
  private static final List<String> BUDGETS = List.of("10%", "30%", "1", "2", "100%", "0");

  @Test
  void commandsStayWithinBudgetAndEveryCandidatePodFits() {
    Random random = new Random(20260302L);
    int commands = 0;
    Map<Method, Integer> byMethod = new HashMap<>();
    for (int round = 0; round < 120; round++) {
      DisruptionFixture f = cluster(random);
      DisruptionInput input = f.input();
      Decision decision = Disruption.decide(input);
      for (Command command : decision.commands()) {
        commands++;
        byMethod.merge(command.method(), 1, Integer::sum);
        assertWithinBudget(input, command);
        assertCandidatePodsFit(input, command);
        assertThat(Disruption.validate(command, input)).as("round %d: %s", round, command).isEqualTo(Validation.VALID);
      }
    }
    assertThat(commands).isGreaterThan(40);
    assertThat(byMethod.keySet()).as("methods seen").hasSizeGreaterThanOrEqualTo(4);
  }

  private static void assertWithinBudget(DisruptionInput input, Command command) {
    Map<String, Integer> remaining = Budgets.remaining(input, command.reason());
    Map<String, Integer> taken = new HashMap<>();
    Set<String> names = new HashSet<>();
    for (Candidate candidate : command.candidates()) {
      assertThat(names.add(candidate.name())).as("candidates are distinct").isTrue();
      assertThat(candidate.state().managed() && candidate.state().node().initialized()).isTrue();
      assertThat(candidate.state().deleting() || candidate.state().markedForDeletion() || candidate.state().nominated()).isFalse();
      taken.merge(candidate.nodePoolName(), 1, Integer::sum);
    }
    taken.forEach((pool, count) -> assertThat(count).as("%s candidates of %s", command.reason(), pool).isLessThanOrEqualTo(remaining.get(pool)));
  }

  /** A fresh simulation of the move places every candidate pod, on no more new nodes than the command launches. */
  private static void assertCandidatePodsFit(DisruptionInput input, Command command) {
    for (PlannedNodeClaim replacement : command.replacements()) {
      assertThat(replacement.instanceTypeOptions()).isNotEmpty();
      assertThat(replacement.pods()).isNotEmpty();
    }
    boolean consolidation = command.reason() != Reason.DRIFTED;
    Simulation.Outcome outcome = new Simulation(input).run(command.candidates(), consolidation);
    assertThat(outcome.errors()).as("%s", command).isEmpty();
    assertThat(outcome.replacements().size()).isLessThanOrEqualTo(command.replacements().size());
  }

  private static DisruptionFixture cluster(Random random) {
    DisruptionFixture f = new DisruptionFixture();
    f.options = f.options.withSpotToSpotConsolidation(random.nextBoolean());
    int pools = 1 + random.nextInt(2);
    for (int p = 0; p < pools; p++) {
      ConsolidationPolicy policy = POLICIES.get(random.nextInt(POLICIES.size()));
      Duration consolidateAfter = random.nextInt(5) == 0 ? null : Duration.ofMinutes(random.nextInt(3) * 30L);
      Budget budget = new Budget(BUDGETS.get(random.nextInt(BUDGETS.size())), null, null, null);
      f.pool("pool-" + p, policy, consolidateAfter, List.of(budget), TYPES);
    }
    int nodes = 3 + random.nextInt(10);
    for (int n = 0; n < nodes; n++) {
      InstanceType type = TYPES.get(random.nextInt(TYPES.size()));
      DisruptionFixture.NodeBuilder node = f.node("node-" + n, "pool-" + random.nextInt(pools), type);
      node.zone(ZONES.get(random.nextInt(ZONES.size())));
      if (random.nextBoolean()) {
        node.spot();
      }
      long free = type.allocatable().cpuMilli();
      int podCount = random.nextInt(4) == 0 ? 0 : random.nextInt(5);
      for (int i = 0; i < podCount; i++) {
        long cpu = 100 + 100L * random.nextInt(15);
        if (cpu > free) {
          break;
        }
        free -= cpu;
        node.pods(pod(cpu + "m"));
      }
      if (random.nextInt(4) == 0) {
        node.notConsolidatable();
      }
      if (random.nextInt(5) == 0) {
        node.drifted(random.nextBoolean() ? "NodePoolDrifted" : "RequirementsDrifted", NOW.minus(Duration.ofMinutes(random.nextInt(600))));
      }
      if (random.nextInt(8) == 0) {
        node.lastPodEvent(NOW.minus(Duration.ofMinutes(random.nextInt(90))));
      }
      switch (random.nextInt(16)) {
        case 0 -> node.markedForDeletion();
        case 1 -> node.uninitialized();
        case 2 -> node.nominated();
        case 3 -> node.deleting();
        case 4 -> node.notReady();
        case 5 -> node.instanceTerminating();
        default -> {}
      }
    }
    if (random.nextInt(3) == 0) {
      f.pending.add(pod((100 + random.nextInt(3000)) + "m").build());
    }
    return f;
  }
}
