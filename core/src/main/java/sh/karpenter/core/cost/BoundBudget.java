package sh.karpenter.core.cost;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;

/**
 * How much work the {@link LowerBound} may spend before it settles for what it has. The LP grows
 * with the number of distinct pod request shapes; with thousands of them an exact solve takes
 * minutes, so past these limits the LP is solved on fewer, aggregated shapes, stopped early, or
 * skipped, and the bound falls back to the per-resource bound, which is always valid. The work
 * before the LP (grouping pods into classes, which asks every offering about every distinct pod
 * constraint, checking fit, pruning offerings, the per-resource bound itself) grows with the input
 * too and counts against {@code maxSteps}; when it runs out there, the bound is the per-resource
 * bound over every offering, which needs one pass over the pods ({@link
 * LowerBound.Method#PER_RESOURCE_ANY_OFFERING}). The bound reports which of these happened ({@link
 * LowerBound#method()}, {@link LowerBound#detail()}).
 *
 * <p>The work limits are deterministic, so the same input always gives the same bound; the optional
 * deadline is read from an injected {@link Clock} and makes the result depend on timing.
 *
 * @param maxLpClasses classes the LP is solved on; beyond it, request shapes are aggregated (see
 *     {@link LpRelaxation}), and when even the coarsest aggregation has more, the LP is skipped
 * @param maxLpPairs (class, offering) pairs the restricted LP may hold; column generation stops
 *     before a round that would exceed it, keeping the best certified round. Fit cut rows (see
 *     {@link LpRelaxation}) count against it too: a round adds them only while pairs and cut rows
 *     together stay within it
 * @param maxSteps elementary steps (an offering asked about a constraint, a fit or dot product, a
 *     comparison while pruning, a simplex iteration) the whole computation may take; each phase
 *     charges its steps before running them (see {@link WorkMeter})
 * @param clock reads the deadline; null when there is none
 * @param timeLimit how long the LP may take, from the start of {@link LowerBound#compute}; null when
 *     there is no deadline. It is checked before the LP, before every LP round after the first,
 *     and every {@link WorkMeter#CLOCK_EVERY} steps of a phase, so a bound may overrun it by that
 *     many steps or one LP solve (whose size {@code maxLpPairs} limits); the solver itself never
 *     reads a clock, so the same readings give the same bound.
 */
public record BoundBudget(int maxLpClasses, int maxLpPairs, long maxSteps, Clock clock, Duration timeLimit) {
  /**
   * Steps of the default budget: a step is an inner-loop iteration of a few to a few tens of
   * nanoseconds, so this is some seconds of work on one core at most, whatever the input.
   */
  public static final long DEFAULT_MAX_STEPS = 300_000_000L;

  /**
   * Work limits that keep a bound over the bundled AWS catalogue to about a second on benchmark
   * mixes and to some seconds on any input (100,000 pods of distinct shapes fit in it); no deadline.
   */
  public static final BoundBudget DEFAULT = new BoundBudget(40, 8000, DEFAULT_MAX_STEPS, null, null);

  public BoundBudget {
    if (maxLpClasses < 1 || maxLpPairs < 1 || maxSteps < 1) {
      throw new IllegalArgumentException(
          "limits must be positive: " + maxLpClasses + " LP classes, " + maxLpPairs + " LP pairs, " + maxSteps + " steps");
    }
    if ((clock == null) != (timeLimit == null)) {
      throw new IllegalArgumentException("a deadline needs both a clock and a time limit");
    }
    if (timeLimit != null && timeLimit.isNegative()) {
      throw new IllegalArgumentException("time limit must not be negative: " + timeLimit);
    }
  }

  /** This budget with a deadline of {@code timeLimit} after each computation starts, read from {@code clock}. */
  public BoundBudget withDeadline(Clock clock, Duration timeLimit) {
    return new BoundBudget(maxLpClasses, maxLpPairs, maxSteps, clock, timeLimit);
  }

  /** This budget with other LP limits. */
  public BoundBudget withLimits(int maxLpClasses, int maxLpPairs) {
    return new BoundBudget(maxLpClasses, maxLpPairs, maxSteps, clock, timeLimit);
  }

  /** This budget with another step limit. */
  public BoundBudget withMaxSteps(long maxSteps) {
    return new BoundBudget(maxLpClasses, maxLpPairs, maxSteps, clock, timeLimit);
  }

  /** The deadline of a computation starting now, or null when there is none. */
  Instant deadlineFromNow() {
    return clock == null ? null : clock.instant().plus(timeLimit);
  }

  /** Whether {@code deadline} (from {@link #deadlineFromNow}) has passed. */
  boolean expired(Instant deadline) {
    return deadline != null && !clock.instant().isBefore(deadline);
  }
}
