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
 * Port of upstream's {@code BenchmarkScheduling{1..20000}}: the diverse pod mix on {@code
 * fake.InstanceTypes(400)} with one NodePool of huge limits. Each invocation builds a fresh scheduler
 * and solves, so no invocation inherits the NodeClaims or topology counts of an earlier one (upstream
 * repeats {@code Solve} on one scheduler). Read the {@code pods} secondary metric as pods/s.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 5)
@Measurement(iterations = 5, time = 5)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class SchedulingBenchmark {

  @Param({"1", "50", "100", "500", "1000", "2000", "5000", "10000", "20000"})
  public int pods;

  private SchedulingInput input;

  @Setup(Level.Trial)
  public void setUp() {
    input = BenchmarkClusters.fakeCatalogue(PodMixes.diverse(pods));
    ScheduledPods.checkEveryPodSchedules("diverse-" + pods, input);
  }

  @Benchmark
  public SchedulingResult diverse(ScheduledPods scheduled) {
    return scheduled.solve(input);
  }
}
