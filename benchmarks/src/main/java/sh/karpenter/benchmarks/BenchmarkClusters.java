package sh.karpenter.benchmarks;

import java.util.List;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulerOptions.PreferencePolicy;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.wellknown.Labels;

/**
 * The clusters the benchmarks schedule into: empty (no nodes, no DaemonSets, no volumes), with one
 * NodePool, as upstream's scheduling benchmark sets up ({@code setupScheduler} in {@code
 * scheduling_benchmark_test.go}).
 */
public final class BenchmarkClusters {

  /** Name of the benchmarks' only NodePool. */
  public static final String NODE_POOL = "default";

  /** Upstream's catalogue size: {@code fake.InstanceTypes(400)}. */
  public static final int FAKE_INSTANCE_TYPES = 400;

  /**
   * Limits that never bind: upstream's cpu 10,000,000. Upstream also sets memory 10,000,000Gi, which
   * is beyond the long milli-values of {@link Resources} (1.07e19); any representable memory limit
   * binds first under Karpenter's pessimistic limit check (each NodeClaim counts as the largest type,
   * 800Gi, so 8,000,000Gi stops at 10,000 NodeClaims), and the 50,000-pod case needs more, so memory
   * is left unlimited. The CPU limit allows 25,000 NodeClaims of the largest type.
   */
  private static final Resources HUGE_LIMITS = Resources.builder().cpu("10000000").build();

  private static final List<InstanceType> FAKE_CATALOGUE = FakeInstanceTypes.instanceTypes(FAKE_INSTANCE_TYPES);

  private BenchmarkClusters() {}

  /** Upstream's benchmark cluster: {@code fake.InstanceTypes(400)}, one unconstrained NodePool. */
  public static SchedulingInput fakeCatalogue(List<Pod> pods, PreferencePolicy preferencePolicy) {
    return input(nodePool(Requirements.EMPTY, FAKE_CATALOGUE), pods, preferencePolicy);
  }

  /** {@link #fakeCatalogue(List, PreferencePolicy)} with upstream's default policy, Respect. */
  public static SchedulingInput fakeCatalogue(List<Pod> pods) {
    return fakeCatalogue(pods, PreferencePolicy.Respect);
  }

  /**
   * A cluster on a real catalogue, with the common default NodePool: linux, amd64, on-demand (so
   * the cost report prices no simulated spot offering).
   */
  public static SchedulingInput onDemandLinux(List<InstanceType> catalogue, List<Pod> pods) {
    Requirements requirements =
        Requirements.of(
            Requirement.in(Labels.OS, "linux"),
            Requirement.in(Labels.ARCH, "amd64"),
            Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND));
    return input(nodePool(requirements, catalogue), pods, PreferencePolicy.Respect);
  }

  private static NodeClaimTemplate nodePool(Requirements requirements, List<InstanceType> catalogue) {
    return new NodeClaimTemplate(
        NODE_POOL, 0, null, null, null, null, requirements, HUGE_LIMITS, Resources.EMPTY, catalogue);
  }

  private static SchedulingInput input(
      NodeClaimTemplate nodePool, List<Pod> pods, PreferencePolicy preferencePolicy) {
    return new SchedulingInput(
        List.of(nodePool),
        List.of(),
        pods,
        List.of(),
        null,
        SchedulerOptions.DEFAULT.withPreferencePolicy(preferencePolicy));
  }
}
