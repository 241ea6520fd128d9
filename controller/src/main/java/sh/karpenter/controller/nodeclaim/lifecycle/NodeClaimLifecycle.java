package sh.karpenter.controller.nodeclaim.lifecycle;

import static sh.karpenter.api.v1.ConditionTypes.INITIALIZED;
import static sh.karpenter.api.v1.ConditionTypes.LAUNCHED;
import static sh.karpenter.api.v1.ConditionTypes.REGISTERED;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.nodepool.NodePoolRegistrationHealth;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.controller.runtime.writes.StatusConditions;
import sh.karpenter.controller.state.nodepoolhealth.NodePoolHealth;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.wellknown.Finalizers;

/**
 * The {@code nodeclaim.lifecycle} controller (docs/behaviour/nodeclaim-lifecycle.md), keyed by
 * NodeClaim name: takes a NodeClaim from creation to an initialized Node through {@link Launch},
 * {@link Registration}, {@link Initialization} and {@link Liveness}, rolls their conditions up into
 * {@code Ready}, and runs {@link Finalization} once the NodeClaim is deleted.
 *
 * <p>NodeClaims whose nodeClassRef names a kind the cloud provider does not support are left alone.
 * Each reconcile reads the NodeClaim from the informer cache, lets the steps change a copy, then
 * writes the metadata (merge patch) and the status (status subresource), both locked to the
 * resourceVersion read. On a conflict it re-reads the NodeClaim from the API server and runs again;
 * the launch cache keeps a rerun from launching a second instance. Metrics and logs of a step happen
 * only once its changes are written. The result asks to be requeued when the next step can make
 * progress: while waiting for the Node, and at the liveness deadline.
 */
public final class NodeClaimLifecycle implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(NodeClaimLifecycle.class);

  /** Controller name, as upstream. */
  public static final String NAME = "nodeclaim.lifecycle";
  /** Kind label of the condition-transition metrics. */
  static final String KIND = "nodeclaim";

  private final KubernetesClient client;
  private final Informers informers;
  private final Clock clock;
  private final Metrics metrics;
  private final KubernetesSerialization serialization;
  private final CloudProvider cloudProvider;
  private final List<Step> steps;
  private final Finalization finalization;

  /**
   * A lifecycle with registration health of its own (tests; the operator shares one with the
   * {@code nodepool.registrationhealth} controller).
   *
   * @param nominatedPods the pods nominated to a NodeClaim, by its name ({@code ClusterState::podsNominatedTo}):
   *     a launch that fails for insufficient capacity tells them
   */
  public NodeClaimLifecycle(KubernetesClient client, Informers informers, CloudProvider cloudProvider, Clock clock, EventRecorder events,
      Metrics metrics, Function<String, List<Pod>> nominatedPods) {
    this(client, informers, cloudProvider, clock, events, metrics, nominatedPods,
        new NodePoolRegistrationHealth(client, informers, cloudProvider, clock, metrics, new NodePoolHealth()));
  }

  /**
   * @param nominatedPods the pods nominated to a NodeClaim, by its name ({@code ClusterState::podsNominatedTo}):
   *     a launch that fails for insufficient capacity tells them
   * @param registrationHealth told when a NodeClaim registers and when liveness deletes one
   *     (shared with the {@code nodepool.registrationhealth} controller)
   */
  public NodeClaimLifecycle(KubernetesClient client, Informers informers, CloudProvider cloudProvider, Clock clock, EventRecorder events,
      Metrics metrics, Function<String, List<Pod>> nominatedPods, NodePoolRegistrationHealth registrationHealth) {
    this.client = client;
    this.informers = informers;
    this.clock = clock;
    this.metrics = metrics;
    this.serialization = client.getKubernetesSerialization();
    this.cloudProvider = cloudProvider;
    LaunchCache cache = new LaunchCache(clock);
    this.steps = List.of(
        new Launch(client, cloudProvider, cache, events, metrics, nominatedPods, clock),
        new Registration(client, informers, events, metrics, registrationHealth),
        new Initialization(client, informers),
        new Liveness(client, metrics, registrationHealth));
    this.finalization = new Finalization(client, informers, cloudProvider, cache, clock, metrics);
  }

  @Override
  public Result reconcile(String name) {
    return OptimisticWrites.retryOnConflict(NodeClaims.get(client, informers, name), nodeClaim -> {
      if (nodeClaim == null || !NodeClaims.isManaged(nodeClaim, cloudProvider)) {
        return Result.done();
      }
      return Metadata.deleting(nodeClaim) ? finalization.reconcile(nodeClaim) : reconcileLive(nodeClaim);
    }, () -> {
      LOG.debug("nodeclaim {} changed while reconciling, retrying with a fresh copy", name);
      return NodeClaims.fresh(client, name);
    });
  }

  private Result reconcileLive(NodeClaim stored) {
    String name = stored.getMetadata().getName();
    if (!Metadata.hasFinalizer(stored, Finalizers.TERMINATION)) {
      // Before launching: an instance must never exist without the finalizer that cleans it up.
      stored = OptimisticWrites.mergePatch(client.resources(NodeClaim.class).withName(name), serialization,
          stored.getMetadata().getResourceVersion(),
          OptimisticWrites.metadata(Map.of("finalizers", OptimisticWrites.withFinalizer(stored, Finalizers.TERMINATION))));
    }
    LifecycleState state = new LifecycleState(serialization.clone(stored), clock.instant());
    for (String type : List.of(LAUNCHED, REGISTERED, INITIALIZED)) {
      if (Conditions.get(state.conditions(), type).isEmpty()) {
        state.setCondition(type, Conditions.UNKNOWN, "AwaitingReconciliation", "object is awaiting reconciliation");
      }
    }
    Result result = Result.done();
    for (Step step : steps) {
      result = result.min(step.reconcile(state));
      if (state.deleted()) {
        break;
      }
    }
    if (!state.deleted()) {
      state.status().setConditions(StatusConditions.sorted(StatusConditions.rollUp(
          state.conditions(), StatusConditions.NODE_CLAIM_DEPENDENTS, state.now(), stored.getMetadata().getGeneration())));
      write(stored, state);
    }
    state.afterWriteActions().forEach(Runnable::run);
    if (state.failure() != null) {
      throw state.failure();
    }
    return state.deleted() ? Result.done() : result;
  }

  /** Writes what the steps changed: labels and annotations, then the status. */
  private void write(NodeClaim stored, LifecycleState state) {
    NodeClaim desired = state.nodeClaim();
    String name = stored.getMetadata().getName();
    NodeClaim current = stored;
    Map<String, Object> metadata = new LinkedHashMap<>();
    if (!Objects.equals(orEmpty(stored.getMetadata().getLabels()), orEmpty(desired.getMetadata().getLabels()))) {
      metadata.put("labels", desired.getMetadata().getLabels());
    }
    if (!Objects.equals(orEmpty(stored.getMetadata().getAnnotations()), orEmpty(desired.getMetadata().getAnnotations()))) {
      metadata.put("annotations", desired.getMetadata().getAnnotations());
    }
    if (!metadata.isEmpty()) {
      current = OptimisticWrites.mergePatch(client.resources(NodeClaim.class).withName(name), serialization,
          stored.getMetadata().getResourceVersion(), OptimisticWrites.metadata(metadata));
      if (!json(normalized(current)).equals(json(normalized(stored)))) {
        // Someone else changed the status in between: writing ours over it would lose their change.
        throw conflict(name);
      }
    }
    List<Condition> before = stored.getStatus() == null ? null : stored.getStatus().getConditions();
    if (!json(desired.getStatus()).equals(json(normalized(stored)))) {
      NodeClaim update = serialization.clone(current);
      update.setStatus(desired.getStatus());
      client.resources(NodeClaim.class).resource(update).updateStatus();
    }
    StatusConditions.recordTransitions(metrics, KIND, before, desired.getStatus().getConditions(), state.now());
  }

  /** The stored status with its conditions in the order the lifecycle writes them. */
  private NodeClaimStatus normalized(NodeClaim nodeClaim) {
    var status = nodeClaim.getStatus() == null ? new NodeClaimStatus() : serialization.clone(nodeClaim.getStatus());
    status.setConditions(StatusConditions.sorted(status.getConditions()));
    return status;
  }

  private JsonNode json(Object value) {
    return serialization.convertValue(value, JsonNode.class);
  }

  private static Map<String, String> orEmpty(Map<String, String> map) {
    return map == null ? Map.of() : map;
  }

  private static KubernetesClientException conflict(String name) {
    return new KubernetesClientException(
        "nodeclaim " + name + " status changed concurrently", 409, null);
  }
}
