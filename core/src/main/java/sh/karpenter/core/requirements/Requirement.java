package sh.karpenter.core.requirements;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;
import sh.karpenter.core.wellknown.Labels;

/**
 * The set of values a node label may take, exactly as upstream's {@code scheduling.Requirement}: a
 * value set that is either concrete ({@code In}; empty means {@code DoesNotExist}) or a complement
 * (the values are exclusions; {@code NotIn}, {@code Exists}), optional inclusive integer bounds
 * {@code gte}/{@code lte} (only on complements) and {@code minValues}. Immutable.
 *
 * <p>Bounds are {@code int}s (the contract's {@code Integer}); a comparison no {@code int} satisfies,
 * such as {@code Gt 2147483647}, is DoesNotExist. Label values are compared as {@code long}s.
 *
 * <p>Values are kept as a sorted, duplicate-free array, so membership is a binary search (an equality
 * test for the common single value) and intersections are linear merges.
 */
public final class Requirement {
  private static final String[] NO_VALUES = new String[0];

  private final String key;
  private final boolean complement;
  /** Sorted, distinct. Exclusions when {@link #complement}. */
  private final String[] values;

  private final Integer gte;
  private final Integer lte;
  private final Integer minValues;
  private volatile SortedSet<String> valueSet; // lazily built view of values
  private int hash; // lazily computed; 0 = not yet

  private Requirement(
      String key, boolean complement, String[] values, Integer gte, Integer lte, Integer minValues) {
    this.key = key;
    this.complement = complement;
    this.values = values;
    this.gte = gte;
    this.lte = lte;
    this.minValues = minValues;
  }

  /** A requirement from a node selector term; the key is normalised ({@link Labels#normalize}). */
  public static Requirement of(String key, Operator op, Collection<String> values) {
    return of(key, op, values, null);
  }

  /**
   * A requirement from a node selector term with minValues; the key is normalised ({@link
   * Labels#normalize}). {@code Gt}, {@code Lt}, {@code Gte} and {@code Lte} take exactly one integer.
   *
   * @throws IllegalArgumentException when a comparison operator does not get one integer value
   */
  public static Requirement of(String key, Operator op, Collection<String> values, Integer minValues) {
    String normalized = Labels.normalize(Objects.requireNonNull(key, "key"));
    return switch (op) {
      case In -> new Requirement(normalized, false, sorted(values), null, null, minValues);
      case NotIn -> new Requirement(normalized, true, sorted(values), null, null, minValues);
      case Exists -> new Requirement(normalized, true, NO_VALUES, null, null, minValues);
      case DoesNotExist -> new Requirement(normalized, false, NO_VALUES, null, null, minValues);
      case Gt, Lt, Gte, Lte -> bounded(normalized, op, integerOperand(normalized, op, values), minValues);
    };
  }

  /** {@code key In [values...]}. */
  public static Requirement in(String key, String... values) {
    return of(key, Operator.In, Arrays.asList(values));
  }

  /** {@code key NotIn [values...]}. */
  public static Requirement notIn(String key, String... values) {
    return of(key, Operator.NotIn, Arrays.asList(values));
  }

  /** {@code key Exists}. */
  public static Requirement exists(String key) {
    return new Requirement(Labels.normalize(key), true, NO_VALUES, null, null, null);
  }

  /** {@code key DoesNotExist}. */
  public static Requirement doesNotExist(String key) {
    return new Requirement(Labels.normalize(key), false, NO_VALUES, null, null, null);
  }

  private static Requirement bounded(String key, Operator op, long operand, Integer minValues) {
    long low = Long.MIN_VALUE;
    long high = Long.MAX_VALUE;
    switch (op) {
      case Gt -> low = operand == Long.MAX_VALUE ? high : operand + 1;
      case Gte -> low = operand;
      case Lt -> high = operand == Long.MIN_VALUE ? low : operand - 1;
      default -> high = operand;
    }
    // "Gt MaxInt" (and anything else no int value can satisfy) is DoesNotExist.
    if (low > Integer.MAX_VALUE || high < Integer.MIN_VALUE || low > high) {
      return new Requirement(key, false, NO_VALUES, null, null, minValues);
    }
    Integer gte = low == Long.MIN_VALUE ? null : (int) Math.max(low, Integer.MIN_VALUE);
    Integer lte = high == Long.MAX_VALUE ? null : (int) Math.min(high, Integer.MAX_VALUE);
    return new Requirement(key, true, NO_VALUES, gte, lte, minValues);
  }

  private static long integerOperand(String key, Operator op, Collection<String> values) {
    if (values == null || values.size() != 1) {
      throw new IllegalArgumentException(
          "requirement " + key + " " + op + " needs exactly one integer value, got " + values);
    }
    String value = values.iterator().next();
    try {
      return Long.parseLong(value);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException(
          "requirement " + key + " " + op + " needs an integer value, got \"" + value + "\"", e);
    }
  }

  private static String[] sorted(Collection<String> values) {
    if (values == null || values.isEmpty()) {
      return NO_VALUES;
    }
    if (values.size() == 1) {
      return new String[] {Objects.requireNonNull(values.iterator().next(), "value")};
    }
    String[] array = values.toArray(NO_VALUES);
    Arrays.sort(array);
    int distinct = 1;
    for (int i = 1; i < array.length; i++) {
      if (!array[i].equals(array[distinct - 1])) {
        array[distinct++] = array[i];
      }
    }
    return distinct == array.length ? array : Arrays.copyOf(array, distinct);
  }

  public String key() {
    return key;
  }

  /**
   * The operator this requirement serialises as: NotIn for a complement with exclusions; Gte or Lte
   * for a bounded complement without exclusions (Gte when both bounds are set); Exists for an
   * unbounded complement; In for a non-empty set; DoesNotExist for the empty set.
   */
  public Operator operator() {
    if (complement) {
      if (values.length > 0) {
        return Operator.NotIn;
      }
      if (gte != null) {
        return Operator.Gte;
      }
      return lte != null ? Operator.Lte : Operator.Exists;
    }
    return values.length > 0 ? Operator.In : Operator.DoesNotExist;
  }

  /** The values (In) or the exclusions (complements), sorted. */
  public SortedSet<String> values() {
    SortedSet<String> set = valueSet;
    if (set == null) {
      set = Collections.unmodifiableSortedSet(new TreeSet<>(Arrays.asList(values)));
      valueSet = set;
    }
    return set;
  }

  /** The values (In) or the exclusions (complements) as a sorted list. */
  public List<String> valueList() {
    return Collections.unmodifiableList(Arrays.asList(values));
  }

  public Integer minValues() {
    return minValues;
  }

  /** True when the values are exclusions: NotIn, Exists, Gt/Gte/Lt/Lte. */
  public boolean complement() {
    return complement;
  }

  /** Inclusive lower bound on integer values, or null. */
  public Integer gte() {
    return gte;
  }

  /** Inclusive upper bound on integer values, or null. */
  public Integer lte() {
    return lte;
  }

  /** The same requirement with another minValues. */
  public Requirement withMinValues(Integer newMinValues) {
    return Objects.equals(minValues, newMinValues)
        ? this
        : new Requirement(key, complement, values, gte, lte, newMinValues);
  }

  /**
   * The values both allow, as upstream's {@code Intersection}: a complement only if both are;
   * bounds narrowed (an empty range gives DoesNotExist); values outside the bounds dropped; bounds
   * dropped once the set is concrete; minValues the larger of the two.
   */
  public Requirement intersection(Requirement o) {
    if (o == this) {
      return this;
    }
    Integer newMinValues = maxOf(minValues, o.minValues);
    if (o.isUnboundedExists() && Objects.equals(newMinValues, minValues)) {
      return this;
    }
    if (isUnboundedExists() && Objects.equals(newMinValues, o.minValues)) {
      return o;
    }
    boolean newComplement = complement && o.complement;
    Integer newGte = maxOf(gte, o.gte);
    Integer newLte = minOf(lte, o.lte);
    if (newGte != null && newLte != null && newGte > newLte) {
      return new Requirement(key, false, NO_VALUES, null, null, newMinValues);
    }
    String[] newValues;
    if (complement && o.complement) {
      newValues = union(values, o.values);
    } else if (complement) {
      newValues = difference(o.values, values);
    } else if (o.complement) {
      newValues = difference(values, o.values);
    } else {
      newValues = intersect(values, o.values);
    }
    if (newGte != null || newLte != null) {
      newValues = withinBounds(newValues, newGte, newLte);
    }
    if (!newComplement) {
      newGte = null;
      newLte = null;
    }
    // Narrowing often leaves one side unchanged: reuse it rather than allocate an equal copy.
    if (sameAs(newComplement, newValues, newGte, newLte, newMinValues)) {
      return this;
    }
    if (o.sameAs(newComplement, newValues, newGte, newLte, newMinValues)) {
      return o;
    }
    return new Requirement(key, newComplement, newValues, newGte, newLte, newMinValues);
  }

  private boolean sameAs(boolean c, String[] v, Integer low, Integer high, Integer mv) {
    return complement == c && values == v && Objects.equals(gte, low) && Objects.equals(lte, high) && Objects.equals(minValues, mv);
  }

  /** True when {@code value} is allowed: in the set (or not excluded) and within the bounds. */
  public boolean has(String value) {
    return complement != contains(value) && within(value, gte, lte);
  }

  /**
   * True when the intersection allows some value, or when both sides are NotIn/DoesNotExist (which
   * upstream treats as compatible). Does not allocate.
   */
  public boolean intersects(Requirement o) {
    return intersectionNonEmpty(o) || (isNotInOrDoesNotExist() && o.isNotInOrDoesNotExist());
  }

  private boolean intersectionNonEmpty(Requirement o) {
    Integer newGte = maxOf(gte, o.gte);
    Integer newLte = minOf(lte, o.lte);
    if (newGte != null && newLte != null && newGte > newLte) {
      return false;
    }
    if (complement && o.complement) {
      return true;
    }
    Requirement concrete = complement ? o : this;
    Requirement other = complement ? this : o;
    for (String value : concrete.values) {
      if (other.complement != other.contains(value) && within(value, newGte, newLte)) {
        return true;
      }
    }
    return false;
  }

  /** True when the operator is NotIn or DoesNotExist. */
  public boolean isNotInOrDoesNotExist() {
    return complement ? values.length > 0 : values.length == 0;
  }

  private boolean isUnboundedExists() {
    return complement && values.length == 0 && gte == null && lte == null;
  }

  /** True when no value is allowed (DoesNotExist). */
  public boolean isEmpty() {
    return !complement && values.length == 0;
  }

  /** The number of values allowed: the set's size, or {@link Integer#MAX_VALUE} for complements. */
  public int size() {
    return complement ? Integer.MAX_VALUE : values.length;
  }

  /**
   * One allowed value, deterministically: the smallest value of an In set; for complements the
   * allowed integer closest to the lower bound (or, with only an upper bound, to it; with neither,
   * to 0, counting up); null for DoesNotExist or when exclusions fill a bounded range.
   */
  public String any() {
    if (!complement) {
      return values.length > 0 ? values[0] : null;
    }
    boolean down = gte == null && lte != null;
    long candidate = gte != null ? gte : (lte != null ? lte : 0);
    // At most values.length candidates are excluded, so this ends after values.length + 1 steps.
    for (int step = 0; step <= values.length; step++, candidate += down ? -1 : 1) {
      if ((gte != null && candidate < gte) || (lte != null && candidate > lte)) {
        return null;
      }
      String text = Long.toString(candidate);
      if (!contains(text)) {
        return text;
      }
    }
    return null;
  }

  private boolean contains(String value) {
    String[] v = values;
    switch (v.length) {
      case 0:
        return false;
      case 1:
        return v[0].equals(value);
      default:
        return Arrays.binarySearch(v, value) >= 0;
    }
  }

  private static boolean within(String value, Integer gte, Integer lte) {
    if (gte == null && lte == null) {
      return true;
    }
    long number;
    try {
      number = Long.parseLong(value);
    } catch (NumberFormatException e) {
      return false;
    }
    return (gte == null || number >= gte) && (lte == null || number <= lte);
  }

  private static String[] withinBounds(String[] values, Integer gte, Integer lte) {
    int kept = 0;
    String[] result = null;
    for (int i = 0; i < values.length; i++) {
      if (within(values[i], gte, lte)) {
        if (result != null) {
          result[kept] = values[i];
        }
        kept++;
      } else if (result == null) {
        result = Arrays.copyOf(values, values.length);
      }
    }
    if (result == null) {
      return values;
    }
    return kept == 0 ? NO_VALUES : Arrays.copyOf(result, kept);
  }

  private static String[] union(String[] a, String[] b) {
    if (b.length == 0 || a == b) {
      return a;
    }
    if (a.length == 0) {
      return b;
    }
    String[] out = new String[a.length + b.length];
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < a.length && j < b.length) {
      int c = a[i].compareTo(b[j]);
      if (c < 0) {
        out[n++] = a[i++];
      } else if (c > 0) {
        out[n++] = b[j++];
      } else {
        out[n++] = a[i++];
        j++;
      }
    }
    while (i < a.length) {
      out[n++] = a[i++];
    }
    while (j < b.length) {
      out[n++] = b[j++];
    }
    return trim(out, n, a, b);
  }

  private static String[] intersect(String[] a, String[] b) {
    if (a == b) {
      return a;
    }
    if (a.length == 0 || b.length == 0) {
      return NO_VALUES;
    }
    if (a.length == 1) {
      return Arrays.binarySearch(b, a[0]) >= 0 ? a : NO_VALUES;
    }
    if (b.length == 1) {
      return Arrays.binarySearch(a, b[0]) >= 0 ? b : NO_VALUES;
    }
    String[] out = new String[Math.min(a.length, b.length)];
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < a.length && j < b.length) {
      int c = a[i].compareTo(b[j]);
      if (c < 0) {
        i++;
      } else if (c > 0) {
        j++;
      } else {
        out[n++] = a[i++];
        j++;
      }
    }
    return trim(out, n, a, b);
  }

  /** {@code a} without the values of {@code b}. */
  private static String[] difference(String[] a, String[] b) {
    if (a.length == 0 || b.length == 0) {
      return a;
    }
    if (a == b) {
      return NO_VALUES;
    }
    String[] out = new String[a.length];
    int i = 0;
    int j = 0;
    int n = 0;
    while (i < a.length) {
      if (j >= b.length) {
        out[n++] = a[i++];
        continue;
      }
      int c = a[i].compareTo(b[j]);
      if (c < 0) {
        out[n++] = a[i++];
      } else if (c > 0) {
        j++;
      } else {
        i++;
        j++;
      }
    }
    return trim(out, n, a, null);
  }

  private static String[] trim(String[] out, int n, String[] a, String[] b) {
    if (n == 0) {
      return NO_VALUES;
    }
    if (n == a.length && Arrays.equals(out, 0, n, a, 0, n)) {
      return a;
    }
    if (b != null && n == b.length && Arrays.equals(out, 0, n, b, 0, n)) {
      return b;
    }
    return n == out.length ? out : Arrays.copyOf(out, n);
  }

  private static Integer maxOf(Integer a, Integer b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a >= b ? a : b;
  }

  private static Integer minOf(Integer a, Integer b) {
    if (a == null) {
      return b;
    }
    if (b == null) {
      return a;
    }
    return a <= b ? a : b;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof Requirement r
        && complement == r.complement
        && key.equals(r.key)
        && Arrays.equals(values, r.values)
        && Objects.equals(gte, r.gte)
        && Objects.equals(lte, r.lte)
        && Objects.equals(minValues, r.minValues);
  }

  @Override
  public int hashCode() {
    int h = hash;
    if (h == 0) {
      h = Objects.hash(key, complement, Arrays.hashCode(values), gte, lte, minValues);
      h = h == 0 ? 1 : h;
      hash = h;
    }
    return h;
  }

  /**
   * Readable form, as upstream prints it: {@code zone In [a b]}, {@code arch Exists}, {@code cpu Gte
   * 4 Lte 16}, {@code family NotIn [t3] minValues 2}; more than five values are elided.
   */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder(key).append(' ');
    boolean bounded = gte != null || lte != null;
    if (values.length > 0) {
      s.append(complement ? "NotIn" : "In").append(" [");
      int shown = Math.min(values.length, 5);
      for (int i = 0; i < shown; i++) {
        s.append(i == 0 ? "" : " ").append(values[i]);
      }
      if (values.length > shown) {
        s.append(" and ").append(values.length - shown).append(" others");
      }
      s.append(']');
    } else if (!bounded) {
      s.append(complement ? "Exists" : "DoesNotExist");
    }
    if (gte != null) {
      s.append(values.length > 0 ? " " : "").append("Gte ").append(gte);
    }
    if (lte != null) {
      s.append(values.length > 0 || gte != null ? " " : "").append("Lte ").append(lte);
    }
    if (minValues != null) {
      s.append(" minValues ").append(minValues);
    }
    return s.toString();
  }

  /**
   * The node selector expressions that express this requirement: one for the set (omitted for a
   * bounded complement without exclusions) plus one per bound.
   */
  public List<Expression> toExpressions() {
    List<Expression> expressions = new ArrayList<>(1);
    boolean bounded = gte != null || lte != null;
    if (!complement || values.length > 0 || !bounded) {
      Operator op = complement ? (values.length > 0 ? Operator.NotIn : Operator.Exists) : (values.length > 0 ? Operator.In : Operator.DoesNotExist);
      expressions.add(new Expression(key, op, valueList(), minValues));
    }
    if (gte != null) {
      expressions.add(new Expression(key, Operator.Gte, List.of(gte.toString()), expressions.isEmpty() ? minValues : null));
    }
    if (lte != null) {
      expressions.add(new Expression(key, Operator.Lte, List.of(lte.toString()), expressions.isEmpty() ? minValues : null));
    }
    return expressions;
  }

  /** One node selector expression ({@code NodeSelectorRequirementWithMinValues}). */
  public record Expression(String key, Operator operator, List<String> values, Integer minValues) {
    public Expression {
      values = List.copyOf(values);
    }

    /** Back to a requirement. */
    public Requirement toRequirement() {
      return Requirement.of(key, operator, values, minValues);
    }
  }
}
