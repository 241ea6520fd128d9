package sh.karpenter.benchmarks;

import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import sh.karpenter.benchmarks.workload.PodMixes;
import sh.karpenter.core.scheduling.SchedulerOptions.PreferencePolicy;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;

/**
 * Port of upstream's {@code BenchmarkRespectPreferences} and {@code BenchmarkIgnorePreferences}:
 * 4,000 {@code app=nginx} pods with a preferred zone, an unsatisfiable preferred zone anti-affinity
 * and a preferred hostname anti-affinity, under each preference policy. Respect must relax the
 * preferences pod by pod; Ignore drops them. Read the {@code pods} secondary metric as pods/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class PreferencesBenchmark {

  /** Upstream's pod count for the preference case. */
  public static final int PODS = 4000;

  @Param({"Respect", "Ignore"})
  public PreferencePolicy policy;

  private SchedulingInput input;

  @Setup(Level.Trial)
  public void setUp() {
    input = BenchmarkClusters.fakeCatalogue(PodMixes.preferences(PODS), policy);
    ScheduledPods.checkEveryPodSchedules("preferences-" + policy, input);
  }

  @Benchmark
  public SchedulingResult preferences(ScheduledPods scheduled) {
    return scheduled.solve(input);
  }
}
