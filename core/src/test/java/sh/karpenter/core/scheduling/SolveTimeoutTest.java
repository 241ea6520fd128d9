package sh.karpenter.core.scheduling;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.scheduling.SchedulingHarness.pod;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.pod.Pod;

/** A pass stops trying pods at its deadline (upstream's 1-minute Solve timeout), deterministically. */
class SolveTimeoutTest {
  private SchedulingHarness env;

  @BeforeEach
  void setUp() {
    env = new SchedulingHarness();
    env.defaultNodePool();
  }

  private static List<Pod> pods(int count, String cpu) {
    return IntStream.range(0, count).mapToObj(i -> pod(cpu).build()).toList();
  }

  @Test
  void withoutADeadlineEveryPodIsTriedAndNothingTimesOut() {
    SchedulingResult result = env.provision(Deadline.NONE, pods(5, "1"));
    assertThat(result.timedOut()).isFalse();
    assertThat(result.deferred()).isEmpty();
    assertThat(result.newNodeClaims().stream().mapToInt(c -> c.pods().size()).sum()).isEqualTo(5);
  }

  @Test
  void placementsBeforeTheDeadlineStandAndUntriedPodsAreDeferredWithTheReason() {
    List<Pod> pods = pods(5, "1");
    SchedulingResult result = env.provision(Deadline.afterChecks(3), pods);

    assertThat(result.timedOut()).isTrue();
    assertThat(result.newNodeClaims().stream().mapToInt(c -> c.pods().size()).sum()).isEqualTo(3);
    assertThat(result.unschedulable()).isEmpty();
    assertThat(result.deferred()).hasSize(2).allSatisfy(error ->
        assertThat(error.reason()).isEqualTo("scheduling simulation timed out before this pod was tried"));
    // every pending pod is still accounted for exactly once
    assertThat(result.newNodeClaims().stream().mapToInt(c -> c.pods().size()).sum() + result.deferred().size()).isEqualTo(pods.size());
  }

  @Test
  void aPodThatFailedBeforeTheDeadlineKeepsItsReason() {
    // The pod nothing fits is tried first (largest CPU first), fails and is pushed back; then time is up.
    Pod huge = pod("10000").build();
    SchedulingResult result = env.provision(Deadline.afterChecks(2), List.of(huge, pod("1").build(), pod("1").build()));

    assertThat(result.timedOut()).isTrue();
    assertThat(result.unschedulable()).singleElement().satisfies(error -> {
      assertThat(error.pod()).isSameAs(huge);
      assertThat(error.reason()).doesNotContain("timed out");
    });
    assertThat(result.deferred()).hasSize(1);
  }

  @Test
  void aDeadlineOnAClockPassesOnlyAfterTheTimeout() {
    TestingClock clock = new TestingClock(Instant.parse("2026-01-01T00:00:00Z"));
    Deadline deadline = Deadline.after(clock, Duration.ofMinutes(1));
    assertThat(deadline.passed()).isFalse();
    clock.step(Duration.ofMinutes(1));
    assertThat(deadline.passed()).isFalse();
    clock.step(Duration.ofMillis(1));
    assertThat(deadline.passed()).isTrue();
  }

  @Test
  void aPassThatTimesOutSkipsTheCostPostPass() {
    SchedulingResult result = env.provision(Deadline.afterChecks(0), pods(3, "1"));
    assertThat(result.timedOut()).isTrue();
    assertThat(result.newNodeClaims()).isEmpty();
    assertThat(result.costRepackingOutOfBudget()).isEmpty();
    assertThat(result.deferred()).hasSize(3);
  }
}
