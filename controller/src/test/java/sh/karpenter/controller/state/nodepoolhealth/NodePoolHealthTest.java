package sh.karpenter.controller.state.nodepoolhealth;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.junit.jupiter.api.Test;

/** Upstream's nodepoolhealth suite, plus the ring's overwrite order. */
class NodePoolHealthTest {
  private static final String POOL = "6f1c3d2e-0000-4000-8000-000000000001";
  private final NodePoolHealth health = new NodePoolHealth();

  @Test
  void recordsAllConcurrentUpdates() throws InterruptedException {
    CountDownLatch start = new CountDownLatch(1);
    List<Thread> threads = new ArrayList<>();
    for (boolean outcome : new boolean[] {false, false, true, true}) {
      threads.add(Thread.startVirtualThread(() -> {
        try {
          start.await();
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        health.update("same", outcome);
      }));
    }
    start.countDown();
    for (Thread thread : threads) {
      thread.join();
    }
    // Exactly half the buffer is failures: a lost update would leave it healthy.
    assertThat(health.status("same")).isEqualTo(Status.UNHEALTHY);
  }

  @Test
  void aNewNodePoolIsUnknown() {
    assertThat(health.status(POOL)).isEqualTo(Status.UNKNOWN);
  }

  @Test
  void oneSuccessIsHealthy() {
    health.update(POOL, true);
    assertThat(health.status(POOL)).isEqualTo(Status.HEALTHY);
  }

  @Test
  void twoFailuresAreUnhealthy() {
    health.update(POOL, false);
    assertThat(health.status(POOL)).isEqualTo(Status.HEALTHY);
    health.update(POOL, false);
    assertThat(health.status(POOL)).isEqualTo(Status.UNHEALTHY);
  }

  @Test
  void twoFailuresAndOneSuccessAreStillUnhealthy() {
    health.setStatus(POOL, Status.UNHEALTHY);
    health.update(POOL, true);
    assertThat(health.status(POOL)).isEqualTo(Status.UNHEALTHY);
  }

  @Test
  void eachNodePoolHasItsOwnTracker() {
    String other = "6f1c3d2e-0000-4000-8000-000000000002";
    health.update(POOL, true);
    health.update(other, false);
    health.update(other, false);
    assertThat(health.status(POOL)).isEqualTo(Status.HEALTHY);
    assertThat(health.status(other)).isEqualTo(Status.UNHEALTHY);
    health.setStatus(other, Status.UNKNOWN);
    assertThat(health.status(other)).isEqualTo(Status.UNKNOWN);
  }

  @Test
  void aDryRunLeavesTheTrackerUnchanged() {
    health.setStatus(POOL, Status.HEALTHY);
    health.update(POOL, false);
    assertThat(health.status(POOL)).isEqualTo(Status.HEALTHY);

    assertThat(health.dryRun(POOL, false)).isEqualTo(Status.UNHEALTHY);
    assertThat(health.status(POOL)).isEqualTo(Status.HEALTHY);
  }

  @Test
  void settingAStatusResetsTheBufferFirst() {
    health.update(POOL, false);
    health.update(POOL, false);
    assertThat(health.status(POOL)).isEqualTo(Status.UNHEALTHY);

    health.setStatus(POOL, Status.HEALTHY);
    assertThat(health.status(POOL)).isEqualTo(Status.HEALTHY);
  }

  @Test
  void theOldestOutcomeIsOverwrittenOnceTheBufferIsFull() {
    for (boolean outcome : new boolean[] {false, false, true, true}) {
      health.update(POOL, outcome);
    }
    assertThat(health.status(POOL)).isEqualTo(Status.UNHEALTHY);
    health.update(POOL, true); // replaces the first failure
    assertThat(health.status(POOL)).isEqualTo(Status.HEALTHY);
    health.update(POOL, false); // replaces the second failure
    assertThat(health.status(POOL)).isEqualTo(Status.HEALTHY);
    health.update(POOL, false); // replaces the first success
    assertThat(health.status(POOL)).isEqualTo(Status.UNHEALTHY);
  }

  @Test
  void aDryRunOnAFullBufferReplacesTheOldestOutcomeAsAnUpdateWould() {
    // Oldest to newest F, F, T, T, stored as [T, T, F, F] with the oldest in the third slot.
    for (boolean outcome : new boolean[] {true, true, false, false, true, true}) {
      health.update(POOL, outcome);
    }
    assertThat(health.status(POOL)).isEqualTo(Status.UNHEALTHY);

    Status predicted = health.dryRun(POOL, true);
    health.update(POOL, true);
    assertThat(predicted).isEqualTo(health.status(POOL)).isEqualTo(Status.HEALTHY);
  }
}
