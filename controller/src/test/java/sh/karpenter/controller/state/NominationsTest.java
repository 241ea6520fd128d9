package sh.karpenter.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.core.clock.TestingClock;

class NominationsTest {
  private final TestingClock clock = new TestingClock();
  private final Nominations nominations = new Nominations(clock, Options.defaults().nominationWindow());

  @Test
  void theWindowIsTwiceTheBatchMaximumButAtLeastTenSeconds() {
    assertThat(Options.defaults().nominationWindow()).isEqualTo(Duration.ofSeconds(20));
    assertThat(Options.defaults().withBatchDurations(Duration.ofSeconds(1), Duration.ofSeconds(2)).nominationWindow())
        .isEqualTo(Duration.ofSeconds(10));
  }

  @Test
  void aNominationLastsForTheWindow() {
    nominations.nominate("team/web", "general-abc");

    clock.step(Duration.ofSeconds(19));
    assertThat(nominations.forPod("team/web")).contains("general-abc");
    assertThat(nominations.isNominated("general-abc")).isTrue();

    clock.step(Duration.ofSeconds(1));
    assertThat(nominations.forPod("team/web")).isEmpty();
    assertThat(nominations.isNominated("general-abc")).isFalse();
  }

  @Test
  void aLaterNominationExtendsTheNodes() {
    nominations.nominate("team/a", "node-1");
    clock.step(Duration.ofSeconds(15));
    nominations.nominate("team/b", "node-1");
    clock.step(Duration.ofSeconds(15));

    assertThat(nominations.forPod("team/a")).isEmpty();
    assertThat(nominations.isNominated("node-1")).isTrue();
  }

  @Test
  void aPodCanBeRenominated() {
    nominations.nominate("team/a", "node-1");
    nominations.nominate("team/a", "node-2");

    assertThat(nominations.forPod("team/a")).contains("node-2");
  }

  @Test
  void aPodStaysMappedToItsLatestNominationPastTheWindowUntilItIsForgotten() {
    nominations.nominate("team/a", "claim-1");
    nominations.nominate("team/b", "claim-1");
    nominations.nominate("team/c", "claim-2");
    clock.step(Duration.ofMinutes(5));

    assertThat(nominations.forPod("team/a")).isEmpty();
    assertThat(nominations.podsNominatedTo("claim-1")).containsExactly("team/a", "team/b");

    nominations.nominate("team/b", "node-9");
    nominations.forgetPod("team/a");
    assertThat(nominations.podsNominatedTo("claim-1")).isEmpty();
    assertThat(nominations.podsNominatedTo("claim-2")).containsExactly("team/c");
    assertThat(nominations.podsNominatedTo("node-9")).containsExactly("team/b");
  }
}
