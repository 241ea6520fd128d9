package sh.karpenter.testkit.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.api.model.coordination.v1.LeaseBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.runtime.LeaderElection;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;

@ControlPlaneTest
class LeaderElectionIT {
  private static final Duration WAIT = Duration.ofMinutes(1);

  private LeaderElection first;
  private LeaderElection second;
  private final AtomicInteger firstStarted = new AtomicInteger();
  private final AtomicInteger secondStarted = new AtomicInteger();
  private final AtomicInteger firstStopped = new AtomicInteger();
  private final AtomicInteger secondStopped = new AtomicInteger();

  private static LeaderElection.Config config(KubernetesClient client, String identity) {
    return LeaderElection.Config.defaults(client.getNamespace())
        .withIdentity(identity)
        .withDurations(Duration.ofSeconds(4), Duration.ofSeconds(3), Duration.ofMillis(500));
  }

  private void startBoth(KubernetesClient client) {
    first = new LeaderElection(client, config(client, "first"))
        .onStartedLeading(firstStarted::incrementAndGet)
        .onStoppedLeading(firstStopped::incrementAndGet);
    second = new LeaderElection(client, config(client, "second"))
        .onStartedLeading(secondStarted::incrementAndGet)
        .onStoppedLeading(secondStopped::incrementAndGet);
    first.start();
    second.start();
  }

  @AfterEach
  void closeBoth() {
    if (first != null) {
      first.close();
    }
    if (second != null) {
      second.close();
    }
  }

  private static Lease lease(KubernetesClient client) {
    return client.resources(Lease.class).withName(LeaderElection.DEFAULT_NAME).get();
  }

  @Test
  void exactlyOneInstanceLeadsAndHoldsTheLease(KubernetesClient client) {
    startBoth(client);

    await().atMost(WAIT).until(() -> first.isLeader() || second.isLeader());
    // Several renew periods pass without the follower taking over.
    await().during(Duration.ofSeconds(3)).atMost(WAIT).until(() -> first.isLeader() ^ second.isLeader());

    LeaderElection leader = first.isLeader() ? first : second;
    assertThat(lease(client).getSpec().getHolderIdentity()).isEqualTo(leader.identity());
    await().atMost(WAIT).until(() -> firstStarted.get() + secondStarted.get() == 1);
  }

  @Test
  void closingTheLeaderReleasesTheLeaseAndTheOtherTakesOver(KubernetesClient client) {
    startBoth(client);
    await().atMost(WAIT).until(() -> first.isLeader() || second.isLeader());
    LeaderElection leader = first.isLeader() ? first : second;
    LeaderElection follower = leader == first ? second : first;
    AtomicInteger followerStarted = leader == first ? secondStarted : firstStarted;
    AtomicInteger leaderStopped = leader == first ? firstStopped : secondStopped;

    leader.close();

    assertThat(leader.isLeader()).isFalse();
    await().atMost(WAIT).until(follower::isLeader);
    await().atMost(WAIT).until(() -> followerStarted.get() == 1);
    await().atMost(WAIT).until(() -> follower.identity().equals(lease(client).getSpec().getHolderIdentity()));
    assertThat(leaderStopped).as("giving the Lease up on purpose is not losing it").hasValue(0);
  }

  @Test
  void losingTheLeaseRunsTheStoppedLeadingCallbacks(KubernetesClient client) {
    first = new LeaderElection(client, config(client, "first"))
        .onStartedLeading(firstStarted::incrementAndGet)
        .onStoppedLeading(firstStopped::incrementAndGet);
    first.start();
    await().atMost(WAIT).until(first::isLeader);

    // Another holder takes the Lease over behind our back (as after a long GC pause). The edit reads the
    // Lease and writes it at that version, so a renewal in between is a 409: read again and retry.
    OptimisticWrites.retryOnConflict(() -> client.resources(Lease.class).withName(LeaderElection.DEFAULT_NAME).edit(lease -> new LeaseBuilder(lease)
        .editSpec()
          .withHolderIdentity("intruder")
          .withRenewTime(ZonedDateTime.now(ZoneOffset.UTC))
          .withLeaseDurationSeconds(3600)
        .endSpec()
        .build()));

    await().atMost(WAIT).until(() -> !first.isLeader());
    await().atMost(WAIT).until(() -> firstStopped.get() == 1);
  }
}
