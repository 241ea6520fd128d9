package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * A duration that may be {@code Never} (upstream's {@code NillableDuration}), used by {@code expireAfter}
 * and {@code consolidateAfter}. The original text is kept so that a manifest serialises back unchanged.
 *
 * @param text the text as written, e.g. {@code "720h"} or {@code "Never"}
 * @param duration the value, or null for {@code Never}
 */
public record NillableDuration(String text, Duration duration) {

  public static final String NEVER_TEXT = "Never";
  public static final NillableDuration NEVER = new NillableDuration(NEVER_TEXT, null);

  public NillableDuration {
    Objects.requireNonNull(text, "text");
  }

  /** Parses {@code Never} or Go duration syntax; throws IllegalArgumentException otherwise. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static NillableDuration parse(String text) {
    return NEVER_TEXT.equals(text) ? NEVER : new NillableDuration(text, GoDuration.parseDuration(text));
  }

  public static NillableDuration of(Duration duration) {
    return new NillableDuration(GoDuration.format(duration), duration);
  }

  public boolean isNever() {
    return duration == null;
  }

  /** The duration, empty for {@code Never}. */
  public Optional<Duration> asDuration() {
    return Optional.ofNullable(duration);
  }

  @JsonValue
  @Override
  public String toString() {
    return text;
  }
}
