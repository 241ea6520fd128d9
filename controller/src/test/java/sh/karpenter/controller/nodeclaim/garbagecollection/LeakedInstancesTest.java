package sh.karpenter.controller.nodeclaim.garbagecollection;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** An instance is leaked only when seen unreferenced on two passes a period apart. */
class LeakedInstancesTest {
  private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
  private final LeakedInstances leaked = new LeakedInstances(Duration.ofMinutes(2));

  @Test
  void aFirstSightingIsNeverALeak() {
    assertThat(leaked.observe(Set.of("fake://1"), T0)).isEmpty();
  }

  @Test
  void aSecondSightingTooSoonIsNotALeakButOneAPeriodLaterIs() {
    leaked.observe(Set.of("fake://1"), T0);

    assertThat(leaked.observe(Set.of("fake://1", "fake://2"), T0.plus(Duration.ofMinutes(1)))).isEmpty();
    assertThat(leaked.observe(Set.of("fake://1", "fake://2"), T0.plus(Duration.ofMinutes(2)))).containsExactly("fake://1");
    assertThat(leaked.observe(Set.of("fake://1", "fake://2"), T0.plus(Duration.ofMinutes(3))))
        .containsExactlyInAnyOrder("fake://1", "fake://2");
  }

  @Test
  void anInstanceReferencedInBetweenStartsOver() {
    leaked.observe(Set.of("fake://1"), T0);
    leaked.observe(Set.of(), T0.plus(Duration.ofMinutes(2))); // its launch wrote the provider ID

    assertThat(leaked.observe(Set.of("fake://1"), T0.plus(Duration.ofMinutes(4)))).isEmpty();
    assertThat(leaked.observe(Set.of("fake://1"), T0.plus(Duration.ofMinutes(6)))).containsExactly("fake://1");
  }

  @Test
  void aForgottenInstanceStartsOver() {
    leaked.observe(Set.of("fake://1"), T0);
    leaked.forget("fake://1");

    assertThat(leaked.observe(Set.of("fake://1"), T0.plus(Duration.ofMinutes(2)))).isEmpty();
  }
}
