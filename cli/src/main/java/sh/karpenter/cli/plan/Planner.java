package sh.karpenter.cli.plan;

import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CancellationException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.core.cost.BoundBudget;
import sh.karpenter.core.cost.LowerBound;
import sh.karpenter.core.cost.SchedulingLowerBound;
import sh.karpenter.controller.snapshot.ClusterSnapshot;
import sh.karpenter.controller.snapshot.SnapshotBuilder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.pod.Pod;
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
  private boolean boundBesideSolve;

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
    // The bound depends only on the set of pods it is taken over. A solve places every pod the
    // bound's relaxation allows unless topology, affinity, volumes or limits stop it, so the bound
    // over those pods is computed beside the solve, on the core the solve leaves to the JIT, and used
    // when the solve placed exactly them (otherwise it is taken again, here, over the pods placed).
    CompletableFuture<Optional<List<Pod>>> guessedPods = new CompletableFuture<>();
    CompletableFuture<TimedBound> guessedBound =
        BackgroundWork.start(
            "plan-lower-bound",
            () -> {
              long begin = System.nanoTime();
              Optional<SchedulingLowerBound.Guess> guess;
              try {
                guess = SchedulingLowerBound.guess(input, BoundBudget.DEFAULT);
              } catch (RuntimeException | Error e) {
                guessedPods.complete(Optional.empty());
                throw e;
              }
              guessedPods.complete(guess.map(SchedulingLowerBound.Guess::pods));
              return guess.map(g -> new TimedBound(g.bound(), (System.nanoTime() - begin) / 1_000_000)).orElse(null);
            });
    long start = System.nanoTime();
    SchedulingResult result = new Scheduler(input).solve();
    long solveMillis = (System.nanoTime() - start) / 1_000_000;
    List<Pod> placed = result.placedPods();
    TimedBound bound = sameSet(guessedPods, placed) ? guessedBound(guessedBound) : null;
    boundBesideSolve = bound != null;
    if (bound == null) {
      bound = TimedBound.of(input, placed);
    }
    return PlanReports.of(snapshot, result, bound.bound(), solveMillis, bound.millis());
  }

  /** Whether the last {@link #plan}'s lower bound is the one computed beside its solve (for tests). */
  boolean boundBesideSolve() {
    return boundBesideSolve;
  }

  /** A lower bound and the wall-clock milliseconds it took. */
  private record TimedBound(LowerBound bound, long millis) {
    static TimedBound of(SchedulingInput input, List<Pod> pods) {
      long start = System.nanoTime();
      LowerBound bound = SchedulingLowerBound.of(input, pods);
      return new TimedBound(bound, (System.nanoTime() - start) / 1_000_000);
    }
  }

  /** Whether the pods guessed before the solve are (as a set of the same objects) the pods it placed. */
  private static boolean sameSet(CompletableFuture<Optional<List<Pod>>> guessed, List<Pod> placed) {
    Optional<List<Pod>> pods = guessed.join();
    if (pods.isEmpty() || pods.get().size() != placed.size()) {
      return false;
    }
    Set<Pod> set = Collections.newSetFromMap(new IdentityHashMap<>());
    set.addAll(pods.get());
    return placed.stream().allMatch(set::contains) && set.size() == placed.size();
  }

  /** The bound computed beside the solve; null when it failed (it is then computed again, here). */
  private static TimedBound guessedBound(CompletableFuture<TimedBound> future) {
    try {
      return future.join();
    } catch (CompletionException | CancellationException e) {
      return null;
    }
  }
}
