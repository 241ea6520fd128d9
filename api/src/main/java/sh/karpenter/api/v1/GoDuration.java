package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * A duration written the way Go's {@code time.ParseDuration} reads it ({@code "30s"}, {@code "1h30m"},
 * {@code "1.5h"}, {@code "300ms"}), as Kubernetes' {@code metav1.Duration} serialises. The original text
 * is kept so that a manifest serialises back exactly as it was written.
 *
 * @param text the text as written
 * @param duration its value
 */
public record GoDuration(String text, Duration duration) {

  private static final Map<String, BigDecimal> NANOS_PER_UNIT =
      Map.of(
          "ns", BigDecimal.ONE,
          "us", BigDecimal.valueOf(1_000L),
          "µs", BigDecimal.valueOf(1_000L),
          "μs", BigDecimal.valueOf(1_000L),
          "ms", BigDecimal.valueOf(1_000_000L),
          "s", BigDecimal.valueOf(1_000_000_000L),
          "m", BigDecimal.valueOf(60_000_000_000L),
          "h", BigDecimal.valueOf(3_600_000_000_000L));

  public GoDuration {
    Objects.requireNonNull(text, "text");
    Objects.requireNonNull(duration, "duration");
  }

  /** Parses Go duration syntax; throws IllegalArgumentException naming the text when it is not one. */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public static GoDuration parse(String text) {
    return new GoDuration(text, parseDuration(text));
  }

  /** A duration with Go's canonical text ({@code 1h30m0s}, {@code 0s}). */
  public static GoDuration of(Duration duration) {
    return new GoDuration(format(duration), duration);
  }

  @JsonValue
  @Override
  public String toString() {
    return text;
  }

  /** Go's {@code time.ParseDuration}: an optional sign, then one or more decimal numbers with units. */
  static Duration parseDuration(String text) {
    Objects.requireNonNull(text, "text");
    String rest = text;
    boolean negative = false;
    if (!rest.isEmpty() && (rest.charAt(0) == '-' || rest.charAt(0) == '+')) {
      negative = rest.charAt(0) == '-';
      rest = rest.substring(1);
    }
    if (rest.equals("0")) {
      return Duration.ZERO;
    }
    if (rest.isEmpty()) {
      throw invalid(text);
    }
    BigDecimal nanos = BigDecimal.ZERO;
    int i = 0;
    while (i < rest.length()) {
      int numberStart = i;
      while (i < rest.length() && (Character.isDigit(rest.charAt(i)) || rest.charAt(i) == '.')) {
        i++;
      }
      String number = rest.substring(numberStart, i);
      int unitStart = i;
      while (i < rest.length() && !Character.isDigit(rest.charAt(i)) && rest.charAt(i) != '.') {
        i++;
      }
      BigDecimal perUnit = NANOS_PER_UNIT.get(rest.substring(unitStart, i));
      if (number.isEmpty() || number.equals(".") || perUnit == null) {
        throw invalid(text);
      }
      try {
        nanos = nanos.add(new BigDecimal(number).multiply(perUnit));
      } catch (NumberFormatException e) {
        throw invalid(text);
      }
    }
    Duration value = Duration.ofNanos(nanos.longValueExact());
    return negative ? value.negated() : value;
  }

  /** Go's {@code Duration.String()} for whole-second durations, e.g. {@code 720h0m0s}, {@code 30s}. */
  static String format(Duration duration) {
    if (duration.isZero()) {
      return "0s";
    }
    StringBuilder text = new StringBuilder(duration.isNegative() ? "-" : "");
    Duration abs = duration.abs();
    long hours = abs.toHours();
    int minutes = abs.toMinutesPart();
    if (hours > 0) {
      text.append(hours).append('h');
    }
    if (hours > 0 || minutes > 0) {
      text.append(minutes).append('m');
    }
    BigDecimal seconds = BigDecimal.valueOf(abs.toSecondsPart()).add(BigDecimal.valueOf(abs.toNanosPart(), 9));
    return text.append(seconds.stripTrailingZeros().toPlainString()).append('s').toString();
  }

  private static IllegalArgumentException invalid(String text) {
    return new IllegalArgumentException("invalid duration \"" + text + "\"");
  }
}
