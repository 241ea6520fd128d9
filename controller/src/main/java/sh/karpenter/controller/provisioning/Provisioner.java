package sh.karpenter.controller.provisioning;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.Errors;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.TokenBucket;
import sh.karpenter.controller.snapshot.ClusterSnapshot;
import sh.karpenter.controller.snapshot.SnapshotBuilder;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.controller.state.PodRef;
import sh.karpenter.controller.state.StateSnapshot;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.Deadline;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.PodError;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulingResult;

/**
 * The {@code provisioner} singleton (upstream provisioning/provisioner.go): waits for a batch of
 * triggers, takes a snapshot of cluster state, runs the scheduling simulation and creates the
 * NodeClaims it asks for, in parallel. Pods planned onto new NodeClaims or existing (or in-flight)
 * capacity are nominated there and told so with a {@code Nominated} event; pods nothing can take
 * get a {@code FailedScheduling} warning with the scheduler's reason, followed by the NodePools left
 * out because they are not Ready (upstream uses only Ready NodePools). A NodeClaim that fails to be
 * created is logged and its pods stay pending for the next batch.
 *
 * <p>{@link #reconcile()} is the body of a {@code SingletonLoop}; {@link #provision()} is one pass
 * without waiting for a batch.
 */
public final class Provisioner {
  /** The controller name (metrics, logs). */
  public static final String NAME = "provisioner";
  /** The {@code karpenter_nodeclaims_created_total} reason of NodeClaims created here. */
  public static final String REASON = "provisioning";
  static final Duration UNSYNCED_REQUEUE = Duration.ofSeconds(1);
  /**
   * Upstream's solve timeout: a pass stops trying pods after a minute; what it placed is created, and
   * the pods it did not try stay pending for the next batch (docs/behaviour/scheduling.md#solve-timeout).
   */
  static final Duration SOLVE_TIMEOUT = Duration.ofMinutes(1);
  static final Duration FAILED_SCHEDULING_DEDUPE = Duration.ofMinutes(5);
  static final Duration NO_COMPATIBLE_INSTANCE_TYPES_DEDUPE = Duration.ofMinutes(1);

  public static final String NOMINATED = "Nominated";
  public static final String FAILED_SCHEDULING = "FailedScheduling";
  public static final String NO_COMPATIBLE_INSTANCE_TYPES = "NoCompatibleInstanceTypes";

  private static final Logger LOG = LoggerFactory.getLogger(Provisioner.class);
  private static final int MAX_MESSAGE = 1024;

  private final KubernetesClient client;
  private final ClusterState state;
  private final Batcher batcher;
  private final EventRecorder recorder;
  private final Metrics metrics;
  private final Clock clock;
  private final Options options;
  private final TokenBucket nominationEvents;

  /** What one pass did. */
  public record Pass(
      List<NodeClaim> created,
      List<PlannedNodeClaim> failed,
      Map<String, List<String>> existingPlacements,
      List<PodError> unschedulable,
      List<PodError> rejected) {
    static final Pass EMPTY = new Pass(List.of(), List.of(), Map.of(), List.of(), List.of());
  }

  public Provisioner(
      KubernetesClient client,
      ClusterState state,
      Batcher batcher,
      EventRecorder recorder,
      Metrics metrics,
      Clock clock,
      Options options) {
    this.client = client;
    this.state = state;
    this.batcher = batcher;
    this.recorder = recorder;
    this.metrics = metrics;
    this.clock = clock;
    this.options = options;
    this.nominationEvents = new TokenBucket(5, 10, clock); // upstream PodNominationRateLimiter
  }

  /**
   * The singleton body: waits for a batch (returning at once to be called again when none opened
   * within a second), requeues shortly while cluster state is not synced, else provisions.
   */
  public Result reconcile() throws InterruptedException {
    if (!batcher.waitForBatch()) {
      return Result.requeueAfter(Duration.ZERO);
    }
    if (!state.synced()) {
      LOG.debug("waiting on cluster sync");
      return Result.requeueAfter(UNSYNCED_REQUEUE);
    }
    provision();
    return Result.requeueAfter(Duration.ZERO);
  }

  /** One provisioning pass over the current cluster state. Never throws for bad input. */
  public Pass provision() {
    StateSnapshot snapshot;
    try {
      snapshot = state.provisioningSnapshot();
    } catch (RuntimeException e) {
      LOG.error("could not read cluster state for provisioning", e);
      return Pass.EMPTY;
    }
    ClusterSnapshot cluster = snapshot.cluster();
    List<PodError> rejected = rejected(snapshot);
    metrics.ignoredPods(rejected.size());
    for (StateSnapshot.InvalidObject invalid : snapshot.invalid()) {
      if (invalid.object() instanceof Pod pod) {
        failedScheduling(pod, invalid.problem());
      }
    }
    if (cluster.pendingPods().isEmpty()) {
      metrics.schedulerQueueDepth(NAME, 0);
      return new Pass(List.of(), List.of(), Map.of(), List.of(), rejected);
    }
    noCompatibleInstanceTypes(snapshot);
    snapshot.notReadyNodePools().forEach((name, why) ->
        LOG.atInfo().setMessage("ignoring nodepool, " + why).addKeyValue("NodePool", LogValues.ref(name)).log());

    metrics.schedulerQueueDepth(NAME, cluster.pendingPods().size());
    Instant start = clock.instant();
    SchedulingResult result;
    try {
      result = new Scheduler(cluster.schedulingInput(options.scheduler())).solve(Deadline.after(clock, SOLVE_TIMEOUT));
    } catch (RuntimeException e) {
      LOG.atError().setMessage("scheduling simulation failed").addKeyValue("pending-pods", cluster.pendingPods().size()).setCause(e).log();
      return new Pass(List.of(), List.of(), Map.of(), List.of(), rejected);
    } finally {
      metrics.schedulingDuration(NAME, Duration.between(start, clock.instant()));
    }
    if (result.timedOut()) {
      LOG.atInfo().setMessage("scheduling simulation timed out").addKeyValue("duration", Duration.between(start, clock.instant()))
          .addKeyValue("pods", cluster.pendingPods().size()).addKeyValue("deferred-pods", result.deferred().size()).log();
    }
    if (result.newNodeClaims().isEmpty()) {
      LOG.atDebug().setMessage("computed scheduling decision for provisionable pod(s)").addKeyValue("pods", cluster.pendingPods().size())
          .addKeyValue("existing-nodes", result.existingNodePlacements().size()).addKeyValue("unschedulable-pods", result.unschedulable().size()).log();
    } else {
      LOG.atInfo().setMessage("computed new nodeclaim(s) to fit pod(s)").addKeyValue("pods", cluster.pendingPods().size())
          .addKeyValue("nodeclaims", result.newNodeClaims().size()).addKeyValue("existing-nodes", result.existingNodePlacements().size())
          .addKeyValue("unschedulable-pods", result.unschedulable().size()).log();
    }

    List<NodeClaim> created = new ArrayList<>();
    List<PlannedNodeClaim> failed = new ArrayList<>();
    create(snapshot, result.newNodeClaims(), created, failed);

    Map<String, List<String>> placements = new java.util.TreeMap<>();
    result.existingNodePlacements().forEach((node, pods) -> {
      for (sh.karpenter.core.pod.Pod pod : pods) {
        state.nominate(pod.key(), node);
        nominated(snapshot, pod, snapshot.describe(node));
        decided(pod);
      }
      placements.put(node, pods.stream().map(sh.karpenter.core.pod.Pod::key).toList());
    });

    List<PodError> unschedulable = new ArrayList<>(result.unschedulable().size());
    String notReady = notReadyNodePools(snapshot);
    for (PodError core : result.unschedulable()) {
      PodError error = notReady.isEmpty() ? core : new PodError(core.pod(), core.reason() + "; " + notReady);
      unschedulable.add(error);
      state.unschedulable(error.pod().key());
      snapshot.pod(error.pod().key()).ifPresent(pod -> failedScheduling(pod, error.reason()));
      decided(error.pod());
    }
    metrics.unschedulablePods(NAME, unschedulable.size());
    return new Pass(List.copyOf(created), List.copyOf(failed), placements, List.copyOf(unschedulable), rejected);
  }

  /**
   * NodeClaim creates in flight at once: a burst of hundreds still goes out in parallel, without
   * hundreds of requests waiting on the API server at the same moment.
   */
  static final int MAX_PARALLEL_CREATES = 50;

  /** Creates the planned NodeClaims in parallel (each nominates its pods), then tells the pods and records the prebindings. */
  private void create(StateSnapshot snapshot, List<PlannedNodeClaim> plans, List<NodeClaim> created, List<PlannedNodeClaim> failed) {
    if (plans.isEmpty()) {
      return;
    }
    Map<String, Resources> usage = state.nodePoolUsage();
    List<Future<NodeClaim>> futures = new ArrayList<>(plans.size());
    Semaphore inFlight = new Semaphore(MAX_PARALLEL_CREATES);
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      for (PlannedNodeClaim plan : plans) {
        futures.add(executor.submit(() -> {
          inFlight.acquire();
          try {
            return createOne(snapshot, plan, usage);
          } finally {
            inFlight.release();
          }
        }));
      }
    }
    for (int i = 0; i < plans.size(); i++) {
      PlannedNodeClaim plan = plans.get(i);
      NodeClaim claim;
      try {
        claim = futures.get(i).get();
      } catch (Exception e) {
        claim = null; // createOne logs its own failures; this is an interrupted wait
      }
      if (claim == null) {
        failed.add(plan);
        continue;
      }
      created.add(claim);
      String name = claim.getMetadata().getName();
      state.nodeClaimCreated(claim);
      metrics.nodeClaimCreated(plan.nodePoolName(), REASON, plan.minValuesRelaxed());
      List<PodRef> refs = new ArrayList<>(plan.pods().size());
      for (sh.karpenter.core.pod.Pod pod : plan.pods()) {
        nominated(snapshot, pod, "nodeclaim/" + name);
        decided(pod);
        refs.add(new PodRef(pod.namespace(), pod.name(), pod.uid()));
      }
      if (options.prebind()) {
        state.prebind(name, refs);
      }
    }
  }

  /** Creates one NodeClaim; null (after logging) when its pool is gone, over its limits, or the API refuses. */
  private NodeClaim createOne(StateSnapshot snapshot, PlannedNodeClaim plan, Map<String, Resources> usage) {
    NodePool pool = snapshot.nodePools().get(plan.nodePoolName());
    if (pool == null) {
      LOG.atWarn().setMessage("not creating a NodeClaim: its NodePool is gone").addKeyValue("NodePool", LogValues.ref(plan.nodePoolName()))
          .addKeyValue("pods", plan.pods().size()).log();
      return null;
    }
    String exceeded = exceededLimit(pool, usage.getOrDefault(plan.nodePoolName(), Resources.EMPTY));
    if (exceeded != null) {
      LOG.atWarn().setMessage("not creating a NodeClaim: NodePool " + exceeded).addKeyValue("NodePool", LogValues.ref(plan.nodePoolName()))
          .addKeyValue("pods", plan.pods().size()).log();
      return null;
    }
    try {
      NodeClaim claim = NodeClaimFactory.create(plan, pool);
      NodeClaim created = NodeClaimCreate.create(client, claim);
      LOG.atInfo().setMessage("created nodeclaim").addKeyValue("NodePool", LogValues.ref(plan.nodePoolName()))
          .addKeyValue("NodeClaim", LogValues.ref(created.getMetadata().getName())).addKeyValue("requests", plan.requests().toQuantities())
          .addKeyValue("instance-types", describeTypes(plan)).addKeyValue("pods", plan.pods().size()).log();
      // Nominated as soon as the NodeClaim exists (upstream maps pods to it right after Create), so a
      // launch that fails at once already knows which pods to tell.
      for (sh.karpenter.core.pod.Pod pod : plan.pods()) {
        state.nominate(pod.key(), created.getMetadata().getName());
      }
      return created;
    } catch (RuntimeException e) {
      // the pods stay pending and are tried again in the next batch
      LOG.atError().setMessage("creating nodeclaim failed").addKeyValue("NodePool", LogValues.ref(plan.nodePoolName()))
          .addKeyValue("pods", plan.pods().size()).addKeyValue("error", Errors.describe(e)).log();
      return null;
    }
  }

  /** Upstream's {@code Limits.ExceededBy}: a message when current usage is already over a limit, else null. */
  static String exceededLimit(NodePool pool, Resources usage) {
    var limits = pool.getSpec() == null ? null : pool.getSpec().getLimits();
    if (limits == null) {
      return null;
    }
    for (var entry : new java.util.TreeMap<>(limits).entrySet()) {
      long limit;
      try {
        limit = Quantity.parseMilli(entry.getValue().toString());
      } catch (IllegalArgumentException | ArithmeticException e) {
        continue;
      }
      long used = usage.milli(entry.getKey());
      if (used > limit) {
        return entry.getKey() + " resource usage of " + Quantity.format(entry.getKey(), used)
            + " exceeds limit of " + Quantity.format(entry.getKey(), limit);
      }
    }
    return null;
  }

  private static String describeTypes(PlannedNodeClaim plan) {
    List<String> names = plan.instanceTypeOptions().stream().limit(5).map(t -> t.name()).toList();
    int more = plan.instanceTypeOptions().size() - names.size();
    return String.join(", ", names) + (more > 0 ? " and " + more + " other(s)" : "");
  }

  /** Rejected pods that deserve an event (those asking not to run on Karpenter nodes are ignored silently). */
  private List<PodError> rejected(StateSnapshot snapshot) {
    List<PodError> rejected = new ArrayList<>();
    for (PodError error : snapshot.cluster().rejectedPods()) {
      rejected.add(error);
      if (SnapshotBuilder.ignoredSilently(error.reason())) {
        continue;
      }
      snapshot.pod(error.pod().key()).ifPresent(pod -> failedScheduling(pod, error.reason()));
    }
    return Collections.unmodifiableList(rejected);
  }

  /** NodePools named in an unschedulable pod's reason, at most. */
  static final int MAX_NOT_READY_NAMED = 3;

  /**
   * What to add to an unschedulable pod's reason about the NodePools left out because they are not
   * Ready ({@code nodepool "a" not ready (Ready=False, NodeClassNotFound: ...)}), or "" when none is:
   * a pod whose NodePool is not Ready says so instead of only "no NodePool can launch nodes".
   */
  static String notReadyNodePools(StateSnapshot snapshot) {
    if (snapshot.notReadyNodePools().isEmpty()) {
      return "";
    }
    List<String> named = snapshot.notReadyNodePools().entrySet().stream().limit(MAX_NOT_READY_NAMED)
        .map(e -> "nodepool \"" + e.getKey() + "\" " + e.getValue()).toList();
    int more = snapshot.notReadyNodePools().size() - named.size();
    return "ignored " + String.join("; ", named) + (more > 0 ? "; and " + more + " other nodepool(s) not ready" : "");
  }

  /** {@code NoCompatibleInstanceTypes} on each NodePool that offers no instance type its requirements allow. */
  private void noCompatibleInstanceTypes(StateSnapshot snapshot) {
    for (NodeClaimTemplate template : snapshot.cluster().templates()) {
      if (InstanceTypes.compatible(template.instanceTypes(), template.requirements()).isEmpty()) {
        NodePool pool = snapshot.nodePools().get(template.nodePoolName());
        if (pool != null) {
          recorder.publish(pool, EventRecorder.WARNING, NO_COMPATIBLE_INSTANCE_TYPES,
              "NodePool requirements filtered out all compatible available instance types", NO_COMPATIBLE_INSTANCE_TYPES_DEDUPE);
        }
      }
    }
  }

  private void nominated(StateSnapshot snapshot, sh.karpenter.core.pod.Pod pod, String where) {
    Optional<Pod> object = snapshot.pod(pod.key());
    if (object.isPresent() && nominationEvents.tryAcquire()) {
      recorder.publish(object.get(), EventRecorder.NORMAL, NOMINATED, "Pod should schedule on: " + where, EventRecorder.DEFAULT_DEDUPE);
    }
  }

  private void failedScheduling(Pod pod, String reason) {
    String message = "Failed to schedule pod, " + reason;
    if (message.length() > MAX_MESSAGE) {
      message = message.substring(0, MAX_MESSAGE - 3) + "...";
    }
    recorder.publish(pod, EventRecorder.WARNING, FAILED_SCHEDULING, message, FAILED_SCHEDULING_DEDUPE);
  }

  private void decided(sh.karpenter.core.pod.Pod pod) {
    if (pod.uid() != null) {
      state.podDecided(pod.uid()).ifPresent(metrics::podSchedulingDecision);
    }
  }
}
