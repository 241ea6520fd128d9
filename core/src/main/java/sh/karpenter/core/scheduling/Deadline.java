package sh.karpenter.core.scheduling;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * When a scheduling pass stops trying further pods (upstream's 1-minute {@code Solve} timeout,
 * docs/behaviour/scheduling.md#solve-timeout). The pass asks before each pod it takes from its
 * queue; the core reads no clock of its own, so a deadline on time reads the clock it is given, and
 * tests use {@link #afterChecks} to stop after an exact number of pods.
 */
@FunctionalInterface
public interface Deadline {
  /** Never passes. */
  Deadline NONE = () -> false;

  /** Whether the pass must stop now (asked once per pod taken from the queue). */
  boolean passed();

  /** Passes once {@code clock} reads later than {@code timeout} after now. */
  static Deadline after(Clock clock, Duration timeout) {
    Objects.requireNonNull(clock, "clock");
    Instant at = clock.instant().plus(timeout);
    return () -> clock.instant().isAfter(at);
  }

  /** Passes from the {@code checks + 1}-th question on: a deterministic budget of pods tried. */
  static Deadline afterChecks(long checks) {
    long[] asked = {0};
    return () -> ++asked[0] > checks;
  }
}
