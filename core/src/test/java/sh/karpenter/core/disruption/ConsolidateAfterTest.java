package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The consolidateAfter window rule (upstream IsUnderConsolidateAfter and the Consolidatable condition's requeue time). */
class ConsolidateAfterTest {
  private static final Instant NOW = Instant.parse("2026-01-01T12:00:00Z");
  private static final Duration HOUR = Duration.ofHours(1);

  @Test
  void countsFromTheLastPodEvent() {
    Instant event = NOW.minus(Duration.ofMinutes(20));
    Instant initialized = NOW.minus(Duration.ofHours(5));
    assertThat(ConsolidateAfter.endsAt(HOUR, event, initialized)).isEqualTo(event.plus(HOUR));
    assertThat(ConsolidateAfter.isUnder(HOUR, event, initialized, NOW)).isTrue();
    assertThat(ConsolidateAfter.isUnder(HOUR, event, initialized, event.plus(HOUR))).isFalse();
  }

  @Test
  void countsFromInitializationWithoutAPodEvent() {
    Instant initialized = NOW.minus(Duration.ofMinutes(59));
    assertThat(ConsolidateAfter.endsAt(HOUR, null, initialized)).isEqualTo(initialized.plus(HOUR));
    assertThat(ConsolidateAfter.isUnder(HOUR, null, initialized, NOW)).isTrue();
    assertThat(ConsolidateAfter.isUnder(HOUR, null, NOW.minus(HOUR), NOW)).isFalse();
  }

  @Test
  void noWindowWhenNeverOrNotInitialized() {
    assertThat(ConsolidateAfter.endsAt(null, NOW, NOW)).isNull();
    assertThat(ConsolidateAfter.isUnder(null, NOW, NOW, NOW)).isFalse();
    assertThat(ConsolidateAfter.endsAt(HOUR, NOW, null)).isNull();
    assertThat(ConsolidateAfter.isUnder(HOUR, NOW, null, NOW)).isFalse();
  }

  /** As upstream, 0s means no window at all, even for a pod event stamped a moment ahead of the clock. */
  @Test
  void zeroIsNeverUnder() {
    assertThat(ConsolidateAfter.DEFAULT).isEqualTo(Duration.ZERO);
    assertThat(ConsolidateAfter.isUnder(Duration.ZERO, NOW.plusSeconds(5), NOW.minus(HOUR), NOW)).isFalse();
  }
}
