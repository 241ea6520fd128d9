package sh.karpenter.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.util.Arrays;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;

/**
 * Times scheduling runs the way the scenario runner reports them: every run builds a fresh {@link
 * Scheduler} from the same immutable input and solves it (so no run inherits NodeClaims or topology
 * counts from an earlier one, unlike upstream's Go benchmark), after a few warm-up runs for the JIT.
 * Warm-up lasts at least {@code warmupRuns} runs and at least two seconds (so that cases of a few
 * pods, whose runs take microseconds, are compiled too); warm-up and measured runs stop early when
 * their time budget is spent, so the 50,000-pod case does not take minutes; at least one run is
 * always measured.
 *
 * <p>Besides wall-clock time it records the solving thread's CPU time: on a shared 2-core machine
 * other processes stretch the wall clock, while CPU time (which leaves out GC threads) stays close to
 * what an idle machine would show.
 *
 * @param warmupRuns fewest warm-up runs (within the budget)
 * @param measuredRuns most measured runs; the median is reported
 * @param budgetNanos time after which no further warm-up, and separately no further measured, run starts
 */
record SolveTimer(int warmupRuns, int measuredRuns, long budgetNanos) {

  private static final long MIN_WARMUP_NANOS = 2_000_000_000L;

  /**
   * The timings of one scenario.
   *
   * @param result the result of the last measured run (kept reachable for the heap reading)
   * @param medianNanos median wall-clock time of scheduler construction plus {@code solve()}
   * @param medianCpuNanos median CPU time of the solving thread
   * @param runs measured runs
   * @param liveHeapBytes heap in use after the last run and a full GC, with the input and result live
   */
  record Timing(
      SchedulingResult result, long medianNanos, long medianCpuNanos, int runs, long liveHeapBytes) {}

  Timing time(SchedulingInput input) {
    long warmupStart = System.nanoTime();
    for (int i = 0; ; i++) {
      long elapsed = System.nanoTime() - warmupStart;
      if (elapsed >= budgetNanos || (i >= warmupRuns && elapsed >= MIN_WARMUP_NANOS)) {
        break;
      }
      new Scheduler(input).solve();
    }
    ThreadMXBean threads = ManagementFactory.getThreadMXBean();
    long[] wall = new long[measuredRuns];
    long[] cpu = new long[measuredRuns];
    int runs = 0;
    SchedulingResult result = null;
    long measureStart = System.nanoTime();
    while (runs < measuredRuns && (runs == 0 || System.nanoTime() - measureStart < budgetNanos)) {
      long startCpu = threads.getCurrentThreadCpuTime();
      long start = System.nanoTime();
      result = new Scheduler(input).solve();
      wall[runs] = System.nanoTime() - start;
      cpu[runs++] = threads.getCurrentThreadCpuTime() - startCpu;
    }
    return new Timing(
        result, median(sorted(wall, runs)), median(sorted(cpu, runs)), runs, liveHeapAfterGc());
  }

  private static long[] sorted(long[] values, int count) {
    long[] sorted = Arrays.copyOf(values, count);
    Arrays.sort(sorted);
    return sorted;
  }

  private static long median(long[] sorted) {
    int mid = sorted.length / 2;
    return sorted.length % 2 == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
  }

  private static long liveHeapAfterGc() {
    MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
    memory.gc();
    memory.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }
}
