package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class CronTest {
  private static Instant at(String text) {
    return Instant.parse(text);
  }

  private static Instant next(String cron, String after) {
    return Cron.parse(cron).next(at(after));
  }

  @ParameterizedTest(name = "{0} after {1} is {2}")
  @CsvSource({
    // every minute: strictly after, on the minute
    "'* * * * *', 2026-03-02T12:00:00Z, 2026-03-02T12:01:00Z",
    "'* * * * *', 2026-03-02T12:00:30Z, 2026-03-02T12:01:00Z",
    // a fixed time of day
    "'30 9 * * *', 2026-03-02T09:29:59Z, 2026-03-02T09:30:00Z",
    "'30 9 * * *', 2026-03-02T09:30:00Z, 2026-03-03T09:30:00Z",
    // lists, ranges and steps
    "'0,15,45 * * * *', 2026-03-02T12:16:00Z, 2026-03-02T12:45:00Z",
    "'10-12 * * * *', 2026-03-02T12:12:00Z, 2026-03-02T13:10:00Z",
    "'*/20 * * * *', 2026-03-02T12:41:00Z, 2026-03-02T13:00:00Z",
    "'5-50/15 * * * *', 2026-03-02T12:36:00Z, 2026-03-02T12:50:00Z",
    "'40/7 * * * *', 2026-03-02T12:48:00Z, 2026-03-02T12:54:00Z",
    "'0 */6 * * *', 2026-03-02T13:00:00Z, 2026-03-02T18:00:00Z",
    // month rollover, day of month, month names
    "'0 0 1 * *', 2026-03-02T00:00:00Z, 2026-04-01T00:00:00Z",
    "'0 0 1 JAN *', 2026-03-02T00:00:00Z, 2027-01-01T00:00:00Z",
    "'0 0 29 feb *', 2026-03-02T00:00:00Z, 2028-02-29T00:00:00Z",
    "'0 0 31 * *', 2026-04-01T00:00:00Z, 2026-05-31T00:00:00Z",
    // day of week (2026-03-02 is a Monday), names, Sunday is 0
    "'0 9 * * 1-5', 2026-03-06T10:00:00Z, 2026-03-09T09:00:00Z",
    "'0 9 * * MON-FRI', 2026-03-06T10:00:00Z, 2026-03-09T09:00:00Z",
    "'0 0 * * 0', 2026-03-02T00:00:00Z, 2026-03-08T00:00:00Z",
    "'0 0 * * sun', 2026-03-02T00:00:00Z, 2026-03-08T00:00:00Z",
    // both day fields restricted: either matches (the 15th, or a Friday)
    "'0 0 15 * 5', 2026-03-02T00:00:00Z, 2026-03-06T00:00:00Z",
    "'0 0 15 * 5', 2026-03-13T00:00:00Z, 2026-03-15T00:00:00Z",
    // a star (even '?') in one day field: only the other counts
    "'0 0 15 * *', 2026-03-02T00:00:00Z, 2026-03-15T00:00:00Z",
    "'0 0 ? * 5', 2026-03-02T00:00:00Z, 2026-03-06T00:00:00Z",
    // a stepped star is a restriction, so the day fields are ORed
    "'0 0 */10 * 1', 2026-03-02T00:00:00Z, 2026-03-09T00:00:00Z",
    // year rollover
    "'59 23 31 12 *', 2026-03-02T00:00:00Z, 2026-12-31T23:59:00Z",
  })
  void findsTheNextHit(String cron, String after, String expected) {
    assertThat(next(cron, after)).isEqualTo(at(expected));
  }

  @ParameterizedTest(name = "{0}")
  @CsvSource({
    "@yearly, 2027-01-01T00:00:00Z",
    "@annually, 2027-01-01T00:00:00Z",
    "@monthly, 2026-04-01T00:00:00Z",
    "@weekly, 2026-03-08T00:00:00Z",
    "@daily, 2026-03-03T00:00:00Z",
    "@midnight, 2026-03-03T00:00:00Z",
    "@hourly, 2026-03-02T13:00:00Z",
  })
  void macros(String macro, String expected) {
    assertThat(next(macro, "2026-03-02T12:00:00Z")).isEqualTo(at(expected));
  }

  @Test
  void aDayThatNeverComesNeverFires() {
    assertThat(next("0 0 30 2 *", "2026-03-02T00:00:00Z")).isNull();
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "",
        "* * * *",
        "* * * * * *",
        "60 * * * *",
        "* 24 * * *",
        "* * 0 * *",
        "* * * 13 *",
        "* * * * 7",
        "5-1 * * * *",
        "*/0 * * * *",
        "a * * * *",
        "1,,2 * * * *",
        "? * * * *",
        "@every 5m",
        "@reboot"
      })
  void rejectsInvalidSchedules(String cron) {
    assertThatThrownBy(() -> Cron.parse(cron)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void errorsNameTheField() {
    assertThatThrownBy(() -> Cron.parse("0 25 * * *")).hasMessageContaining("hour").hasMessageContaining("25");
  }
}
