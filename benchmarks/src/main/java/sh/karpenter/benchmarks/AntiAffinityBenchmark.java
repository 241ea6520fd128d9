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
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;

/**
 * Self anti-affinity: every pod is {@code app=nginx} with required hostname anti-affinity to {@code
 * app=nginx}, so each pod opens a NodeClaim of its own and every later pod must be checked against
 * every earlier one's domain (the case upstream PR #958 sped up from 15.3 to 171.3 pods/s at 500
 * pods). Read the {@code pods} secondary metric as pods/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class AntiAffinityBenchmark {

  @Param({"500", "2000", "5000"})
  public int pods;

  private SchedulingInput input;

  @Setup(Level.Trial)
  public void setUp() {
    input = BenchmarkClusters.fakeCatalogue(PodMixes.antiAffinity(pods));
    ScheduledPods.checkEveryPodSchedules("anti-affinity-" + pods, input);
  }

  @Benchmark
  public SchedulingResult antiAffinity(ScheduledPods scheduled) {
    return scheduled.solve(input);
  }
}
