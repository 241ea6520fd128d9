package sh.karpenter.core.taints;

import java.util.Objects;

/**
 * A node taint. The value may be empty (never null).
 *
 * @param effect what happens to pods that do not tolerate it
 */
public record Taint(String key, String value, Effect effect) {
  /** Taint effects, as Kubernetes spells them. */
  public enum Effect {
    NoSchedule,
    PreferNoSchedule,
    NoExecute;

    /**
     * The effect spelled as in a manifest.
     *
     * @throws IllegalArgumentException naming the text when it is not an effect
     */
    public static Effect parse(String text) {
      for (Effect effect : values()) {
        if (effect.name().equals(text)) {
          return effect;
        }
      }
      throw new IllegalArgumentException(
          "unknown taint effect \"" + text + "\", expected one of NoSchedule, PreferNoSchedule, NoExecute");
    }
  }

  // equals and hashCode written out: a record's generated ones are linked at their first call (the
  // start-up cache cannot keep that link), about a millisecond each on the cold JVM of a short
  // `karpenter plan`. The records of the solve and the bound used as map keys do the same.
  @Override
  public boolean equals(Object o) {
    return o instanceof Taint t && key.equals(t.key) && value.equals(t.value) && effect == t.effect;
  }

  @Override
  public int hashCode() {
    return (31 * key.hashCode() + value.hashCode()) * 31 + effect.hashCode();
  }

  public Taint {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(effect, "effect");
    value = value == null ? "" : value;
  }

  /** A taint without a value. */
  public static Taint of(String key, Effect effect) {
    return new Taint(key, "", effect);
  }

  /** True when key and effect are equal (Kubernetes' {@code MatchTaint}: the value is ignored). */
  public boolean matches(Taint o) {
    return key.equals(o.key) && effect == o.effect;
  }

  /** {@code key=value:Effect}, or {@code key:Effect} without a value, as kubectl prints it. */
  @Override
  public String toString() {
    return value.isEmpty() ? key + ":" + effect : key + "=" + value + ":" + effect;
  }
}
