package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * The cost post-pass's step budget: steps are counted, not timed, so the same input packs the same
 * way on every run; past the budget the packer stops improving and returns the best complete packing
 * it has (the greedy one when the pattern LP was cut short, none when the greedy one was).
 */
class CostRepackerBudgetTest {
  private static final long[][] CAPACITY = {{2_000, 8_000}, {4_000, 16_000}, {8_000, 16_000}, {16_000, 64_000}};
  private static final double[] PRICE = {0.1, 0.19, 0.3, 0.75};

  /** 60 pods of 6 shapes: few enough classes for the pattern LP to run after the greedy packing. */
  private static List<long[]> pods() {
    Random random = new Random(7);
    long[][] shapes = {{250, 1_000}, {500, 500}, {1_500, 2_000}, {300, 3_000}, {700, 700}, {1_000, 4_000}};
    List<long[]> pods = new ArrayList<>();
    for (int p = 0; p < 60; p++) {
      pods.add(shapes[random.nextInt(shapes.length)].clone());
    }
    return pods;
  }

  @Test
  void theDefaultBudgetIsProportionalToTheInputAboveAFloor() {
    assertThat(RepackBudget.forPods(10)).isEqualTo(RepackBudget.MIN_STEPS);
    assertThat(RepackBudget.forPods(1_000_000)).isEqualTo(1_000_000 * RepackBudget.STEPS_PER_POD);
  }

  @Test
  void sameInputSameStepsAndPacking() {
    CostRepacker.Packing first = CostRepacker.pack(pods(), CAPACITY, PRICE);
    CostRepacker.Packing second = CostRepacker.pack(pods(), CAPACITY, PRICE);

    assertThat(first.outOfBudget()).isFalse();
    assertThat(first.steps()).isPositive().isEqualTo(second.steps());
    assertThat(first.price()).isEqualTo(second.price());
    assertThat(first.nodes()).usingRecursiveFieldByFieldElementComparator().isEqualTo(second.nodes());
  }

  @Test
  void aBudgetOfExactlyTheStepsTakenChangesNothing() {
    CostRepacker.Packing full = CostRepacker.pack(pods(), CAPACITY, PRICE);
    CostRepacker.Packing exact = CostRepacker.pack(pods(), CAPACITY, PRICE, full.steps());

    assertThat(exact.outOfBudget()).isFalse();
    assertThat(exact.price()).isEqualTo(full.price());
  }

  @Test
  void runningOutDuringTheGreedyPackingLeavesNoPacking() {
    CostRepacker.Packing cut = CostRepacker.pack(pods(), CAPACITY, PRICE, 10);

    assertThat(cut.outOfBudget()).isTrue();
    assertThat(cut.nodes()).isNull();
    assertThat(cut.price()).isEqualTo(Double.POSITIVE_INFINITY);
  }

  /**
   * Between the greedy packing's steps and the whole run's, the greedy packing is kept: complete,
   * never cheaper than the full run's. With no steps left after it, the pattern LP is not started.
   */
  @Test
  void runningOutDuringThePatternLpKeepsTheGreedyPacking() {
    List<long[]> pods = pods();
    CostRepacker.Packing full = CostRepacker.pack(pods, CAPACITY, PRICE);
    long low = 1;
    long high = full.steps();
    while (low < high) { // the fewest steps that finish some packing
      long mid = (low + high) / 2;
      if (CostRepacker.pack(pods, CAPACITY, PRICE, mid).nodes() == null) {
        low = mid + 1;
      } else {
        high = mid;
      }
    }
    assertThat(low).as("the greedy packing finishes before the pattern LP").isLessThan(full.steps());

    CostRepacker.Packing greedyOnly = CostRepacker.pack(pods, CAPACITY, PRICE, low);

    assertThat(greedyOnly.outOfBudget()).isTrue();
    assertThat(greedyOnly.steps()).as("no step spent on a pattern LP the budget cannot pay for").isEqualTo(low);
    assertThat(greedyOnly.price()).isGreaterThanOrEqualTo(full.price());
    int[] placed = new int[greedyOnly.classMembers().size()];
    for (CostRepacker.Node node : greedyOnly.nodes()) {
      for (int c = 0; c < placed.length; c++) {
        placed[c] += node.podsPerClass()[c];
      }
    }
    for (int c = 0; c < placed.length; c++) {
      assertThat(placed[c]).as("pods of class %d placed", c).isEqualTo(greedyOnly.classMembers().get(c).length);
    }
  }
}
