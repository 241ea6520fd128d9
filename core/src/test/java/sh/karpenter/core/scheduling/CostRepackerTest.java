package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;

/**
 * Seeded sweeps of the cost repacking: {@link CostRepacker} alone on random pods and types (every
 * pod on exactly one node, no node over its type's capacity, only priced types), and the whole
 * {@link Scheduler} on the cost mixes with a DaemonSet and a NodePool cpu limit (every pod placed
 * once or reported, allocatable net of DaemonSets never exceeded on any instance-type option, the
 * NodePool's cpu limit respected as the scheduler charges it: each claim at its largest option).
 */
class CostRepackerTest {
  private static final int DIMENSIONS = 3;

  @Test
  void packingsPlaceEveryPodOnceWithinCapacityOnPricedTypes() {
    Random random = new Random(20261123);
    int packed = 0;
    for (int run = 0; run < 300; run++) {
      int typeCount = 1 + random.nextInt(30);
      long[][] capacity = new long[typeCount][DIMENSIONS];
      double[] price = new double[typeCount];
      for (int t = 0; t < typeCount; t++) {
        long cpu = (1 + random.nextInt(64)) * 1000L - random.nextInt(300);
        capacity[t][0] = cpu;
        capacity[t][1] = cpu * (1 + random.nextInt(8)) * 1_000_000L - random.nextInt(1_000_000);
        capacity[t][2] = (8 + random.nextInt(240)) * 1000L;
        price[t] = random.nextInt(10) == 0 ? Double.POSITIVE_INFINITY : 0.01 + random.nextDouble() * cpu / 1000.0 * 0.05;
        if (random.nextInt(15) == 0) {
          capacity[t][1] = -1; // DaemonSets leave no room
        }
      }
      int shapes = 1 + random.nextInt(8);
      long[][] shape = new long[shapes][];
      for (int s = 0; s < shapes; s++) {
        long cpu = 50 + random.nextInt(8000);
        shape[s] = new long[] {cpu, cpu * (1 + random.nextInt(16)) * 250_000L, 1000};
      }
      List<long[]> pods = new ArrayList<>();
      int podCount = 1 + random.nextInt(random.nextBoolean() ? 30 : 400);
      for (int p = 0; p < podCount; p++) {
        pods.add(shape[random.nextInt(shapes)].clone());
      }
      CostRepacker.Packing packing = CostRepacker.pack(pods, capacity, price);
      if (packing == null) {
        assertThat(someShapeFitsNoPricedType(pods, capacity, price)).as("run %d packs nothing though every pod fits", run).isTrue();
        continue;
      }
      packed++;
      assertPlacesEveryPodOnceWithinCapacity(run, pods, capacity, price, packing);
    }
    assertThat(packed).isGreaterThan(200);
  }

  private static boolean someShapeFitsNoPricedType(List<long[]> pods, long[][] capacity, double[] price) {
    for (long[] pod : pods) {
      boolean fits = false;
      for (int t = 0; t < capacity.length && !fits; t++) {
        fits = Double.isFinite(price[t]) && covers(capacity[t], pod);
      }
      if (!fits) {
        return true;
      }
    }
    return false;
  }

  private static void assertPlacesEveryPodOnceWithinCapacity(
      int run, List<long[]> pods, long[][] capacity, double[] price, CostRepacker.Packing packing) {
    int[] taken = new int[packing.classMembers().size()];
    Set<Integer> placed = new HashSet<>();
    double total = 0;
    for (CostRepacker.Node node : packing.nodes()) {
      assertThat(Double.isFinite(price[node.type()])).as("run %d uses an unpriced type", run).isTrue();
      total += price[node.type()];
      long[] load = new long[DIMENSIONS];
      int podsOnNode = 0;
      for (int c = 0; c < taken.length; c++) {
        int[] members = packing.classMembers().get(c);
        for (int n = 0; n < node.podsPerClass()[c]; n++) {
          assertThat(taken[c]).as("run %d places more pods of class %d than it has", run, c).isLessThan(members.length);
          int pod = members[taken[c]++];
          assertThat(placed.add(pod)).as("run %d places pod %d twice", run, pod).isTrue();
          for (int d = 0; d < DIMENSIONS; d++) {
            load[d] += pods.get(pod)[d];
          }
          podsOnNode++;
        }
      }
      assertThat(podsOnNode).as("run %d launches an empty node", run).isPositive();
      assertThat(covers(capacity[node.type()], load)).as("run %d overfills a node of type %d", run, node.type()).isTrue();
    }
    assertThat(placed).as("run %d leaves pods out", run).hasSize(pods.size());
    assertThat(packing.price()).isCloseTo(total, org.assertj.core.data.Offset.offset(1e-9));
  }

  private static boolean covers(long[] capacity, long[] load) {
    for (int d = 0; d < load.length; d++) {
      if (load[d] > capacity[d]) {
        return false;
      }
    }
    return true;
  }

  @Test
  void repackedPlansKeepEveryPlacementInvariant() {
    Random random = new Random(42);
    Pod daemon = Pod.builder().name("ds").uid("ds").owner("DaemonSet", "ds").container(Resources.builder().cpu("150m").memory("200Mi").build()).build();
    for (int run = 0; run < 24; run++) {
      CostGapTest.Mix mix = CostGapTest.Mix.values()[run % CostGapTest.Mix.values().length];
      boolean spot = random.nextBoolean();
      boolean limited = random.nextBoolean();
      boolean withDaemonSet = random.nextBoolean();
      List<Pod> pods = mix.pods(10 + random.nextInt(600), random.nextLong());
      NodeClaimTemplate pool = CostGapTest.defaultNodePool(spot);
      long cpuLimitMilli = 40_000L + random.nextInt(400) * 1000L;
      if (limited) {
        pool =
            new NodeClaimTemplate(
                pool.nodePoolName(), pool.weight(), pool.labels(), pool.annotations(), pool.taints(), pool.startupTaints(),
                pool.requirements(), Resources.builder().milli("cpu", cpuLimitMilli).build(), Resources.EMPTY, pool.instanceTypes());
      }
      List<Pod> daemonSets = withDaemonSet ? List.of(daemon) : List.of();
      SchedulingResult result =
          new Scheduler(new SchedulingInput(List.of(pool), List.of(), pods, daemonSets, null, SchedulerOptions.DEFAULT)).solve();

      Map<Pod, Integer> seen = new IdentityHashMap<>();
      long chargedCpu = 0;
      for (PlannedNodeClaim claim : result.newNodeClaims()) {
        assertThat(claim.pods()).as("run %d: empty claim", run).isNotEmpty();
        Resources load = Resources.EMPTY;
        for (Pod pod : claim.pods()) {
          seen.merge(pod, 1, Integer::sum);
          load = load.plus(pod.requests());
        }
        if (withDaemonSet) {
          load = load.plus(daemon.requests());
        }
        assertThat(claim.instanceTypeOptions()).as("run %d: claim without options", run).isNotEmpty();
        long largestCpu = 0;
        for (var type : claim.instanceTypeOptions()) {
          assertThat(load.fits(type.allocatable()))
              .as("run %d: %s holds %s, over %s's allocatable", run, claim, load, type.name())
              .isTrue();
          largestCpu = Math.max(largestCpu, type.capacity().cpuMilli());
        }
        chargedCpu += largestCpu;
        assertThat(claim.price()).isFinite().isPositive();
      }
      for (PodError error : result.unschedulable()) {
        seen.merge(error.pod(), 1, Integer::sum);
      }
      assertThat(seen.keySet()).as("run %d: pods placed or reported", run).hasSize(pods.size());
      assertThat(new HashMap<>(seen).values()).as("run %d: every pod exactly once", run).allMatch(count -> count == 1);
      if (limited) {
        assertThat(chargedCpu).as("run %d: NodePool cpu limit", run).isLessThanOrEqualTo(cpuLimitMilli);
      } else {
        assertThat(result.unschedulable()).as("run %d: unschedulable without limits", run).isEmpty();
      }
    }
  }
}
