package sh.karpenter.api.v1;

import io.fabric8.kubernetes.api.model.Condition;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;

/**
 * Status-condition helpers with Kubernetes semantics: {@code lastTransitionTime} moves only when
 * the status changes, and setting a condition to what it already is changes nothing.
 */
public final class Conditions {
  private Conditions() {}

  public static final String TRUE = "True";
  public static final String FALSE = "False";
  public static final String UNKNOWN = "Unknown";

  /** The condition of that type, if present. {@code conditions} may be null. */
  public static Optional<Condition> get(List<Condition> conditions, String type) {
    if (conditions == null) {
      return Optional.empty();
    }
    return conditions.stream().filter(c -> type.equals(c.getType())).findFirst();
  }

  /** True when the condition is present with status {@code True}. */
  public static boolean isTrue(List<Condition> conditions, String type) {
    return get(conditions, type).map(c -> TRUE.equals(c.getStatus())).orElse(false);
  }

  /** True when the condition is absent or has status {@code Unknown}. */
  public static boolean isUnknown(List<Condition> conditions, String type) {
    return get(conditions, type).map(c -> UNKNOWN.equals(c.getStatus())).orElse(true);
  }

  /** When the condition last changed status, if present and recorded. */
  public static Optional<Instant> lastTransition(List<Condition> conditions, String type) {
    return get(conditions, type).map(Condition::getLastTransitionTime).filter(Objects::nonNull).map(Instant::parse);
  }

  /**
   * Returns {@code conditions} (a new list when null) with the condition set. The transition time is
   * {@code now} when the status changed or the condition is new, else kept.
   *
   * @param generation the object's {@code metadata.generation}, or null
   */
  public static List<Condition> set(
      List<Condition> conditions, String type, String status, String reason, String message, Instant now, Long generation) {
    List<Condition> result = conditions == null ? new ArrayList<>() : new ArrayList<>(conditions);
    Optional<Condition> existing = get(result, type);
    Condition condition = new Condition();
    condition.setType(type);
    condition.setStatus(status);
    condition.setReason(reason == null || reason.isEmpty() ? type : reason);
    condition.setMessage(message == null ? "" : message);
    condition.setObservedGeneration(generation);
    boolean statusChanged = existing.map(c -> !status.equals(c.getStatus())).orElse(true);
    condition.setLastTransitionTime(
        statusChanged || existing.get().getLastTransitionTime() == null
            ? now.truncatedTo(ChronoUnit.SECONDS).toString()
            : existing.get().getLastTransitionTime());
    existing.ifPresent(result::remove);
    result.add(condition);
    return result;
  }

  /** Returns {@code conditions} without the condition of that type (a new list; null stays empty). */
  public static List<Condition> clear(List<Condition> conditions, String type) {
    List<Condition> result = conditions == null ? new ArrayList<>() : new ArrayList<>(conditions);
    result.removeIf(c -> type.equals(c.getType()));
    return result;
  }
}
