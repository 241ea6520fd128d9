package sh.karpenter.core.taints;

import java.util.Objects;

/**
 * A pod toleration, with Kubernetes' matching rules ({@code ToleratesTaint}): an empty key with
 * {@code Exists} tolerates every taint; a null effect matches every effect; {@code Equal} compares
 * values, {@code Exists} ignores them.
 *
 * @param key the taint key; empty matches any key
 * @param operator Equal (the default) or Exists
 * @param value compared under Equal; empty when absent
 * @param effect the effect tolerated, or null for all
 * @param tolerationSeconds how long a NoExecute taint is tolerated, or null for ever
 */
public record Toleration(String key, Operator operator, String value, Taint.Effect effect, Long tolerationSeconds) {
  /** Toleration operators. */
  public enum Operator {
    Exists,
    Equal;

    /** The operator spelled as in a manifest; null or empty means Equal. */
    public static Operator parse(String text) {
      if (text == null || text.isEmpty() || text.equals("Equal")) {
        return Equal;
      }
      if (text.equals("Exists")) {
        return Exists;
      }
      throw new IllegalArgumentException("unknown toleration operator \"" + text + "\", expected Exists or Equal");
    }
  }

  // equals and hashCode written out, as Taint's
  @Override
  public boolean equals(Object o) {
    return o instanceof Toleration t
        && key.equals(t.key)
        && operator == t.operator
        && value.equals(t.value)
        && effect == t.effect
        && Objects.equals(tolerationSeconds, t.tolerationSeconds);
  }

  @Override
  public int hashCode() {
    return Objects.hash(key, operator, value, effect, tolerationSeconds);
  }

  public Toleration {
    key = key == null ? "" : key;
    value = value == null ? "" : value;
    operator = operator == null ? Operator.Equal : operator;
  }

  /** Tolerates every taint (empty key, Exists, all effects). */
  public static Toleration tolerateAll() {
    return new Toleration("", Operator.Exists, "", null, null);
  }

  /** Tolerates any value of {@code key} with the given effect (null for all). */
  public static Toleration exists(String key, Taint.Effect effect) {
    return new Toleration(key, Operator.Exists, "", effect, null);
  }

  /** Tolerates {@code key=value} with the given effect (null for all). */
  public static Toleration equal(String key, String value, Taint.Effect effect) {
    return new Toleration(key, Operator.Equal, value, effect, null);
  }

  /** True when this toleration tolerates {@code taint}. */
  public boolean tolerates(Taint taint) {
    if (effect != null && effect != taint.effect()) {
      return false;
    }
    if (!key.isEmpty() && !key.equals(taint.key())) {
      return false;
    }
    return operator == Operator.Exists || value.equals(taint.value());
  }
}
