package sh.karpenter.core.scheduling;

/**
 * Sorts indices by a {@code double} key without boxing: the cost post-pass orders its pod classes
 * thousands of times per solve, and {@code Arrays.sort(Integer[], comparator)} spent most of that
 * time in boxed comparisons. Stable, and keys compare as {@link Double#compare} does, so the result is
 * exactly that of sorting {@code 0..n-1} with {@code Comparator.comparingDouble(i -> key[i])}.
 */
final class IndexSort {
  /** Runs shorter than this are sorted by insertion before merging. */
  private static final int RUN = 16;

  private IndexSort() {}

  /** The indices {@code 0..key.length-1}, smallest key first, equal keys in index order. */
  static int[] ascending(double[] key) {
    int n = key.length;
    int[] order = new int[n];
    for (int i = 0; i < n; i++) {
      order[i] = i;
    }
    for (int start = 0; start < n; start += RUN) {
      int end = Math.min(start + RUN, n);
      for (int i = start + 1; i < end; i++) {
        int index = order[i];
        double value = key[index];
        int j = i - 1;
        while (j >= start && Double.compare(key[order[j]], value) > 0) {
          order[j + 1] = order[j];
          j--;
        }
        order[j + 1] = index;
      }
    }
    int[] from = order;
    int[] to = new int[n];
    for (int width = RUN; width < n; width *= 2) {
      for (int left = 0; left < n; left += 2 * width) {
        int middle = Math.min(left + width, n);
        int right = Math.min(left + 2 * width, n);
        int i = left;
        int j = middle;
        int k = left;
        while (i < middle && j < right) {
          // ties take the left run first: stable
          to[k++] = Double.compare(key[from[j]], key[from[i]]) < 0 ? from[j++] : from[i++];
        }
        while (i < middle) {
          to[k++] = from[i++];
        }
        while (j < right) {
          to[k++] = from[j++];
        }
      }
      int[] swap = from;
      from = to;
      to = swap;
    }
    return from;
  }

  /**
   * What {@link #ascending} returns, sorted by insertion starting from {@code start} (a permutation
   * of the indices, left as it is): quick when {@code start} is nearly in order, quadratic at worst,
   * so for short keys only.
   */
  static int[] ascendingFrom(int[] start, double[] key) {
    int[] order = start.clone();
    for (int i = 1; i < order.length; i++) {
      int index = order[i];
      double value = key[index];
      int j = i - 1;
      while (j >= 0 && after(order[j], key[order[j]], index, value)) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = index;
    }
    return order;
  }

  /** Whether index a (of key ka) comes after index b (of key kb): larger key, or equal key and larger index. */
  private static boolean after(int a, double ka, int b, double kb) {
    int compared = Double.compare(ka, kb);
    return compared > 0 || (compared == 0 && a > b);
  }
}
