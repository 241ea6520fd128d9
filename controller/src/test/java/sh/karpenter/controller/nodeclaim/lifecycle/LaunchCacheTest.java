package sh.karpenter.controller.nodeclaim.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.resources.Resources;

class LaunchCacheTest {

  private static final Instance INSTANCE =
      new Instance("fake://1", "t", "z", "spot", Map.of(), Map.of(), Resources.EMPTY, Resources.EMPTY, "");

  @Test
  void remembersALaunchForAnHour() {
    TestingClock clock = new TestingClock();
    LaunchCache cache = new LaunchCache(clock);
    cache.put("uid-1", INSTANCE);

    clock.step(Duration.ofMinutes(59));
    assertThat(cache.get("uid-1")).contains(INSTANCE);
    assertThat(cache.get("uid-2")).isEmpty();

    clock.step(Duration.ofMinutes(1));
    assertThat(cache.get("uid-1")).isEmpty();
    assertThat(cache.size()).isZero();
  }

  @Test
  void forgetsOnRemove() {
    LaunchCache cache = new LaunchCache(new TestingClock());
    cache.put("uid-1", INSTANCE);
    cache.remove("uid-1");
    assertThat(cache.get("uid-1")).isEmpty();
  }
}
