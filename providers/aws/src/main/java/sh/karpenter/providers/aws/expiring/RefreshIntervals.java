package sh.karpenter.providers.aws.expiring;

import java.time.Duration;

/** The refresh intervals of the subnet, security group and AMI selections (upstream's {@code --*-refresh-interval} flags). */
public final class RefreshIntervals {
  /** Upstream's default and its least allowed value. */
  public static final Duration MINIMUM = Duration.ofMinutes(1);

  private RefreshIntervals() {}

  /**
   * {@code interval} when at least {@link #MINIMUM}.
   *
   * @throws IllegalArgumentException naming the flag, with upstream's rule
   */
  public static Duration checked(String flag, Duration interval) {
    if (interval == null || interval.compareTo(MINIMUM) < 0) {
      throw new IllegalArgumentException(flag + " must be at least 1m, got " + interval);
    }
    return interval;
  }
}
