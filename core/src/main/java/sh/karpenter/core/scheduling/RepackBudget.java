package sh.karpenter.core.scheduling;

/**
 * The work the cost post-pass ({@link CostRepacker}) may do on one NodePool's pods, in steps: a pod
 * class looked at while filling a node, a comparison while sorting, a type checked, an LP
 * coefficient. Each phase charges its steps before taking them ({@link #charge}), and {@link
 * Exhausted} stops the packer as soon as the budget is spent. Steps are counted, not timed, so the
 * same input packs the same way on every run, whatever the machine's load.
 */
final class RepackBudget {
  /**
   * Steps per pod of the input. On a few pod shapes (the usual plan) a greedy step looks at few
   * classes and the whole packing takes some hundred steps per pod; with tens of thousands of
   * distinct shapes every step scans them all, so the work grows with pods squared: 5,000 pods of
   * random shapes take about 1.1 billion steps (some seconds), 100,000 would take hours.
   */
  static final long STEPS_PER_POD = 20_000;

  /**
   * Steps any input may take: the pattern LP of a small input runs to the end (tests and benchmark
   * mixes take at most some ten million steps), and so does the greedy packing of a few thousand
   * pods of distinct shapes. A step is a few to some tens of nanoseconds, so this is seconds of work.
   */
  static final long MIN_STEPS = 1_500_000_000L;

  /** Thrown by {@link #charge} when the budget is spent; carries no stack trace. */
  static final class Exhausted extends RuntimeException {
    private Exhausted() {
      super(null, null, false, false);
    }
  }

  private final long maxSteps;
  private long steps;

  RepackBudget(long maxSteps) {
    this.maxSteps = maxSteps;
  }

  /**
   * The budget of packing {@code pods} pods: proportional to the input beyond {@link #MIN_STEPS}. It
   * also bounds the packer's memory, which grows with the steps taken.
   */
  static long forPods(int pods) {
    return Math.max(MIN_STEPS, STEPS_PER_POD * pods);
  }

  /** Counts {@code work} steps before they are taken; throws {@link Exhausted} past the budget. */
  void charge(long work) {
    steps += work;
    if (steps > maxSteps) {
      throw new Exhausted();
    }
  }

  /** The steps charged so far. */
  long steps() {
    return steps;
  }

  /** The steps that may still be charged. */
  long left() {
    return maxSteps - steps;
  }

  /** Steps of sorting {@code n} items. */
  static long sortSteps(int n) {
    return (long) n * (1 + 64 - Long.numberOfLeadingZeros(n));
  }
}
