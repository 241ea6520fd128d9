package sh.karpenter.core.resources;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An immutable resource vector: milli-values indexed by {@link ResourceNames#index}. An absent
 * dimension is 0. Used for pod requests, node capacity and allocatable, DaemonSet overhead and
 * NodePool limits; the comparison operations do not allocate.
 */
public final class Resources {
  private static final long[] NONE = new long[0];

  /** The zero vector. */
  public static final Resources EMPTY = new Resources(NONE);

  /** Milli-values; trailing zero dimensions are trimmed so that equal vectors have equal arrays. */
  private final long[] milli;

  private Resources(long[] milli) {
    this.milli = milli;
  }

  private static Resources wrap(long[] values) {
    int length = values.length;
    while (length > 0 && values[length - 1] == 0) {
      length--;
    }
    if (length == 0) {
      return EMPTY;
    }
    return new Resources(length == values.length ? values : Arrays.copyOf(values, length));
  }

  /**
   * Parses Kubernetes quantities by resource name ({@code {"cpu": "500m", "memory": "1Gi"}}).
   *
   * @throws IllegalArgumentException naming the resource whose quantity is invalid
   */
  public static Resources of(Map<String, String> quantities) {
    Builder builder = builder();
    quantities.forEach(builder::quantity);
    return builder.build();
  }

  /** A vector from milli-values by resource name. */
  public static Resources ofMilli(Map<String, Long> milli) {
    Builder builder = builder();
    milli.forEach(builder::milli);
    return builder.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** The milli-value of a named dimension (0 when absent). */
  public long milli(String name) {
    int index = ResourceNames.indexIfPresent(name);
    return index < 0 ? 0 : milli(index);
  }

  /** The milli-value of the dimension at {@code index} (0 when absent). */
  public long milli(int index) {
    return index < milli.length ? milli[index] : 0;
  }

  public long cpuMilli() {
    return milli(ResourceNames.CPU_INDEX);
  }

  public long memoryMilli() {
    return milli(ResourceNames.MEMORY_INDEX);
  }

  public long podsMilli() {
    return milli(ResourceNames.PODS_INDEX);
  }

  /** One past the highest dimension index that may be non-zero. */
  public int dimensions() {
    return milli.length;
  }

  public Resources plus(Resources o) {
    if (o.milli.length == 0) {
      return this;
    }
    if (milli.length == 0) {
      return o;
    }
    long[] sum = Arrays.copyOf(milli, Math.max(milli.length, o.milli.length));
    for (int i = 0; i < o.milli.length; i++) {
      sum[i] = saturatedAdd(sum[i], o.milli[i]);
    }
    return wrap(sum);
  }

  public Resources minus(Resources o) {
    if (o.milli.length == 0) {
      return this;
    }
    long[] difference = Arrays.copyOf(milli, Math.max(milli.length, o.milli.length));
    for (int i = 0; i < o.milli.length; i++) {
      difference[i] = saturatedSubtract(difference[i], o.milli[i]);
    }
    return wrap(difference);
  }

  /** Each dimension multiplied by {@code factor}. */
  public Resources times(long factor) {
    long[] product = new long[milli.length];
    for (int i = 0; i < milli.length; i++) {
      long p = milli[i] * factor;
      boolean overflow =
          factor != 0 && (p / factor != milli[i] || (milli[i] == Long.MIN_VALUE && factor == -1));
      product[i] = overflow ? ((milli[i] < 0) == (factor < 0) ? Long.MAX_VALUE : Long.MIN_VALUE) : p;
    }
    return wrap(product);
  }

  /** Dimension-wise maximum. */
  public Resources max(Resources o) {
    long[] result = Arrays.copyOf(milli, Math.max(milli.length, o.milli.length));
    for (int i = 0; i < o.milli.length; i++) {
      result[i] = Math.max(result[i], o.milli[i]);
    }
    // a dimension absent from o counts as 0
    for (int i = o.milli.length; i < milli.length; i++) {
      result[i] = Math.max(result[i], 0);
    }
    return wrap(result);
  }

  /** Negative dimensions set to 0. */
  public Resources floorZero() {
    boolean negative = false;
    for (long v : milli) {
      negative |= v < 0;
    }
    if (!negative) {
      return this;
    }
    long[] result = milli.clone();
    for (int i = 0; i < result.length; i++) {
      result[i] = Math.max(result[i], 0);
    }
    return wrap(result);
  }

  /** True when every dimension requested here (&gt; 0) is &lt;= {@code available}'s value. */
  public boolean fits(Resources available) {
    long[] a = available.milli;
    for (int i = 0; i < milli.length; i++) {
      long v = milli[i];
      if (v > 0 && v > (i < a.length ? a[i] : 0)) {
        return false;
      }
    }
    return true;
  }

  /**
   * True when {@code this + extra} fits {@code available}, as {@link #fits} would say of the sum,
   * without allocating it.
   */
  public boolean fitsWith(Resources extra, Resources available) {
    long[] a = available.milli;
    long[] e = extra.milli;
    int length = Math.max(milli.length, e.length);
    for (int i = 0; i < length; i++) {
      long v = (i < milli.length ? milli[i] : 0) + (i < e.length ? e[i] : 0);
      if (v > 0 && v > (i < a.length ? a[i] : 0)) {
        return false;
      }
    }
    return true;
  }

  /** Names of the dimensions that do not {@link #fits fit}, in index order, for messages. */
  public List<String> exceeding(Resources available) {
    List<String> names = null;
    for (int i = 0; i < milli.length; i++) {
      long v = milli[i];
      if (v > 0 && v > available.milli(i)) {
        if (names == null) {
          names = new ArrayList<>(2);
        }
        names.add(ResourceNames.name(i));
      }
    }
    return names == null ? List.of() : Collections.unmodifiableList(names);
  }

  /** True when every dimension is 0. */
  public boolean isZero() {
    return milli.length == 0;
  }

  /** Non-zero dimensions as canonical quantities ({@link Quantity#format}), sorted by name. */
  public Map<String, String> toQuantities() {
    TreeMap<String, String> quantities = new TreeMap<>();
    for (int i = 0; i < milli.length; i++) {
      if (milli[i] != 0) {
        String name = ResourceNames.name(i);
        quantities.put(name, Quantity.format(name, milli[i]));
      }
    }
    return Collections.unmodifiableMap(quantities);
  }

  /** Non-zero dimensions as milli-values, sorted by name. */
  public Map<String, Long> toMilli() {
    TreeMap<String, Long> values = new TreeMap<>();
    for (int i = 0; i < milli.length; i++) {
      if (milli[i] != 0) {
        values.put(ResourceNames.name(i), milli[i]);
      }
    }
    return Collections.unmodifiableMap(values);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Resources r && Arrays.equals(milli, r.milli);
  }

  @Override
  public int hashCode() {
    return Arrays.hashCode(milli);
  }

  /** {@code {cpu=2, memory=4Gi}}. */
  @Override
  public String toString() {
    return toQuantities().toString();
  }

  /** Accumulates a vector; later values for the same dimension replace earlier ones. */
  public static final class Builder {
    private long[] milli = new long[Math.max(4, ResourceNames.count())];

    private Builder() {}

    public Builder milli(String name, long value) {
      return milli(ResourceNames.index(name), value);
    }

    public Builder milli(int index, long value) {
      if (index >= milli.length) {
        milli = Arrays.copyOf(milli, Math.max(index + 1, ResourceNames.count()));
      }
      milli[index] = value;
      return this;
    }

    /**
     * Sets a dimension from a Kubernetes quantity.
     *
     * @throws IllegalArgumentException naming the resource when the quantity is invalid
     */
    public Builder quantity(String name, String quantity) {
      long value;
      try {
        value = Quantity.parseMilli(quantity);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException("resource " + name + ": " + e.getMessage(), e);
      }
      return milli(name, value);
    }

    public Builder cpu(String quantity) {
      return quantity(ResourceNames.CPU, quantity);
    }

    public Builder memory(String quantity) {
      return quantity(ResourceNames.MEMORY, quantity);
    }

    public Builder pods(long count) {
      return milli(ResourceNames.PODS_INDEX, count * 1000);
    }

    public Builder ephemeralStorage(String quantity) {
      return quantity(ResourceNames.EPHEMERAL_STORAGE, quantity);
    }

    public Resources build() {
      return wrap(milli.clone());
    }
  }

  /** a + b, saturating at the long range: an unbounded quantity stays unbounded. */
  static long saturatedAdd(long a, long b) {
    long r = a + b;
    if (((a ^ r) & (b ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }

  /** a - b, saturating at the long range. */
  static long saturatedSubtract(long a, long b) {
    long r = a - b;
    if (((a ^ b) & (a ^ r)) < 0) {
      return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
    return r;
  }
}
