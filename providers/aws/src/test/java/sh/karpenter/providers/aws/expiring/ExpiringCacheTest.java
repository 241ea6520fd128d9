package sh.karpenter.providers.aws.expiring;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;

class ExpiringCacheTest {
  private final TestingClock clock = new TestingClock(Instant.parse("2026-01-01T00:00:00Z"));

  @Test
  void anEntryLivesForTheTtl() {
    ExpiringCache<String, String> cache = new ExpiringCache<>(clock, Duration.ofMinutes(1));
    cache.put("a", "1");
    clock.step(Duration.ofSeconds(59));
    assertThat(cache.get("a")).contains("1");
    clock.step(Duration.ofSeconds(1));
    assertThat(cache.get("a")).isEmpty();
  }

  @Test
  void anEntryMayHaveItsOwnTtl() {
    ExpiringCache<String, String> cache = new ExpiringCache<>(clock, Duration.ofMinutes(1));
    cache.put("a", "1", Duration.ofHours(24));
    clock.step(Duration.ofHours(23));
    assertThat(cache.get("a")).contains("1");
    cache.remove("a");
    assertThat(cache.get("a")).isEmpty();
  }

  @Test
  void theTtlMustBePositive() {
    assertThatIllegalArgumentException().isThrownBy(() -> new ExpiringCache<>(clock, Duration.ZERO)).withMessageContaining("ttl");
  }

  @Test
  void refreshIntervalsAreAtLeastAMinute() {
    assertThat(RefreshIntervals.checked("--ami-refresh-interval", Duration.ofMinutes(5))).isEqualTo(Duration.ofMinutes(5));
    assertThatIllegalArgumentException().isThrownBy(() -> RefreshIntervals.checked("--ami-refresh-interval", Duration.ofSeconds(30)))
        .withMessage("--ami-refresh-interval must be at least 1m, got PT30S");
  }
}
