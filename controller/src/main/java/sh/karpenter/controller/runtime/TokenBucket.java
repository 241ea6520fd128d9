package sh.karpenter.controller.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket (golang.org/x/time/rate's {@code Limiter}): refills at {@code qps} tokens per
 * second up to {@code burst}. {@link #tryAcquire} takes a token only when one is there (event rate
 * limits); {@link #reserve} always takes one and says how long to wait for it (work-queue retries),
 * so reservations queue up behind each other. Time comes from the injected {@link Clock}.
 */
public final class TokenBucket {
  private final double qps;
  private final int burst;
  private final Clock clock;
  private double tokens;
  private Instant last;

  public TokenBucket(double qps, int burst, Clock clock) {
    if (!(qps > 0) || burst < 1) {
      throw new IllegalArgumentException("need qps > 0 and burst >= 1, got " + qps + ", " + burst);
    }
    this.qps = qps;
    this.burst = burst;
    this.clock = clock;
    this.tokens = burst;
    this.last = clock.instant();
  }

  /** Takes a token if one is available now. */
  public synchronized boolean tryAcquire() {
    refill();
    if (tokens >= 1) {
      tokens -= 1;
      return true;
    }
    return false;
  }

  /** Takes a token, possibly in the future; returns how long until it is available. */
  public synchronized Duration reserve() {
    refill();
    tokens -= 1;
    if (tokens >= 0) {
      return Duration.ZERO;
    }
    return Duration.ofNanos((long) Math.ceil(-tokens / qps * 1_000_000_000d));
  }

  /** Tokens available now (negative while reservations are outstanding). */
  public synchronized double tokens() {
    refill();
    return tokens;
  }

  private void refill() {
    Instant now = clock.instant();
    if (now.isAfter(last)) {
      double elapsed = Duration.between(last, now).toNanos() / 1_000_000_000d;
      tokens = Math.min(burst, tokens + elapsed * qps);
      last = now;
    }
  }
}
