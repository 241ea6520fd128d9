package sh.karpenter.controller.nodeclaim.lifecycle;

import static sh.karpenter.api.v1.ConditionTypes.LAUNCHED;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.TokenBucket;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.controller.runtime.writes.StatusConditions;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.CreateException;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * Launch: asks the cloud provider for the NodeClaim's instance and records it (labels, annotations,
 * providerID, imageID, capacity, allocatable, {@code Launched=True}). Insufficient capacity or a
 * NodeClass that is not ready delete the NodeClaim, so the provisioner tries again with fresh
 * offerings; any other error leaves {@code Launched=Unknown} with the reason and is retried with
 * backoff until the liveness timeout.
 *
 * <p>Insufficient capacity is also told, with an {@code InsufficientCapacityError} event, to each pod
 * nominated to the NodeClaim that is still waiting for a node (not bound, finished or terminating), so
 * users see why their pods stay pending without Karpenter's logs (upstream v1.15; these events are
 * limited to 5 per second, bursts of 10).
 */
final class Launch implements Step {
  private static final Logger LOG = LoggerFactory.getLogger(Launch.class);

  static final String LAUNCH_FAILED = "LaunchFailed";
  static final String INVALID_NODE_CLAIM = "InvalidNodeClaim";
  /** Event reasons (docs/behaviour/observability.md#events). */
  static final String INSUFFICIENT_CAPACITY_EVENT = "InsufficientCapacityError";
  static final String NODE_CLASS_NOT_READY_EVENT = "NodeClassNotReady";
  /** {@code nodeclaims_disrupted_total} reasons. */
  static final String INSUFFICIENT_CAPACITY_REASON = "insufficient_capacity";
  static final String NODE_CLASS_NOT_READY_REASON = "nodeclass_not_ready";

  private final KubernetesClient client;
  private final CloudProvider cloudProvider;
  private final LaunchCache cache;
  private final EventRecorder events;
  private final Metrics metrics;
  private final Function<String, List<Pod>> nominatedPods;
  /** Upstream's {@code InsufficientCapacityErrorPodRateLimiter}. */
  private final TokenBucket podEvents;

  /**
   * @param nominatedPods the pods nominated to a NodeClaim (by name), as the informer has them
   */
  Launch(KubernetesClient client, CloudProvider cloudProvider, LaunchCache cache, EventRecorder events, Metrics metrics,
      Function<String, List<Pod>> nominatedPods, Clock clock) {
    this.client = client;
    this.cloudProvider = cloudProvider;
    this.cache = cache;
    this.events = events;
    this.metrics = metrics;
    this.nominatedPods = nominatedPods;
    this.podEvents = new TokenBucket(5, 10, clock);
  }

  @Override
  public Result reconcile(LifecycleState state) {
    if (!Conditions.isUnknown(state.conditions(), LAUNCHED)) {
      return Result.done();
    }
    NodeClaim nodeClaim = state.nodeClaim();
    String name = nodeClaim.getMetadata().getName();
    Optional<Instance> cached = cache.get(nodeClaim.getMetadata().getUid());
    Instance instance;
    if (cached.isPresent()) {
      instance = cached.get();
    } else {
      LaunchRequest request;
      try {
        request = LaunchRequests.from(nodeClaim);
      } catch (IllegalArgumentException e) {
        // Retrying cannot help: the liveness timeout deletes the NodeClaim.
        LOG.atWarn().setMessage("nodeclaim cannot be launched").addKeyValue("NodeClaim", LogValues.ref(name))
            .addKeyValue("error", String.valueOf(e.getMessage())).log();
        state.setCondition(LAUNCHED, Conditions.UNKNOWN, INVALID_NODE_CLAIM, StatusConditions.truncate(e.getMessage()));
        return Result.done();
      }
      try {
        instance = cloudProvider.create(request);
      } catch (InsufficientCapacityException e) {
        giveUp(state, e, INSUFFICIENT_CAPACITY_EVENT, INSUFFICIENT_CAPACITY_REASON);
        tellNominatedPods(nodeClaim, e);
        return Result.done();
      } catch (NodeClassNotReadyException e) {
        giveUp(state, e, NODE_CLASS_NOT_READY_EVENT, NODE_CLASS_NOT_READY_REASON);
        return Result.done();
      } catch (CreateException e) {
        state.setCondition(LAUNCHED, Conditions.UNKNOWN, StatusConditions.reason(e.reason(), LAUNCH_FAILED),
            StatusConditions.truncate(e.getMessage()));
        state.fail(new IllegalStateException("launching nodeclaim " + name + ": " + e.getMessage(), e));
        return Result.done();
      } catch (RuntimeException e) {
        state.setCondition(LAUNCHED, Conditions.UNKNOWN, LAUNCH_FAILED, StatusConditions.truncate(String.valueOf(e.getMessage())));
        state.fail(new IllegalStateException("launching nodeclaim " + name + ": " + e.getMessage(), e));
        return Result.done();
      }
      cache.put(nodeClaim.getMetadata().getUid(), instance);
      Instance launched = instance;
      state.afterWrite(() -> LOG.atInfo().setMessage("launched nodeclaim").addKeyValue("NodeClaim", LogValues.ref(name))
          .addKeyValue("provider-id", launched.providerId()).addKeyValue("instance-type", launched.instanceType())
          .addKeyValue("zone", launched.zone()).addKeyValue("capacity-type", launched.capacityType())
          .addKeyValue("allocatable", launched.allocatable().toQuantities()).log());
    }
    populate(nodeClaim, instance);
    state.setCondition(LAUNCHED, Conditions.TRUE, LAUNCHED, "");
    return Result.done();
  }

  /** Deletes a NodeClaim the provider cannot launch now, so that its pods are provisioned afresh. */
  private void giveUp(LifecycleState state, RuntimeException error, String eventReason, String metricReason) {
    NodeClaim nodeClaim = state.nodeClaim();
    String name = nodeClaim.getMetadata().getName();
    LOG.atError().setMessage("failed launching nodeclaim").addKeyValue("NodeClaim", LogValues.ref(name))
        .addKeyValue("error", String.valueOf(error.getMessage())).log();
    events.warning(nodeClaim, eventReason, "NodeClaim " + name + " event: " + StatusConditions.truncate(error.getMessage()));
    // Locked to the version the decision was made on: a stale cache must not delete (and count) twice.
    // A conflict propagates, and the reconcile starts over from a fresh copy.
    OptimisticWrites.deleteAt(client.resources(NodeClaim.class).withName(name), nodeClaim.getMetadata().getResourceVersion());
    state.markDeleted();
    metrics.nodeClaimDisrupted(DisruptionLabels.of(nodeClaim, metricReason));
  }

  /**
   * An {@code InsufficientCapacityError} event on each pod nominated to the NodeClaim that still waits
   * for a node (upstream's {@code publishPodInsufficientCapacityEvents}).
   */
  void tellNominatedPods(NodeClaim nodeClaim, RuntimeException error) {
    String name = nodeClaim.getMetadata().getName();
    String message = StatusConditions.truncate("NodeClaim " + name + " nominated for this pod failed to launch: " + error.getMessage());
    for (Pod pod : nominatedPods.apply(name)) {
      if (waiting(pod) && podEvents.tryAcquire()) {
        events.warning(pod, INSUFFICIENT_CAPACITY_EVENT, message);
      }
    }
  }

  /** Neither bound to a node, finished, nor terminating: the event would otherwise mislead. */
  static boolean waiting(Pod pod) {
    return !Pods.bound(pod) && Pods.active(pod);
  }

  /**
   * Copies what the provider resolved onto the NodeClaim, in upstream's priority order: the
   * provider's labels (and its instance type, zone and capacity type), then labels the NodeClaim's
   * single-valued requirements imply, then the NodeClaim's own labels, which win. Annotations from
   * the provider are added (the provider's win). providerID, imageID, capacity and allocatable are
   * set.
   */
  static void populate(NodeClaim nodeClaim, Instance instance) {
    Map<String, String> labels = new LinkedHashMap<>();
    putIfPresent(labels, Labels.INSTANCE_TYPE, instance.instanceType());
    putIfPresent(labels, Labels.ZONE, instance.zone());
    putIfPresent(labels, Labels.CAPACITY_TYPE, instance.capacityType());
    labels.putAll(instance.labels());
    labels.putAll(requirementLabels(nodeClaim));
    if (nodeClaim.getMetadata().getLabels() != null) {
      labels.putAll(nodeClaim.getMetadata().getLabels());
    }
    nodeClaim.getMetadata().setLabels(labels);
    Map<String, String> annotations = new LinkedHashMap<>();
    if (nodeClaim.getMetadata().getAnnotations() != null) {
      annotations.putAll(nodeClaim.getMetadata().getAnnotations());
    }
    annotations.putAll(instance.annotations());
    nodeClaim.getMetadata().setAnnotations(annotations.isEmpty() ? null : annotations);
    var status = nodeClaim.getStatus();
    status.setProviderID(instance.providerId());
    status.setImageID(instance.imageId().isEmpty() ? null : instance.imageId());
    status.setCapacity(quantities(instance.capacity()));
    status.setAllocatable(quantities(instance.allocatable()));
  }

  /**
   * Labels implied by single-valued {@code In} requirements on keys that are neither well known (the
   * provider resolves those) nor restricted.
   */
  static Map<String, String> requirementLabels(NodeClaim nodeClaim) {
    Requirements requirements;
    try {
      requirements = LaunchRequests.requirements(nodeClaim.getSpec() == null ? null : nodeClaim.getSpec().getRequirements());
    } catch (IllegalArgumentException e) {
      return Map.of();
    }
    Map<String, String> labels = new LinkedHashMap<>();
    requirements.labels().forEach((key, value) -> {
      if (!Labels.WELL_KNOWN.contains(key) && !Labels.isRestricted(key)) {
        labels.put(key, value);
      }
    });
    return labels;
  }

  static Map<String, Quantity> quantities(Resources resources) {
    Map<String, Quantity> quantities = new TreeMap<>();
    resources.toQuantities().forEach((name, value) -> quantities.put(name, new Quantity(value)));
    return quantities;
  }

  private static void putIfPresent(Map<String, String> labels, String key, String value) {
    if (value != null && !value.isEmpty()) {
      labels.put(key, value);
    }
  }
}
