package sh.karpenter.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;

class ClientRateLimitTest {
  @Test
  void requestsBeyondTheBurstWaitForTheirTokenAtTheQpsRate() {
    TestingClock clock = new TestingClock();
    List<Duration> waits = new ArrayList<>();
    ClientRateLimit limit = new ClientRateLimit(10, 3, clock, waits::add);

    for (int i = 0; i < 5; i++) {
      limit.before(null, null, null);
    }

    // Three go at once (the burst); the fourth waits 100 ms and the fifth, queued behind it, 200 ms.
    assertThat(waits).containsExactly(Duration.ofMillis(100), Duration.ofMillis(200));

    clock.step(Duration.ofSeconds(1));
    waits.clear();
    limit.before(null, null, null);
    assertThat(waits).isEmpty();
  }
}
