package sh.karpenter.controller.runtime;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LeaderElectionTest {

  @Test
  void disabledElectionLeadsAtOnceAndDoesNotReportALossOnClose() {
    AtomicInteger started = new AtomicInteger();
    AtomicInteger stopped = new AtomicInteger();
    LeaderElection election = LeaderElection.disabled()
        .onStartedLeading(started::incrementAndGet)
        .onStoppedLeading(stopped::incrementAndGet);
    assertThat(election.isLeader()).isFalse();

    election.start();
    election.start();
    assertThat(election.isLeader()).isTrue();
    await().atMost(10, SECONDS).until(() -> started.get() == 1);

    election.close();
    assertThat(election.isLeader()).isFalse();
    assertThat(started).hasValue(1);
    assertThat(stopped).hasValue(0);
  }

  @Test
  void defaultsAreControllerRuntimes() {
    LeaderElection.Config config = LeaderElection.Config.defaults("karpenter");
    assertThat(config.name()).isEqualTo("karpenter-leader-election");
    assertThat(config.leaseDuration()).isEqualTo(Duration.ofSeconds(15));
    assertThat(config.renewDeadline()).isEqualTo(Duration.ofSeconds(10));
    assertThat(config.retryPeriod()).isEqualTo(Duration.ofSeconds(2));
    assertThat(config.identity()).matches(".+_[0-9a-f-]{36}");
    assertThat(LeaderElection.Config.defaults("karpenter").identity()).isNotEqualTo(config.identity());
  }

  @Test
  void rejectsInconsistentDurations() {
    assertThatThrownBy(() -> LeaderElection.Config.defaults("karpenter")
        .withDurations(Duration.ofSeconds(5), Duration.ofSeconds(10), Duration.ofSeconds(2)))
        .isInstanceOf(IllegalArgumentException.class);
  }
}
