package sh.karpenter.core.sweep;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.opentest4j.AssertionFailedError;

/**
 * Seeded sweeps: a property test is a {@code @ParameterizedTest(name = "seed {0}")} over {@link
 * #sweep(int)} whose body is {@link #check}: it draws the input from {@code new Random(seed)} (with
 * the generators here) and checks the property of it, so a failure names the seed (in the test's
 * display name and the message) and the input. A failing case reproduces by calling the test method
 * with that seed.
 *
 * <p>The generators mix uniform draws with the cases a sweep must not leave to chance: the bounds of
 * a range, its values next to the bounds, zero and ±1 and ±2, {@link Long#MIN_VALUE} and {@link
 * Long#MAX_VALUE}, empty and single-element collections, and small magnitudes (a uniform 64-bit draw
 * is almost always huge).
 */
public final class Seeds {
  /** The seeds of every sweep are drawn from this, so that runs are repeatable. */
  private static final long BASE = 20261123L;

  /** One draw in this many is an edge case. */
  private static final int EDGE_ONE_IN = 8;

  private Seeds() {}

  /** {@code cases} well-spread 64-bit seeds, the same on every run. */
  public static LongStream sweep(int cases) {
    return new SplittableRandom(BASE).longs(cases);
  }

  /**
   * Draws the input from {@code new Random(seed)} and checks {@code property} of it; an assertion
   * failure or exception in either fails with the seed and the input (as far as it was drawn) in the
   * message, keeping expected/actual of an {@link AssertionFailedError}.
   */
  public static <T> void check(long seed, Function<Random, T> draw, Consumer<T> property) {
    Object shown = "(not drawn)";
    try {
      T input = draw.apply(new Random(seed));
      shown = input;
      property.accept(input);
    } catch (AssertionFailedError e) {
      throw new AssertionFailedError(context(seed, shown, e), e.getExpected(), e.getActual(), e);
    } catch (AssertionError | RuntimeException e) {
      throw new AssertionError(context(seed, shown, e), e);
    }
  }

  private static String context(long seed, Object input, Throwable e) {
    return "seed " + seed + "L, input " + input + ": " + e;
  }

  /** A long in {@code [min, max]}: an edge case, a small magnitude, or uniform. */
  public static long between(Random random, long min, long max) {
    if (min > max) {
      throw new IllegalArgumentException("min " + min + " > max " + max);
    }
    int pick = random.nextInt(EDGE_ONE_IN);
    if (pick == 0) {
      List<Long> edges = new ArrayList<>();
      for (long edge : new long[] {min, min + 1, -2, -1, 0, 1, 2, max - 1, max}) {
        if (edge >= min && edge <= max) {
          edges.add(edge);
        }
      }
      return edges.get(random.nextInt(edges.size()));
    }
    if (pick <= 3) {
      int limit = Math.max(bitLength(min), bitLength(max));
      int bits = random.nextInt(limit + 1);
      long magnitude = bits == 0 ? 0 : random.nextLong() >>> (64 - bits);
      long value = min < 0 && random.nextBoolean() ? -magnitude : magnitude;
      if (value >= min && value <= max) {
        return value;
      }
    }
    if (max < Long.MAX_VALUE) {
      return random.nextLong(min, max + 1);
    }
    if (min > Long.MIN_VALUE) {
      return random.nextLong(min - 1, max) + 1;
    }
    return random.nextLong();
  }

  /** An int in {@code [min, max]}, as {@link #between(Random, long, long)}. */
  public static int between(Random random, int min, int max) {
    return (int) between(random, (long) min, (long) max);
  }

  /** Any long, as {@link #between(Random, long, long)}: edge cases include the extremes. */
  public static long anyLong(Random random) {
    return between(random, Long.MIN_VALUE, Long.MAX_VALUE);
  }

  /** A collection size in {@code [min, max]}: min, min + 1 or max one draw in eight, else uniform. */
  public static int size(Random random, int min, int max) {
    if (random.nextInt(EDGE_ONE_IN) == 0) {
      int[] edges = {min, Math.min(min + 1, max), max};
      return edges[random.nextInt(edges.length)];
    }
    return random.nextInt(min, max + 1);
  }

  /** One of {@code values}, uniformly. */
  public static <T> T oneOf(Random random, List<T> values) {
    return values.get(random.nextInt(values.size()));
  }

  /** One of {@code values}, uniformly. */
  @SafeVarargs
  public static <T> T oneOf(Random random, T... values) {
    return values[random.nextInt(values.length)];
  }

  /** A list of {@link #size} {@code [min, max]} elements drawn by {@code element}. */
  public static <T> List<T> listOf(Random random, int min, int max, Function<Random, T> element) {
    int size = size(random, min, max);
    List<T> list = new ArrayList<>(size);
    for (int i = 0; i < size; i++) {
      list.add(element.apply(random));
    }
    return list;
  }

  /** Bits needed for the magnitude of {@code v} (63 at most). */
  private static int bitLength(long v) {
    return 64 - Long.numberOfLeadingZeros(v < 0 ? ~v : v);
  }
}
