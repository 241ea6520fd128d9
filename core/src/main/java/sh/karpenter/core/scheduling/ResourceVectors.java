package sh.karpenter.core.scheduling;

import sh.karpenter.core.resources.Resources;

/**
 * Resource vectors: requests, capacity and overhead as {@code long[]} of milli-units indexed by
 * {@code ResourceNames} (see {@link SchedulingPod#vector}), and the few operations the scheduler needs
 * on them.
 */
final class ResourceVectors {
  private ResourceVectors() {}

  /** {@code into += values}, dimension by dimension. */
  static void add(long[] into, long[] values) {
    for (int d = 0; d < into.length; d++) {
      into[d] += values[d];
    }
  }

  /** Lexicographic order over the dimensions: the first dimension that differs decides. */
  static boolean lessThan(long[] a, long[] b) {
    for (int d = 0; d < a.length; d++) {
      if (a[d] != b[d]) {
        return a[d] < b[d];
      }
    }
    return false;
  }

  static boolean isZero(long[] vector) {
    for (long x : vector) {
      if (x != 0) {
        return false;
      }
    }
    return true;
  }

  /** Whether no dimension is negative. */
  static boolean isNonNegative(long[] vector) {
    for (long x : vector) {
      if (x < 0) {
        return false;
      }
    }
    return true;
  }

  static Resources toResources(long[] vector) {
    Resources.Builder builder = Resources.builder();
    for (int d = 0; d < vector.length; d++) {
      if (vector[d] != 0) {
        builder.milli(d, vector[d]);
      }
    }
    return builder.build();
  }

  /** {@code {cpu: 1, memory: 2Gi}}: the non-zero dimensions as quantities. */
  static String describe(long[] vector) {
    return toResources(vector).toQuantities().toString().replace("=", ": ");
  }
}
