package sh.karpenter.core.requirements;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.TreeSet;

/**
 * Node requirements keyed by label key, as upstream's {@code scheduling.Requirements}: adding a
 * requirement intersects it with the one already held for its key. Mutable and not thread-safe,
 * except that a {@link #frozen()} instance rejects mutation and may be shared freely.
 *
 * <p>Held as small parallel arrays (a dozen keys is typical) with copy-on-write sharing, so {@link
 * #copy()} costs one object and lookups are a hash compare per entry.
 */
public final class Requirements implements Iterable<Requirement> {
  private static final String[] NO_KEYS = new String[0];
  private static final Requirement[] NO_REQUIREMENTS = new Requirement[0];
  private static final int[] NO_HASHES = new int[0];

  /** The empty, frozen requirements. */
  public static final Requirements EMPTY = new Requirements().frozen();

  private String[] keys;
  private int[] hashes;
  private Requirement[] requirements;
  private int size;
  /** The arrays may be shared with another instance: clone them before writing. */
  private boolean shared;

  private boolean frozen;
  /**
   * Open-addressing index from key hash to entry position + 1, built for frozen requirements with at
   * least {@link #INDEXED_SIZE} keys (instance types carry twenty or so labels); null otherwise.
   */
  private int[] table;

  private static final int INDEXED_SIZE = 8;

  /** New, empty, mutable requirements. */
  public Requirements() {
    keys = NO_KEYS;
    hashes = NO_HASHES;
    requirements = NO_REQUIREMENTS;
  }

  private Requirements(Requirements source, boolean frozen) {
    keys = source.keys;
    hashes = source.hashes;
    requirements = source.requirements;
    size = source.size;
    shared = true;
    this.frozen = frozen;
    if (frozen && size >= INDEXED_SIZE) {
      table = buildTable();
    }
  }

  private int[] buildTable() {
    int[] t = new int[Integer.highestOneBit(size * 4 - 1) << 1];
    int mask = t.length - 1;
    for (int i = 0; i < size; i++) {
      int slot = spread(hashes[i]) & mask;
      while (t[slot] != 0) {
        slot = (slot + 1) & mask;
      }
      t[slot] = i + 1;
    }
    return t;
  }

  private static int spread(int hash) {
    return hash ^ (hash >>> 16);
  }

  /** New mutable requirements holding the intersection of {@code rs} key by key. */
  public static Requirements of(Requirement... rs) {
    Requirements result = new Requirements();
    for (Requirement r : rs) {
      result.add(r);
    }
    return result;
  }

  /** New mutable requirements holding the intersection of {@code rs} key by key. */
  public static Requirements of(Iterable<Requirement> rs) {
    Requirements result = new Requirements();
    for (Requirement r : rs) {
      result.add(r);
    }
    return result;
  }

  /** {@code key In [value]} for each label (keys normalised). */
  public static Requirements fromLabels(Map<String, String> labels) {
    Requirements result = new Requirements();
    labels.forEach((key, value) -> result.add(Requirement.in(key, value)));
    return result;
  }

  /** A mutable copy; cheap (arrays are shared until either side writes). */
  public Requirements copy() {
    if (!frozen) {
      shared = true;
    }
    return new Requirements(this, false);
  }

  /** A read-only copy (this instance itself when already frozen), safe to share between threads. */
  public Requirements frozen() {
    if (frozen) {
      return this;
    }
    shared = true;
    return new Requirements(this, true);
  }

  public boolean isFrozen() {
    return frozen;
  }

  /** Intersects {@code r} with the requirement held for its key. Returns this. */
  public Requirements add(Requirement r) {
    checkMutable();
    int i = indexOf(r.key());
    if (i >= 0) {
      Requirement merged = r.intersection(requirements[i]);
      if (merged != requirements[i]) {
        unshare(0);
        requirements[i] = merged;
      }
      return this;
    }
    unshare(1);
    keys[size] = r.key();
    hashes[size] = r.key().hashCode();
    requirements[size] = r;
    size++;
    return this;
  }

  /** Adds each requirement of {@code rs}. Returns this. */
  public Requirements add(Requirements rs) {
    for (int i = 0; i < rs.size; i++) {
      add(rs.requirements[i]);
    }
    return this;
  }

  /** Replaces the requirement for its key without intersecting. Returns this. */
  public Requirements put(Requirement r) {
    checkMutable();
    int i = indexOf(r.key());
    if (i < 0) {
      return add(r);
    }
    unshare(0);
    requirements[i] = r;
    return this;
  }

  /** Drops the requirement for {@code key}, if any. Returns this. */
  public Requirements remove(String key) {
    checkMutable();
    int i = indexOf(key);
    if (i >= 0) {
      unshare(0);
      int tail = size - i - 1;
      System.arraycopy(keys, i + 1, keys, i, tail);
      System.arraycopy(hashes, i + 1, hashes, i, tail);
      System.arraycopy(requirements, i + 1, requirements, i, tail);
      size--;
      keys[size] = null;
      requirements[size] = null;
    }
    return this;
  }

  private void checkMutable() {
    if (frozen) {
      throw new UnsupportedOperationException("frozen requirements; copy() them to modify");
    }
  }

  /** Makes the arrays private to this instance with room for {@code extra} more entries. */
  private void unshare(int extra) {
    int needed = size + extra;
    if (shared || needed > keys.length) {
      int capacity = needed > keys.length ? Math.max(4, Math.max(needed, keys.length * 2)) : keys.length;
      keys = Arrays.copyOf(keys, capacity);
      hashes = Arrays.copyOf(hashes, capacity);
      requirements = Arrays.copyOf(requirements, capacity);
      shared = false;
    }
  }

  private int indexOf(String key) {
    int hash = key.hashCode();
    String[] k = keys;
    int[] t = table;
    if (t != null) {
      int mask = t.length - 1;
      for (int slot = spread(hash) & mask; t[slot] != 0; slot = (slot + 1) & mask) {
        int i = t[slot] - 1;
        if (hashes[i] == hash && (k[i] == key || k[i].equals(key))) {
          return i;
        }
      }
      return -1;
    }
    int[] h = hashes;
    for (int i = 0; i < size; i++) {
      if (h[i] == hash && (k[i] == key || k[i].equals(key))) {
        return i;
      }
    }
    return -1;
  }

  /** True when a requirement is defined for {@code key}. */
  public boolean has(String key) {
    return indexOf(key) >= 0;
  }

  /** The requirement for {@code key}; {@code key Exists} when undefined, as upstream's Get. */
  public Requirement get(String key) {
    int i = indexOf(key);
    return i >= 0 ? requirements[i] : Requirement.exists(key);
  }

  /** The requirement for {@code key}, or null when undefined. */
  public Requirement find(String key) {
    int i = indexOf(key);
    return i >= 0 ? requirements[i] : null;
  }

  /** Adds the defined keys to {@code target}, in insertion order, without building the set {@link #keys()} returns. */
  public void addKeysTo(java.util.Collection<? super String> target) {
    for (int i = 0; i < size; i++) {
      target.add(keys[i]);
    }
  }

  /** The defined keys, in insertion order. */
  public Set<String> keys() {
    LinkedHashSet<String> result = new LinkedHashSet<>(size * 2);
    for (int i = 0; i < size; i++) {
      result.add(keys[i]);
    }
    return Collections.unmodifiableSet(result);
  }

  /** The requirement at {@code index} (0 &lt;= index &lt; {@link #size()}), in insertion order; for loops that must not allocate. */
  public Requirement at(int index) {
    if (index >= size) {
      throw new IndexOutOfBoundsException(index);
    }
    return requirements[index];
  }

  public int size() {
    return size;
  }

  public boolean isEmpty() {
    return size == 0;
  }

  /** True when some requirement has minValues. */
  public boolean hasMinValues() {
    for (int i = 0; i < size; i++) {
      if (requirements[i].minValues() != null) {
        return true;
      }
    }
    return false;
  }

  /**
   * Upstream's {@code Compatible}: null when {@code incoming} is compatible with these requirements,
   * else a reason naming each offending key and both sides' values. An incoming key must be defined
   * here unless it is in {@code allowUndefined} or its operator is NotIn/DoesNotExist; shared keys
   * must {@link Requirement#intersects intersect}.
   */
  public String compatibility(Requirements incoming, Set<String> allowUndefined) {
    if (isCompatible(incoming, allowUndefined)) {
      return null;
    }
    List<String> reasons = new ArrayList<>(2);
    for (int j = 0; j < incoming.size; j++) {
      Requirement in = incoming.requirements[j];
      int i = indexOf(in.key());
      if (i < 0) {
        if (!allowUndefined.contains(in.key()) && !in.isNotInOrDoesNotExist()) {
          reasons.add("label \"" + in.key() + "\" does not have known values" + labelHint(in.key(), allowUndefined));
        }
      }
    }
    String intersection = intersectionReason(incoming);
    if (intersection != null) {
      reasons.add(intersection);
    }
    return String.join("; ", reasons);
  }

  /** As {@link #compatibility} without building the reason; does not allocate. */
  public boolean isCompatible(Requirements incoming, Set<String> allowUndefined) {
    for (int j = 0; j < incoming.size; j++) {
      Requirement in = incoming.requirements[j];
      int i = indexOf(in.key());
      if (i < 0) {
        if (!in.isNotInOrDoesNotExist() && !allowUndefined.contains(in.key())) {
          return false;
        }
      } else if (!requirements[i].intersects(in)) {
        return false;
      }
    }
    return true;
  }

  /** Compatible with no undefined key allowed (upstream's {@code StrictlyCompatible}). */
  public boolean isStrictlyCompatible(Requirements incoming) {
    return isCompatible(incoming, Set.of());
  }

  /** True when every key defined on both sides intersects. */
  public boolean intersects(Requirements o) {
    Requirements small = size <= o.size ? this : o;
    Requirements large = small == this ? o : this;
    for (int j = 0; j < small.size; j++) {
      int i = large.indexOf(small.keys[j]);
      if (i >= 0 && !large.requirements[i].intersects(small.requirements[j])) {
        return false;
      }
    }
    return true;
  }

  /** Null when these intersect {@code incoming}, else upstream's "key K, incoming not in existing". */
  public String intersectionReason(Requirements incoming) {
    List<String> reasons = null;
    for (int j = 0; j < incoming.size; j++) {
      Requirement in = incoming.requirements[j];
      int i = indexOf(in.key());
      if (i >= 0 && !requirements[i].intersects(in)) {
        if (reasons == null) {
          reasons = new ArrayList<>(1);
        }
        reasons.add("key " + in.key() + ", " + in + " not in " + requirements[i]);
      }
    }
    return reasons == null ? null : String.join("; ", reasons);
  }

  /** A hint at a likely misspelt key, from the allowed-undefined and the defined keys. */
  private String labelHint(String key, Set<String> allowUndefined) {
    TreeSet<String> candidates = new TreeSet<>(allowUndefined);
    for (String known : candidates) {
      if (known.contains(key) || key.contains(known)) {
        return " (typo of \"" + known + "\"?)";
      }
    }
    for (int i = 0; i < size; i++) {
      if (keys[i].contains(key) || key.contains(keys[i])) {
        return " (typo of \"" + keys[i] + "\"?)";
      }
    }
    return "";
  }

  /**
   * Single-valued In requirements as labels (what a node launched from these requirements is known
   * to carry), in insertion order.
   */
  public Map<String, String> labels() {
    Map<String, String> labels = new LinkedHashMap<>();
    for (int i = 0; i < size; i++) {
      Requirement r = requirements[i];
      if (!r.complement() && r.size() == 1) {
        labels.put(keys[i], r.any());
      }
    }
    return labels;
  }

  /** The requirements as a list, in insertion order. */
  public List<Requirement> toList() {
    return List.of(Arrays.copyOf(requirements, size));
  }

  @Override
  public Iterator<Requirement> iterator() {
    Requirement[] snapshot = requirements;
    int count = size;
    return new Iterator<>() {
      private int next;

      @Override
      public boolean hasNext() {
        return next < count;
      }

      @Override
      public Requirement next() {
        if (next >= count) {
          throw new NoSuchElementException();
        }
        return snapshot[next++];
      }
    };
  }

  /** Equal when the same keys hold equal requirements, whatever the order. */
  @Override
  public boolean equals(Object o) {
    if (!(o instanceof Requirements r) || r.size != size) {
      return false;
    }
    for (int i = 0; i < size; i++) {
      int j = r.indexOf(keys[i]);
      if (j < 0 || !requirements[i].equals(r.requirements[j])) {
        return false;
      }
    }
    return true;
  }

  @Override
  public int hashCode() {
    int hash = 0;
    for (int i = 0; i < size; i++) {
      hash += requirements[i].hashCode();
    }
    return hash;
  }

  /** The requirements sorted by key, comma-separated. */
  @Override
  public String toString() {
    List<Requirement> sorted = new ArrayList<>(toList());
    sorted.sort((a, b) -> a.key().compareTo(b.key()));
    StringBuilder s = new StringBuilder();
    for (Requirement r : sorted) {
      s.append(s.isEmpty() ? "" : ", ").append(r);
    }
    return s.toString();
  }
}
