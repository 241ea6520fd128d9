package sh.karpenter.api.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class GoDurationTest {

  @Test
  void parsesGoDurationSyntax() {
    assertThat(GoDuration.parse("720h").duration()).isEqualTo(Duration.ofHours(720));
    assertThat(GoDuration.parse("1h30m").duration()).isEqualTo(Duration.ofMinutes(90));
    assertThat(GoDuration.parse("1.5h").duration()).isEqualTo(Duration.ofMinutes(90));
    assertThat(GoDuration.parse("300ms").duration()).isEqualTo(Duration.ofMillis(300));
    assertThat(GoDuration.parse("0").duration()).isEqualTo(Duration.ZERO);
    assertThat(GoDuration.parse("-5s").duration()).isEqualTo(Duration.ofSeconds(-5));
  }

  @Test
  void rejectsWhatGoRejects() {
    for (String text : new String[] {"", "10", "5d", "h", "1.2.3s", "Never"}) {
      assertThatThrownBy(() -> GoDuration.parse(text)).as(text).isInstanceOf(IllegalArgumentException.class).hasMessageContaining(text);
    }
  }

  @Test
  void keepsTheTextAndFormatsLikeGo() {
    assertThat(GoDuration.parse("1m").toString()).isEqualTo("1m");
    assertThat(GoDuration.of(Duration.ofHours(720)).text()).isEqualTo("720h0m0s");
    assertThat(GoDuration.of(Duration.ofSeconds(30)).text()).isEqualTo("30s");
    assertThat(GoDuration.of(Duration.ZERO).text()).isEqualTo("0s");
  }

  @Test
  void nillableDurationReadsNever() {
    assertThat(NillableDuration.parse("Never").isNever()).isTrue();
    assertThat(NillableDuration.parse("Never").asDuration()).isEmpty();
    assertThat(NillableDuration.parse("0s").asDuration()).contains(Duration.ZERO);
    assertThat(NillableDuration.of(Duration.ofMinutes(90)).text()).isEqualTo("1h30m0s");
  }
}
