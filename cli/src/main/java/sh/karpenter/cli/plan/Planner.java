package sh.karpenter.cli.plan;

import java.util.List;
import java.util.function.Consumer;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.core.cost.LowerBound;
import sh.karpenter.core.cost.SchedulingLowerBound;
import sh.karpenter.controller.snapshot.ClusterSnapshot;
import sh.karpenter.controller.snapshot.SnapshotBuilder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.topology.DefaultConstraints;

/**
 * One offline provisioning pass: manifests in, {@link PlanReport} out. Every NodePool is offered the
 * whole catalogue, as a cloud provider without NodeClass restrictions would.
 */
public final class Planner {
  /**
   * Pods expanded from workloads at most, by default: Kubernetes' scalability limits (the largest
   * clusters it is tested with) are 150,000 pods.
   */
  public static final int DEFAULT_MAX_EXPANDED_PODS = 150_000;

  private final InstanceTypeCatalog catalog;
  private final SchedulerOptions options;
  private final DefaultConstraints defaultConstraints;
  private int maxExpandedPods = DEFAULT_MAX_EXPANDED_PODS;

  public Planner(InstanceTypeCatalog catalog, SchedulerOptions options) {
    this(catalog, options, DefaultConstraints.NONE);
  }

  /** @param defaultConstraints the default topology spread of {@code --scheduler-config} */
  public Planner(InstanceTypeCatalog catalog, SchedulerOptions options, DefaultConstraints defaultConstraints) {
    this.catalog = catalog;
    this.options = options;
    this.defaultConstraints = defaultConstraints;
  }

  /** Caps the pods expanded from workloads ({@code --max-expanded-pods}). */
  public Planner maxExpandedPods(int max) {
    this.maxExpandedPods = max;
    return this;
  }

  /**
   * Plans for the given objects.
   *
   * @param warnings receives one line per object that plays no part in the plan, or only in part, and
   *     the snapshot's {@linkplain ClusterSnapshot#warnings() warnings}
   * @throws sh.karpenter.controller.snapshot.SnapshotInputException when an object is invalid
   */
  public PlanReport plan(List<ManifestReader.PlanManifest> manifests, Consumer<String> warnings) {
    SnapshotBuilder builder =
        new SnapshotBuilder(pool -> catalog.instanceTypes())
            .defaultConstraints(defaultConstraints)
            .maxExpandedPods(maxExpandedPods, "--max-expanded-pods");
    for (ManifestReader.PlanManifest manifest : manifests) {
      if (manifest.object() instanceof EC2NodeClass) {
        continue; // read by --aws-endpoint for its settings; the snapshot has no NodeClasses
      }
      if (!builder.add(manifest.object(), manifest.origin())) {
        warnings.accept(manifest.origin() + ": " + manifest.object().getKind() + " is not part of a plan; ignored");
      }
    }
    ClusterSnapshot snapshot = builder.build();
    snapshot.warnings().forEach(warnings);
    SchedulingInput input = snapshot.schedulingInput(options);
    // The bound is taken after the solve, on this thread: run beside it (an earlier version did), the
    // two threads' first linear programs could deadlock in ojAlgo's class initialisation.
    long start = System.nanoTime();
    SchedulingResult result = new Scheduler(input).solve();
    long solveMillis = (System.nanoTime() - start) / 1_000_000;
    long boundStart = System.nanoTime();
    LowerBound bound = SchedulingLowerBound.of(input, result.placedPods());
    long boundMillis = (System.nanoTime() - boundStart) / 1_000_000;
    return PlanReports.of(snapshot, result, bound, solveMillis, boundMillis);
  }
}
