package sh.karpenter.core.disruption;

import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.temporal.ChronoUnit;
import java.util.BitSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A disruption budget's {@code schedule} (docs/behaviour/disruption.md#budgets): a standard 5-field
 * cron expression ({@code minute hour day-of-month month day-of-week}) or one of the macros {@code
 * @annually}, {@code @yearly}, {@code @monthly}, {@code @weekly}, {@code @daily}, {@code @midnight},
 * {@code @hourly}, always evaluated in UTC, with the semantics of the cron library upstream uses
 * (robfig/cron's standard parser).
 *
 * <p>Each field takes {@code *} (or {@code ?} for the day fields), a value, a range {@code a-b}, a step
 * {@code *}{@code /n}, {@code a-b/n} or {@code a/n} (from a to the field's maximum), or a comma-separated
 * list of those. Months may be named {@code JAN}..{@code DEC} and weekdays {@code SUN}..{@code SAT}
 * (case-insensitive); Sunday is 0. When both day fields are restricted, a day matches when either
 * does; when one of them is {@code *} (or {@code ?}), only the other one counts.
 */
public final class Cron {
  private static final Map<String, String> MACROS =
      Map.of(
          "@yearly", "0 0 1 1 *",
          "@annually", "0 0 1 1 *",
          "@monthly", "0 0 1 * *",
          "@weekly", "0 0 * * 0",
          "@daily", "0 0 * * *",
          "@midnight", "0 0 * * *",
          "@hourly", "0 * * * *");

  private static final List<String> MONTHS =
      List.of("JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC");
  private static final List<String> WEEKDAYS = List.of("SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT");

  /** How far {@link #next} looks before concluding the schedule never fires (e.g. {@code 0 0 30 2 *}). */
  private static final int SEARCH_YEARS = 8;

  private final String expression;
  private final BitSet minutes;
  private final BitSet hours;
  private final BitSet daysOfMonth;
  private final BitSet months;
  private final BitSet daysOfWeek;
  private final boolean daysOfMonthStar;
  private final boolean daysOfWeekStar;

  private Cron(String expression, Field[] fields) {
    this.expression = expression;
    this.minutes = fields[0].values;
    this.hours = fields[1].values;
    this.daysOfMonth = fields[2].values;
    this.months = fields[3].values;
    this.daysOfWeek = fields[4].values;
    this.daysOfMonthStar = fields[2].star;
    this.daysOfWeekStar = fields[4].star;
  }

  /**
   * Parses a schedule.
   *
   * @throws IllegalArgumentException naming the offending text when it is not a valid schedule
   */
  public static Cron parse(String expression) {
    if (expression == null || expression.isBlank()) {
      throw new IllegalArgumentException("empty cron schedule");
    }
    String trimmed = expression.trim();
    String spec = trimmed.startsWith("@") ? MACROS.get(trimmed.toLowerCase(Locale.ROOT)) : trimmed;
    if (spec == null) {
      throw new IllegalArgumentException("unknown cron macro \"" + trimmed + "\" (want one of " + MACROS.keySet() + ")");
    }
    String[] parts = spec.split("\\s+");
    if (parts.length != 5) {
      throw new IllegalArgumentException(
          "cron schedule \"" + trimmed + "\" has " + parts.length + " fields, want 5 (minute hour day-of-month month day-of-week)");
    }
    Field[] fields = {
      Field.parse(parts[0], "minute", 0, 59, null, false),
      Field.parse(parts[1], "hour", 0, 23, null, false),
      Field.parse(parts[2], "day-of-month", 1, 31, null, true),
      Field.parse(parts[3], "month", 1, 12, MONTHS, false),
      Field.parse(parts[4], "day-of-week", 0, 6, WEEKDAYS, true)
    };
    return new Cron(trimmed, fields);
  }

  /**
   * The first minute strictly after {@code after} that the schedule fires at, or null when it never
   * fires (a day that does not exist, such as February 30).
   */
  public Instant next(Instant after) {
    LocalDateTime t = LocalDateTime.ofInstant(after, ZoneOffset.UTC).truncatedTo(ChronoUnit.MINUTES).plusMinutes(1);
    int lastYear = t.getYear() + SEARCH_YEARS;
    while (t.getYear() <= lastYear) {
      if (!months.get(t.getMonthValue())) {
        t = LocalDate.of(t.getYear(), t.getMonthValue(), 1).plusMonths(1).atStartOfDay();
        continue;
      }
      if (!dayMatches(t.toLocalDate())) {
        t = t.toLocalDate().plusDays(1).atStartOfDay();
        continue;
      }
      if (!hours.get(t.getHour())) {
        t = t.truncatedTo(ChronoUnit.HOURS).plusHours(1);
        continue;
      }
      if (!minutes.get(t.getMinute())) {
        t = t.plusMinutes(1);
        continue;
      }
      return t.toInstant(ZoneOffset.UTC);
    }
    return null;
  }

  private boolean dayMatches(LocalDate date) {
    boolean dom = daysOfMonth.get(date.getDayOfMonth());
    boolean dow = daysOfWeek.get(date.getDayOfWeek().getValue() % 7);
    if (daysOfMonthStar || daysOfWeekStar) {
      return dom && dow;
    }
    return dom || dow;
  }

  @Override
  public String toString() {
    return expression;
  }

  /** One parsed field: its allowed values, and whether it started with {@code *} or {@code ?} without a step. */
  private record Field(BitSet values, boolean star) {
    static Field parse(String text, String name, int min, int max, List<String> names, boolean question) {
      BitSet values = new BitSet(max + 1);
      boolean star = false;
      for (String item : text.split(",", -1)) {
        if (item.isEmpty()) {
          throw invalid(text, name, "empty list item");
        }
        String[] rangeAndStep = item.split("/", -1);
        if (rangeAndStep.length > 2) {
          throw invalid(text, name, "more than one '/' in \"" + item + "\"");
        }
        String range = rangeAndStep[0];
        int start;
        int end;
        boolean itemStar = false;
        if (range.equals("*") || (question && range.equals("?"))) {
          start = min;
          end = max;
          itemStar = true;
        } else {
          String[] bounds = range.split("-", -1);
          if (bounds.length > 2) {
            throw invalid(text, name, "more than one '-' in \"" + item + "\"");
          }
          start = value(bounds[0], text, name, min, max, names);
          end = bounds.length == 2 ? value(bounds[1], text, name, min, max, names) : start;
          if (bounds.length == 1 && rangeAndStep.length == 2) {
            end = max; // "a/n" means "a-max/n"
          }
        }
        int step = 1;
        if (rangeAndStep.length == 2) {
          step = number(rangeAndStep[1], text, name);
          if (step <= 0) {
            throw invalid(text, name, "step must be positive");
          }
          if (step > 1) {
            itemStar = false;
          }
        }
        if (start > end) {
          throw invalid(text, name, "range start " + start + " is beyond its end " + end);
        }
        for (int v = start; v <= end; v += step) {
          values.set(v);
        }
        star |= itemStar;
      }
      return new Field(values, star);
    }

    private static int value(String token, String text, String name, int min, int max, List<String> names) {
      int v;
      int named = names == null ? -1 : names.indexOf(token.toUpperCase(Locale.ROOT));
      if (named >= 0) {
        v = named + min;
      } else {
        v = number(token, text, name);
      }
      if (v < min || v > max) {
        throw invalid(text, name, v + " is outside " + min + "-" + max);
      }
      return v;
    }

    private static int number(String token, String text, String name) {
      if (token.isEmpty() || !token.chars().allMatch(Character::isDigit) || token.length() > 9) {
        throw invalid(text, name, "\"" + token + "\" is not a number");
      }
      return Integer.parseInt(token);
    }

    private static IllegalArgumentException invalid(String text, String name, String why) {
      return new IllegalArgumentException("invalid cron " + name + " field \"" + text + "\": " + why);
    }
  }
}
