package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Comparator;
import java.util.Random;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.sweep.Seeds;

/** {@link IndexSort} orders exactly as a stable boxed sort with {@code Comparator.comparingDouble} does. */
class IndexSortTest {
  static LongStream seeds() {
    return Seeds.sweep(200);
  }

  /** Keys with many ties, zeros of both signs, infinities and NaN, on lengths around the run size. */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void matchesTheBoxedStableSort(long seed) {
    Seeds.check(seed, random -> keys(random), key -> {
      Integer[] boxed = IntStream.range(0, key.length).boxed().toArray(Integer[]::new);
      Arrays.sort(boxed, Comparator.comparingDouble(i -> key[i]));
      assertThat(IndexSort.ascending(key)).containsExactly(Arrays.stream(boxed).mapToInt(Integer::intValue).toArray());
    });
  }

  /**
   * Sorting by insertion from any start order (the identity, a shuffle, the order of other keys, the
   * answer itself) gives what {@link IndexSort#ascending} gives, and leaves the start as it was.
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void fromAnyStartMatchesTheMergeSort(long seed) {
    Seeds.check(seed, random -> keys(random), key -> {
      Random random = new Random(seed);
      int[] expected = IndexSort.ascending(key);
      int[] shuffled = IntStream.range(0, key.length).toArray();
      for (int i = shuffled.length - 1; i > 0; i--) {
        int j = random.nextInt(i + 1);
        int swap = shuffled[i];
        shuffled[i] = shuffled[j];
        shuffled[j] = swap;
      }
      double[] other = key.clone();
      for (int i = 0; i < other.length; i++) {
        other[i] += random.nextInt(3) - 1;
      }
      for (int[] start : new int[][] {IntStream.range(0, key.length).toArray(), shuffled, IndexSort.ascending(other), expected}) {
        int[] before = start.clone();
        assertThat(IndexSort.ascendingFrom(start, key)).containsExactly(expected);
        assertThat(start).containsExactly(before);
      }
    });
  }

  private static double[] keys(Random random) {
    double[] special = {0.0, -0.0, Double.NEGATIVE_INFINITY, Double.POSITIVE_INFINITY, Double.NaN, 1.5, -2};
    double[] key = new double[Seeds.between(random, 0, 140)];
    for (int i = 0; i < key.length; i++) {
      key[i] = random.nextInt(4) == 0 ? special[random.nextInt(special.length)] : random.nextInt(8) - 3 + (random.nextBoolean() ? 0 : random.nextDouble());
    }
    return key;
  }
}
