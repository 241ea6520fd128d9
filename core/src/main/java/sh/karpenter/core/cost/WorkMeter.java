package sh.karpenter.core.cost;

import java.time.Instant;

/**
 * Counts the work one {@link LowerBound} computation does against its {@link BoundBudget}: every
 * phase that grows with the input (grouping pods into classes, fit and usability checks, pruning,
 * the per-resource bound, aggregation, each LP round and its certification) charges its inner
 * loop iterations ({@link #charge}) before it runs them, and {@link OverBudget} stops the phase as
 * soon as the step limit is reached or, when the budget has a deadline, the deadline has passed.
 *
 * <p>Steps are counted, not timed, so a bound is the same on every run of the same input; the
 * clock is read only at the points {@link LpRelaxation} documents and, on long computations, once
 * every {@link #CLOCK_EVERY} steps.
 */
final class WorkMeter {
  /** Steps between two readings of the deadline's clock while a phase runs. */
  static final long CLOCK_EVERY = 1L << 24;

  private final BoundBudget budget;
  private final Instant deadline;
  private long steps;
  private long nextClockReading = CLOCK_EVERY;

  /** A meter whose deadline (if the budget has one) starts now. */
  WorkMeter(BoundBudget budget) {
    this.budget = budget;
    this.deadline = budget.deadlineFromNow();
  }

  BoundBudget budget() {
    return budget;
  }

  Instant deadline() {
    return deadline;
  }

  long steps() {
    return steps;
  }

  /**
   * Charges {@code count} steps of work about to be done.
   *
   * @throws OverBudget when they would take the computation past the step limit, or the deadline
   *     has passed
   */
  void charge(long count) {
    steps = count > Long.MAX_VALUE - steps ? Long.MAX_VALUE : steps + count;
    if (steps > budget.maxSteps()) {
      throw new OverBudget("the work budget of " + String.format("%,d", budget.maxSteps()) + " steps");
    }
    if (deadline != null && steps >= nextClockReading) {
      nextClockReading = steps + CLOCK_EVERY;
      if (budget.expired(deadline)) {
        throw new OverBudget("the time limit of " + budget.timeLimit());
      }
    }
  }

  /** Whether the deadline (if any) has passed: one reading of the clock. */
  boolean expired() {
    return budget.expired(deadline);
  }

  /** A phase ran out of budget; {@link #limit()} names the limit reached, e.g. {@code the work budget of 1,000 steps}. */
  static final class OverBudget extends RuntimeException {
    private static final long serialVersionUID = 1L;

    OverBudget(String limit) {
      super(limit, null, false, false);
    }

    String limit() {
      return getMessage();
    }
  }
}
