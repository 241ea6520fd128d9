package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Types that lack a resource some pods request (no GPU, no extended resource): the packer must not
 * divide by their zero capacity when it sets up its LPs (that once failed every solve of a controller
 * with "Infinite or NaN"), and must put the pods that need the resource only on types that have it.
 */
class CostRepackerZeroCapacityTest {
  /** cpu (milli), memory (MiB), gpus. */
  private static final long[][] CAPACITY = {{2_000, 8_000, 0}, {4_000, 16_000, 0}, {8_000, 32_000, 1}, {16_000, 64_000, 4}};
  private static final double[] PRICE = {0.1, 0.19, 0.9, 3.0};

  @Test
  void podsNeedingAResourceSomeTypesLackArePackedOnTypesThatHaveIt() {
    Random random = new Random(11);
    long[][] shapes = {{250, 1_000, 0}, {500, 500, 0}, {1_500, 2_000, 0}, {300, 3_000, 0}, {1_000, 4_000, 1}, {700, 700, 0}};
    List<long[]> pods = new ArrayList<>();
    for (int p = 0; p < 60; p++) {
      pods.add(shapes[random.nextInt(shapes.length)].clone());
    }

    CostRepacker.Packing packing = CostRepacker.pack(pods, CAPACITY, PRICE);

    assertThat(Double.isFinite(packing.price())).isTrue();
    long gpuPods = pods.stream().filter(r -> r[2] > 0).count();
    long gpus = packing.nodes().stream().mapToLong(n -> CAPACITY[n.type()][2]).sum();
    assertThat(gpus).isGreaterThanOrEqualTo(gpuPods);
  }
}
