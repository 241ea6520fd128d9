package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * {@link CostRepacker#lowerBound}, by which the scheduler skips repacking NodeClaims that no packing
 * could make cheaper, is a true bound on seeded random pods and types: no packing the repacker finds
 * costs less, and for a single pod it is exactly the price of the cheapest type holding it (so a
 * lone pod's NodeClaim, always on that type, is never repacked).
 */
class CostRepackerBoundTest {
  private static final int DIMENSIONS = 3;

  @Test
  @DisplayName("no packing costs less than the lower bound")
  void packingsCostAtLeastTheBound() {
    Random random = new Random(20261124);
    int packed = 0;
    for (int run = 0; run < 300; run++) {
      long[][] capacity = types(random);
      double[] price = prices(random, capacity);
      List<long[]> pods = pods(random, 1 + random.nextInt(random.nextBoolean() ? 12 : 200));
      CostRepacker.Packing packing = CostRepacker.pack(pods, capacity, price);
      double bound = CostRepacker.lowerBound(pods, capacity, price);
      if (packing == null) {
        continue;
      }
      packed++;
      assertThat(bound).as("run %d", run).isLessThanOrEqualTo(packing.price());
    }
    assertThat(packed).isGreaterThan(200);
  }

  @Test
  @DisplayName("for one pod the bound is the price of the cheapest type holding it")
  void onePodBoundIsTheCheapestTypeHoldingIt() {
    Random random = new Random(20261125);
    int held = 0;
    for (int run = 0; run < 300; run++) {
      long[][] capacity = types(random);
      double[] price = prices(random, capacity);
      long[] pod = pods(random, 1).getFirst();
      double cheapest = Double.POSITIVE_INFINITY;
      for (int t = 0; t < capacity.length; t++) {
        boolean fits = true;
        for (int d = 0; d < DIMENSIONS; d++) {
          fits &= capacity[t][d] >= pod[d];
        }
        if (fits) {
          cheapest = Math.min(cheapest, price[t]);
        }
      }
      assertThat(CostRepacker.lowerBound(List.of(pod), capacity, price)).as("run %d", run).isEqualTo(cheapest);
      CostRepacker.Packing packing = CostRepacker.pack(List.of(pod), capacity, price);
      // no packing when no priced type holds the pod, which is when the bound is infinite
      assertThat(packing == null ? Double.POSITIVE_INFINITY : packing.price()).as("run %d", run).isEqualTo(cheapest);
      if (Double.isFinite(cheapest)) {
        held++;
      }
    }
    assertThat(held).as("runs where some type holds the pod").isGreaterThan(100);
  }

  private static long[][] types(Random random) {
    int typeCount = 1 + random.nextInt(30);
    long[][] capacity = new long[typeCount][DIMENSIONS];
    for (int t = 0; t < typeCount; t++) {
      long cpu = (1 + random.nextInt(64)) * 1000L - random.nextInt(300);
      capacity[t][0] = cpu;
      capacity[t][1] = cpu * (1 + random.nextInt(8)) * 1_000_000L - random.nextInt(1_000_000);
      capacity[t][2] = (8 + random.nextInt(240)) * 1000L;
      if (random.nextInt(15) == 0) {
        capacity[t][1] = -1; // DaemonSets leave no room
      }
    }
    return capacity;
  }

  private static double[] prices(Random random, long[][] capacity) {
    double[] price = new double[capacity.length];
    for (int t = 0; t < capacity.length; t++) {
      price[t] = random.nextInt(10) == 0 ? Double.POSITIVE_INFINITY : 0.01 + random.nextDouble() * capacity[t][0] / 1000.0 * 0.05;
    }
    return price;
  }

  private static List<long[]> pods(Random random, int count) {
    int shapes = 1 + random.nextInt(8);
    long[][] shape = new long[shapes][];
    for (int s = 0; s < shapes; s++) {
      long cpu = 50 + random.nextInt(8000);
      shape[s] = new long[] {cpu, cpu * (1 + random.nextInt(16)) * 250_000L, 1000};
    }
    List<long[]> pods = new ArrayList<>();
    for (int p = 0; p < count; p++) {
      pods.add(shape[random.nextInt(shapes)].clone());
    }
    return pods;
  }
}
