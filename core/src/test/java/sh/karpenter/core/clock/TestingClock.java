package sh.karpenter.core.clock;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A clock that moves only when told to, for testing timers (batch windows, liveness timeouts,
 * expiry) without sleeping. Everything that reads the time takes a {@link Clock} in its
 * constructor; production passes {@link Clock#systemUTC()}.
 */
public final class TestingClock extends Clock {
  private volatile Instant now;
  private volatile Duration autoAdvance = Duration.ZERO;

  public TestingClock() {
    this(Instant.parse("2026-01-01T00:00:00Z"));
  }

  public TestingClock(Instant start) {
    this.now = start;
  }

  /** Moves the clock forward. */
  public synchronized TestingClock step(Duration duration) {
    now = now.plus(duration);
    return this;
  }

  public synchronized TestingClock set(Instant instant) {
    now = instant;
    return this;
  }

  /**
   * Makes every reading move the clock forward by {@code step} after it is taken, so code that loops
   * until a deadline sees time pass without anyone stepping the clock.
   */
  public TestingClock autoAdvance(Duration step) {
    autoAdvance = step;
    return this;
  }

  @Override
  public synchronized Instant instant() {
    Instant reading = now;
    now = now.plus(autoAdvance);
    return reading;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }
}
