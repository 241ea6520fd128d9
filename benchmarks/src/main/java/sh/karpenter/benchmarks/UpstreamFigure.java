package sh.karpenter.benchmarks;

import java.util.Map;
import java.util.Optional;

/**
 * A throughput figure published by upstream Karpenter for the same workload as one of our
 * scenarios, so reports can say "x times upstream". These are numbers quoted from upstream pull
 * requests (docs/behaviour/benchmarks-method.md#published-upstream-figures), measured on other
 * hardware (an Apple M3 Pro laptop for the current benchmark), by Go's {@code testing.B} reusing
 * one scheduler across iterations; they are context, not a same-machine baseline.
 *
 * @param pods pods in the upstream case
 * @param secondsPerSolve upstream's {@code sec/op}: wall-clock time of one {@code Solve}
 * @param source where the number was published
 */
public record UpstreamFigure(int pods, double secondsPerSolve, String source) {

  private static final String PR_2486 =
      "kubernetes-sigs/karpenter#2486 (Nov 2025, Apple M3 Pro, faster of its old/new columns)";

  /** Upstream's diverse-mix figures by pod count, after the benchmark fix of #1930. */
  private static final Map<Integer, UpstreamFigure> DIVERSE =
      Map.of(
          1, new UpstreamFigure(1, 164e-6, PR_2486),
          50, new UpstreamFigure(50, 37.5e-3, PR_2486),
          100, new UpstreamFigure(100, 76.7e-3, PR_2486),
          500, new UpstreamFigure(500, 0.388, PR_2486),
          1000, new UpstreamFigure(1000, 0.777, PR_2486),
          2000, new UpstreamFigure(2000, 1.54, PR_2486),
          5000, new UpstreamFigure(5000, 3.74, PR_2486),
          10000, new UpstreamFigure(10000, 8.11, PR_2486),
          20000, new UpstreamFigure(20000, 20.2, PR_2486));

  /** {@code BenchmarkRespectPreferences}: 4,000 pods. Upstream publishes no Ignore figure. */
  public static final UpstreamFigure RESPECT_PREFERENCES = new UpstreamFigure(4000, 10.9, PR_2486);

  /**
   * 500 self-anti-affinity pods at 171.3 pods/s. Published before the benchmark fix of #1930, on
   * unstated hardware, so only indicative.
   */
  public static final UpstreamFigure ANTI_AFFINITY_500 =
      new UpstreamFigure(
          500, 500 / 171.3, "kubernetes-sigs/karpenter#958 (Jan 2024, before the #1930 fix, hardware unstated)");

  /** Upstream's figure for the diverse mix of {@code pods} pods, if it published one. */
  public static Optional<UpstreamFigure> diverse(int pods) {
    return Optional.ofNullable(DIVERSE.get(pods));
  }

  public double podsPerSecond() {
    return pods / secondsPerSolve;
  }
}
