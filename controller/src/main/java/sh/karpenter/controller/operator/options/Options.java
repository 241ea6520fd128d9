package sh.karpenter.controller.operator.options;

import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import sh.karpenter.controller.nodeclaim.garbagecollection.GarbageCollection;
import sh.karpenter.core.disruption.DisruptionOptions;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.topology.DefaultConstraints;

/**
 * The controller's settings (upstream pkg/operator/options, docs/behaviour/options.md). The CLI
 * fills them from flags and environment variables; tests build them with {@link #defaults()} and
 * the {@code with*} methods.
 *
 * @param batchIdleDuration a batch closes after this long without a new pending pod
 * @param batchMaxDuration a batch closes at the latest this long after it opened
 * @param scheduler preference and minValues policies
 * @param defaultConstraints default topology spread from {@code --scheduler-config}
 * @param metricsPort port of {@code /metrics}; 0 picks a free one, -1 disables the server
 * @param healthProbePort port of {@code /healthz} and {@code /readyz}; 0 picks a free one, -1 disables it
 * @param leaderElection whether to elect a leader through a Lease (off: this process always leads)
 * @param leaderElectionName the Lease's name
 * @param leaderElectionNamespace the Lease's namespace
 * @param prebind create the Node object and bind pods as soon as a NodeClaim launches
 * @param disruptionShadowMode voluntary disruption decides, explains and records what it would do
 *     but acts on nothing (docs/behaviour/disruption.md#shadow-mode)
 * @param repackConsolidation run repack consolidation after upstream's methods (not upstream's; off by
 *     default; docs/behaviour/disruption.md#repack-consolidation)
 * @param paybackHorizon a repack move must pay back its disruption cost within this horizon
 *     (docs/behaviour/disruption.md#payback)
 * @param featureGates upstream's gates; only the ones this implementation knows are honoured
 * @param cpuRequests millicores the process may use; sizes worker pools as upstream does
 * @param garbageCollectionPeriod how often {@code nodeclaim.garbagecollection} runs, and how long an
 *     instance must go unreferenced before it is a leak (upstream: 2 minutes, not a flag; tests shorten it)
 */
public record Options(
    Duration batchIdleDuration,
    Duration batchMaxDuration,
    SchedulerOptions scheduler,
    DefaultConstraints defaultConstraints,
    int metricsPort,
    int healthProbePort,
    boolean leaderElection,
    String leaderElectionName,
    String leaderElectionNamespace,
    boolean prebind,
    boolean disruptionShadowMode,
    boolean repackConsolidation,
    Duration paybackHorizon,
    Map<String, Boolean> featureGates,
    int cpuRequests,
    Duration garbageCollectionPeriod) {

  /**
   * Upstream v1.15's gates with their defaults. Only SpotToSpotConsolidation is read here;
   * docs/upstream-v1.15.md says which gated features are built.
   */
  public static final Map<String, Boolean> DEFAULT_FEATURE_GATES =
      Map.of(
          "NodeRepair", false,
          "ReservedCapacity", true,
          "SpotToSpotConsolidation", false,
          "NodeOverlay", false,
          "StaticCapacity", false,
          "CapacityBuffer", false,
          "TerminateFirstDrift", false,
          "TerminateFirstRepair", false,
          "PodDeletionCostManagement", false);

  public Options {
    Objects.requireNonNull(batchIdleDuration, "batchIdleDuration");
    Objects.requireNonNull(batchMaxDuration, "batchMaxDuration");
    if (batchIdleDuration.isNegative() || batchIdleDuration.isZero()) {
      throw new IllegalArgumentException("--batch-idle-duration must be positive, got " + batchIdleDuration);
    }
    if (batchMaxDuration.compareTo(batchIdleDuration) < 0) {
      throw new IllegalArgumentException(
          "--batch-max-duration (" + batchMaxDuration + ") must be at least --batch-idle-duration (" + batchIdleDuration + ")");
    }
    Objects.requireNonNull(paybackHorizon, "paybackHorizon");
    if (paybackHorizon.isNegative()) {
      throw new IllegalArgumentException("--disruption-payback-horizon must not be negative, got " + paybackHorizon);
    }
    featureGates = Map.copyOf(featureGates);
    Objects.requireNonNull(garbageCollectionPeriod, "garbageCollectionPeriod");
    if (garbageCollectionPeriod.isNegative() || garbageCollectionPeriod.isZero()) {
      throw new IllegalArgumentException("the garbage collection period must be positive, got " + garbageCollectionPeriod);
    }
  }

  public static Options defaults() {
    return new Options(
        Duration.ofSeconds(1),
        Duration.ofSeconds(10),
        SchedulerOptions.DEFAULT,
        DefaultConstraints.NONE,
        8080,
        8081,
        true,
        "karpenter-leader-election",
        "kube-system",
        false,
        false,
        false,
        DisruptionOptions.DEFAULT_PAYBACK_HORIZON,
        DEFAULT_FEATURE_GATES,
        1000,
        GarbageCollection.PERIOD);
  }

  /** How long a pod stays nominated to a node or NodeClaim: max(2 × batchMaxDuration, 10 s). */
  public Duration nominationWindow() {
    Duration twice = batchMaxDuration.multipliedBy(2);
    return twice.compareTo(Duration.ofSeconds(10)) > 0 ? twice : Duration.ofSeconds(10);
  }

  public Options withBatchDurations(Duration idle, Duration max) {
    return new Options(idle, max, scheduler, defaultConstraints, metricsPort, healthProbePort, leaderElection,
        leaderElectionName, leaderElectionNamespace, prebind, disruptionShadowMode, repackConsolidation, paybackHorizon, featureGates, cpuRequests, garbageCollectionPeriod);
  }

  public Options withPorts(int metrics, int healthProbe) {
    return new Options(batchIdleDuration, batchMaxDuration, scheduler, defaultConstraints, metrics, healthProbe,
        leaderElection, leaderElectionName, leaderElectionNamespace, prebind, disruptionShadowMode, repackConsolidation, paybackHorizon, featureGates, cpuRequests, garbageCollectionPeriod);
  }

  public Options withLeaderElection(boolean enabled, String name, String namespace) {
    return new Options(batchIdleDuration, batchMaxDuration, scheduler, defaultConstraints, metricsPort, healthProbePort,
        enabled, name, namespace, prebind, disruptionShadowMode, repackConsolidation, paybackHorizon, featureGates, cpuRequests, garbageCollectionPeriod);
  }

  public Options withPrebind(boolean enabled) {
    return new Options(batchIdleDuration, batchMaxDuration, scheduler, defaultConstraints, metricsPort, healthProbePort,
        leaderElection, leaderElectionName, leaderElectionNamespace, enabled, disruptionShadowMode, repackConsolidation, paybackHorizon, featureGates, cpuRequests, garbageCollectionPeriod);
  }

  public Options withDisruptionShadowMode(boolean enabled) {
    return new Options(batchIdleDuration, batchMaxDuration, scheduler, defaultConstraints, metricsPort, healthProbePort,
        leaderElection, leaderElectionName, leaderElectionNamespace, prebind, enabled, repackConsolidation, paybackHorizon, featureGates, cpuRequests, garbageCollectionPeriod);
  }

  /** Repack consolidation on or off, and the payback horizon of its moves. */
  public Options withRepackConsolidation(boolean enabled, Duration horizon) {
    return new Options(batchIdleDuration, batchMaxDuration, scheduler, defaultConstraints, metricsPort, healthProbePort,
        leaderElection, leaderElectionName, leaderElectionNamespace, prebind, disruptionShadowMode, enabled, horizon, featureGates, cpuRequests, garbageCollectionPeriod);
  }

  public Options withScheduler(SchedulerOptions options, DefaultConstraints constraints) {
    return new Options(batchIdleDuration, batchMaxDuration, options, constraints, metricsPort, healthProbePort,
        leaderElection, leaderElectionName, leaderElectionNamespace, prebind, disruptionShadowMode, repackConsolidation, paybackHorizon, featureGates, cpuRequests, garbageCollectionPeriod);
  }

  public Options withFeatureGates(Map<String, Boolean> gates, int cpu) {
    return new Options(batchIdleDuration, batchMaxDuration, scheduler, defaultConstraints, metricsPort, healthProbePort,
        leaderElection, leaderElectionName, leaderElectionNamespace, prebind, disruptionShadowMode, repackConsolidation, paybackHorizon, gates, cpu, garbageCollectionPeriod);
  }

  /** How often garbage collection runs; upstream's is 2 minutes, tests shorten it to see a leak reclaimed. */
  public Options withGarbageCollectionPeriod(Duration period) {
    return new Options(batchIdleDuration, batchMaxDuration, scheduler, defaultConstraints, metricsPort, healthProbePort,
        leaderElection, leaderElectionName, leaderElectionNamespace, prebind, disruptionShadowMode, repackConsolidation, paybackHorizon, featureGates, cpuRequests,
        period);
  }
}
