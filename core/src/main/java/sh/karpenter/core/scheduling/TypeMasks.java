package sh.karpenter.core.scheduling;

import java.util.Arrays;

/**
 * Type masks: fixed-width bit sets ({@code long[]}) over a template's instance types, bit {@code t}
 * standing for {@code TemplateIndex.types[t]}, and allocation-light operations on them. The scheduler
 * keeps each NodeClaim's remaining instance-type options as a mask, and caches the types matching a
 * requirement or fitting a request as masks.
 */
final class TypeMasks {
  private TypeMasks() {}

  static int words(int bits) {
    return (bits + 63) >>> 6;
  }

  static long[] all(int bits) {
    long[] set = new long[words(bits)];
    for (int i = 0; i < bits; i++) {
      set[i >>> 6] |= 1L << i;
    }
    return set;
  }

  static void set(long[] set, int bit) {
    set[bit >>> 6] |= 1L << bit;
  }

  static boolean get(long[] set, int bit) {
    return (set[bit >>> 6] & (1L << bit)) != 0;
  }

  static boolean isEmpty(long[] set) {
    for (long word : set) {
      if (word != 0) {
        return false;
      }
    }
    return true;
  }

  static int cardinality(long[] set) {
    int count = 0;
    for (long word : set) {
      count += Long.bitCount(word);
    }
    return count;
  }

  /** The next set bit at or after {@code from}, or -1. */
  static int next(long[] set, int from) {
    int word = from >>> 6;
    if (word >= set.length) {
      return -1;
    }
    long bits = set[word] & (-1L << from);
    while (true) {
      if (bits != 0) {
        return (word << 6) + Long.numberOfTrailingZeros(bits);
      }
      if (++word == set.length) {
        return -1;
      }
      bits = set[word];
    }
  }

  static long[] copy(long[] set) {
    return Arrays.copyOf(set, set.length);
  }

  /** {@code into &= other}; returns whether any bit is left. */
  static boolean andInto(long[] into, long[] other) {
    long any = 0;
    for (int i = 0; i < into.length; i++) {
      into[i] &= other[i];
      any |= into[i];
    }
    return any != 0;
  }

  /** {@code into |= other}. */
  static void orInto(long[] into, long[] other) {
    for (int i = 0; i < into.length; i++) {
      into[i] |= other[i];
    }
  }

  static boolean intersects(long[] a, long[] b) {
    for (int i = 0; i < a.length; i++) {
      if ((a[i] & b[i]) != 0) {
        return true;
      }
    }
    return false;
  }
}
