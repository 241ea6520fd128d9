package sh.karpenter.benchmarks;

import org.openjdk.jmh.annotations.AuxCounters;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;

/**
 * JMH's pods-per-second metric: an operations counter that every benchmark invocation advances by
 * the pods it scheduled, so in throughput mode JMH reports {@code pods} in pods/s next to the
 * primary solves/s. (A pod count that is a {@code @Param} cannot go into {@code
 * @OperationsPerInvocation}, which takes a constant.)
 */
@State(Scope.Thread)
@AuxCounters(AuxCounters.Type.OPERATIONS)
public class ScheduledPods {

  /** Pods scheduled in this iteration; public because JMH reads it. */
  public long pods;

  @Setup(Level.Iteration)
  public void reset() {
    pods = 0;
  }

  /** Solves {@code input} with a fresh scheduler and counts its scheduled pods. */
  SchedulingResult solve(SchedulingInput input) {
    SchedulingResult result = new Scheduler(input).solve();
    pods += input.pendingPods().size() - result.unschedulable().size();
    return result;
  }

  /**
   * Solves once before measuring and fails the trial if a pod could not be scheduled (as upstream's
   * benchmark does); prints the pods and nodes of the case, which upstream reports per case.
   */
  static void checkEveryPodSchedules(String benchmarkCase, SchedulingInput input) {
    SchedulingResult result = new Scheduler(input).solve();
    if (!result.unschedulable().isEmpty()) {
      throw new IllegalStateException(
          benchmarkCase + ": " + result.unschedulable().size() + " pods did not schedule, e.g. "
              + result.unschedulable().getFirst());
    }
    System.out.printf(
        "%s: %d pods on %d nodes%n", benchmarkCase, input.pendingPods().size(), result.newNodeClaims().size());
  }
}
