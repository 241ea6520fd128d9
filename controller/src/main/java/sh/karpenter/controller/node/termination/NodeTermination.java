package sh.karpenter.controller.node.termination;

import static sh.karpenter.api.v1.ConditionTypes.DISRUPTION_REASON;
import static sh.karpenter.api.v1.ConditionTypes.DRAINED;
import static sh.karpenter.api.v1.ConditionTypes.INSTANCE_TERMINATING;
import static sh.karpenter.api.v1.ConditionTypes.VOLUMES_DETACHED;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Finalizers;
import sh.karpenter.core.wellknown.Labels;

/**
 * The {@code node.termination} controller (docs/behaviour/termination.md), keyed by Node name:
 * honours the {@code karpenter.sh/termination} finalizer of a deleted Node.
 *
 * <ol>
 *   <li>Deletes the Node's NodeClaim (looked up by provider ID) unless it is deleting already.
 *   <li>A NotReady Node whose instance the cloud provider no longer knows loses its finalizer at
 *       once: there is nothing left to drain.
 *   <li>Reads the node's deadline from the NodeClaim's {@code
 *       karpenter.sh/nodeclaim-termination-timestamp} (deletionTimestamp + terminationGracePeriod,
 *       written by NodeClaim finalization; none when absent) and announces it ({@code
 *       TerminationGracePeriodExpiring}).
 *   <li>Taints the Node {@code karpenter.sh/disrupted:NoSchedule} and labels it {@code
 *       node.kubernetes.io/exclude-from-external-load-balancers=karpenter}.
 *   <li>Drains it ({@link DrainPlan}): hands the current tier's evictable pods to the {@link
 *       EvictionQueue}, deletes pods whose grace period would overrun the deadline, and waits
 *       ({@code Drained=False}, {@code FailedDraining}) until no pod is left to wait for and at least
 *       {@link #MIN_DRAIN_TIME} has passed since the drain started, so that a pod bound just before
 *       the taint landed is still seen; then {@code Drained=True}.
 *   <li>Waits for the VolumeAttachments of drained pods to go ({@code VolumesDetached};
 *       {@code AwaitingVolumeDetachment}), unless the deadline has passed.
 *   <li>Calls the cloud provider's delete until the instance is gone ({@code InstanceTerminating}).
 *   <li>Removes the finalizer.
 * </ol>
 *
 * <p>Every step is derived from API state (taints, conditions, annotations, pods, attachments): the
 * drain's start is the {@code Drained=False} transition written right after the taint (or the Node's
 * deletionTimestamp without a NodeClaim), so a restarted controller picks a drain up where it was.
 * Writes are locked to the resourceVersion read; a conflict requeues the Node at once.
 */
public final class NodeTermination implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(NodeTermination.class);

  /** Controller name, as upstream. */
  public static final String NAME = "node.termination";
  /** The shortest drain (upstream's MinDrainTime). */
  public static final Duration MIN_DRAIN_TIME = Duration.ofSeconds(5);
  /** How often to look again while pods drain or volumes detach. */
  static final Duration DRAIN_POLL = Duration.ofSeconds(1);
  /** How often to look again while the instance is still going away. */
  static final Duration INSTANCE_POLL = Duration.ofSeconds(5);
  /** Value of the exclude-from-external-load-balancers label. */
  static final String EXCLUDE_VALUE = "karpenter";
  static final String DRAINING = "Draining";
  static final String AWAITING_VOLUME_DETACHMENT = "AwaitingVolumeDetachment";
  static final String GRACE_PERIOD_ELAPSED = "TerminationGracePeriodElapsed";
  private static final Result CONFLICT = Result.requeueAfter(Duration.ZERO);

  private final KubernetesClient client;
  private final Informers informers;
  private final CloudProvider cloudProvider;
  private final EvictionQueue evictionQueue;
  private final Clock clock;
  private final EventRecorder events;
  private final Metrics metrics;
  private final TerminationConditions conditions;

  public NodeTermination(KubernetesClient client, Informers informers, CloudProvider cloudProvider, EvictionQueue evictionQueue,
      Clock clock, EventRecorder events, Metrics metrics) {
    this.client = client;
    this.informers = informers;
    this.cloudProvider = cloudProvider;
    this.evictionQueue = evictionQueue;
    this.clock = clock;
    this.events = events;
    this.metrics = metrics;
    this.conditions = new TerminationConditions(client, clock, metrics);
  }

  /**
   * The terminating Node a pod is bound to, whose termination should look again when the pod
   * changes; empty when the pod is unbound or its Node is not terminating.
   */
  public static Optional<String> terminatingNodeOf(Informers informers, Pod pod) {
    String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    Node node = nodeName == null ? null : informers.nodes().getStore().getByKey(nodeName);
    return node != null && Metadata.deleting(node) ? Optional.of(nodeName) : Optional.empty();
  }

  @Override
  public Result reconcile(String name) {
    try {
      return terminate(name);
    } catch (RuntimeException e) {
      if (OptimisticWrites.isConflict(e)) {
        LOG.debug("node {}: conflict, retrying: {}", name, e.getMessage());
        return CONFLICT;
      }
      throw e;
    }
  }

  private Result terminate(String name) {
    Node node = informers.nodes().getStore().getByKey(name);
    if (node == null) {
      node = client.nodes().withName(name).get();
    }
    if (node == null || !Metadata.deleting(node) || !Metadata.hasFinalizer(node, Finalizers.TERMINATION)) {
      return Result.done();
    }
    String providerId = node.getSpec() == null || node.getSpec().getProviderID() == null ? "" : node.getSpec().getProviderID();
    List<NodeClaim> nodeClaims = NodeClaims.forProviderId(informers, providerId);
    if (!nodeClaims.isEmpty() && nodeClaims.stream().noneMatch(c -> NodeClaims.isManaged(c, cloudProvider))) {
      return Result.done();
    }

    // 1. The NodeClaim goes with its Node.
    for (NodeClaim nodeClaim : nodeClaims) {
      if (!Metadata.deleting(nodeClaim)) {
        LOG.atInfo().setMessage("deleting nodeclaim").addKeyValue("Node", LogValues.ref(name))
            .addKeyValue("NodeClaim", LogValues.ref(nodeClaim.getMetadata().getName())).log();
        OptimisticWrites.deleteAt(client.resources(NodeClaim.class).withName(nodeClaim.getMetadata().getName()), null);
      }
    }
    // 2. Nothing to drain on a Node whose instance is gone.
    if (!Metadata.ready(node) && !providerId.isEmpty() && cloudProvider.get(providerId).isEmpty()) {
      LOG.atInfo().setMessage("instance is gone, skipping the drain").addKeyValue("Node", LogValues.ref(name))
          .addKeyValue("provider-id", providerId).log();
      return removeFinalizer(node);
    }
    NodeClaim nodeClaim = nodeClaims.isEmpty() ? null : nodeClaims.getFirst();
    // 3. The deadline.
    Instant deadline = deadline(node, nodeClaim);
    // 4. Taint and exclude from load balancers.
    node = taint(node);
    // 5. Drain.
    if (nodeClaim == null || !Conditions.isTrue(conditionsOf(nodeClaim), DRAINED)) {
      Drain drain = drain(node, nodeClaim, deadline);
      if (drain.result() != null) {
        return drain.result();
      }
      nodeClaim = drain.nodeClaim();
    }
    // 6. Volumes.
    Instant now = clock.instant();
    List<VolumeAttachment> pending = VolumeDetachment.blocking(
        informers.volumeAttachments().getIndexer().byIndex(Informers.VOLUME_ATTACHMENT_BY_NODE, name),
        pods(name), informers.persistentVolumeClaims().getStore()::getByKey, now);
    if (pending.isEmpty()) {
      nodeClaim = setCondition(nodeClaim, VOLUMES_DETACHED, Conditions.TRUE, VOLUMES_DETACHED, "");
    } else if (deadline == null || now.isBefore(deadline)) {
      events.warning(node, AWAITING_VOLUME_DETACHMENT, "Awaiting deletion of " + pending.size() + " VolumeAttachments bound to node");
      setCondition(nodeClaim, VOLUMES_DETACHED, Conditions.UNKNOWN, AWAITING_VOLUME_DETACHMENT, AWAITING_VOLUME_DETACHMENT);
      return Result.requeueAfter(DRAIN_POLL);
    } else {
      nodeClaim = setCondition(nodeClaim, VOLUMES_DETACHED, Conditions.FALSE, GRACE_PERIOD_ELAPSED, GRACE_PERIOD_ELAPSED);
    }
    // 7. The instance.
    if (!providerId.isEmpty()) {
      try {
        cloudProvider.delete(providerId);
        setCondition(nodeClaim, INSTANCE_TERMINATING, Conditions.TRUE, INSTANCE_TERMINATING, "");
        return Result.requeueAfter(INSTANCE_POLL);
      } catch (NodeClaimNotFoundException e) {
        // The instance is gone.
      }
    }
    // 8. Let the Node go.
    return removeFinalizer(node);
  }

  /** The outcome of the drain step: a result to return (still draining), or the NodeClaim to carry on with. */
  private record Drain(Result result, NodeClaim nodeClaim) {}

  private Drain drain(Node node, NodeClaim nodeClaim, Instant deadline) {
    String name = node.getMetadata().getName();
    Instant now = clock.instant();
    DrainPlan plan = DrainPlan.of(pods(name), now, deadline);
    for (DrainPlan.Deletion deletion : plan.delete()) {
      deletePod(deletion, deadline, nodeClaim);
    }
    plan.evict().forEach(evictionQueue::add);
    if (!plan.drained()) {
      events.warning(node, "FailedDraining", "Failed to drain node, " + plan.waiting().size() + " pods are waiting to be evicted");
      setCondition(nodeClaim, DRAINED, Conditions.FALSE, DRAINING, DRAINING);
      return new Drain(Result.requeueAfter(DRAIN_POLL), null);
    }
    // Nothing left to wait for; the drain still lasts MIN_DRAIN_TIME from its start.
    if (nodeClaim != null && !Conditions.get(conditionsOf(nodeClaim), DRAINED).map(c -> Conditions.FALSE.equals(c.getStatus())).orElse(false)) {
      setCondition(nodeClaim, DRAINED, Conditions.FALSE, DRAINING, DRAINING);
      return new Drain(Result.requeueAfter(MIN_DRAIN_TIME), null);
    }
    Instant started = Instant.parse(node.getMetadata().getDeletionTimestamp());
    if (nodeClaim != null) {
      Instant transition = Conditions.lastTransition(conditionsOf(nodeClaim), DRAINED).orElse(started);
      started = transition.isAfter(started) ? transition : started;
    }
    Duration left = Duration.between(now, started.plus(MIN_DRAIN_TIME));
    if (left.compareTo(Duration.ZERO) > 0) {
      return new Drain(Result.requeueAfter(left), null);
    }
    nodeClaim = setCondition(nodeClaim, DRAINED, Conditions.TRUE, DRAINED, "");
    LOG.atInfo().setMessage("drained node").addKeyValue("Node", LogValues.ref(name)).log();
    metrics.disruption().nodeDrained(nodePool(node));
    return new Drain(null, nodeClaim);
  }

  private void deletePod(DrainPlan.Deletion deletion, Instant deadline, NodeClaim nodeClaim) {
    Pod pod = deletion.pod();
    events.normal(pod, "Disrupted", "Deleting the pod to accommodate the terminationTime " + deadline + " of the node. The pod was granted "
        + deletion.gracePeriodSeconds() + " seconds of grace-period of its " + DrainPods.gracePeriodSeconds(pod)
        + " terminationGracePeriodSeconds. This bypasses the PDB of the pod and the do-not-disrupt annotation.");
    try {
      client.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName())
          .withGracePeriod(deletion.gracePeriodSeconds()).delete();
    } catch (RuntimeException e) {
      if (!OptimisticWrites.isNotFound(e)) {
        throw e;
      }
      return;
    }
    LOG.atInfo().setMessage("deleted pod to meet the node's termination time").addKeyValue("Pod", LogValues.ref(pod))
        .addKeyValue("grace-period-seconds", deletion.gracePeriodSeconds()).addKeyValue("termination-time", String.valueOf(deadline)).log();
    metrics.disruption().podDrained(disruptionReason(nodeClaim));
  }

  private List<Pod> pods(String nodeName) {
    return informers.pods().getIndexer().byIndex(Informers.POD_BY_NODE, nodeName);
  }

  /** The NodeClaim's termination timestamp, announced on the Node; null when it has none (or an unreadable one). */
  private Instant deadline(Node node, NodeClaim nodeClaim) {
    Map<String, String> annotations = nodeClaim == null ? null : nodeClaim.getMetadata().getAnnotations();
    String value = annotations == null ? null : annotations.get(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP);
    if (value == null) {
      return null;
    }
    try {
      Instant deadline = Instant.parse(value);
      events.warning(node, "TerminationGracePeriodExpiring", "All pods will be deleted by " + deadline);
      return deadline;
    } catch (DateTimeParseException e) {
      LOG.atError().setMessage("unreadable " + Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP).addKeyValue("Node", LogValues.ref(node.getMetadata().getName()))
          .addKeyValue("NodeClaim", LogValues.ref(nodeClaim.getMetadata().getName())).addKeyValue("value", value).log();
      return null;
    }
  }

  /** Adds the disrupted taint and the exclude label when missing; the Node as stored. */
  private Node taint(Node node) {
    List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    boolean tainted = taints.stream().anyMatch(t -> Pods.DISRUPTED.key().equals(t.getKey())
        && Pods.DISRUPTED.effect().name().equals(t.getEffect()) && (t.getValue() == null || t.getValue().isEmpty()));
    Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    boolean labelled = EXCLUDE_VALUE.equals(labels.get(Labels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS));
    if (tainted && labelled) {
      return node;
    }
    List<Taint> updated = new ArrayList<>(taints);
    if (!tainted) {
      updated.removeIf(t -> Pods.DISRUPTED.key().equals(t.getKey()));
      updated.add(new TaintBuilder().withKey(Pods.DISRUPTED.key()).withEffect(Pods.DISRUPTED.effect().name()).build());
    }
    Map<String, Object> patch = new LinkedHashMap<>(OptimisticWrites.metadata(Map.of("labels", Map.of(Labels.EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS, EXCLUDE_VALUE))));
    patch.put("spec", Map.of("taints", updated));
    Node written = OptimisticWrites.mergePatch(client.nodes().withName(node.getMetadata().getName()), client.getKubernetesSerialization(),
        node.getMetadata().getResourceVersion(), patch);
    LOG.atInfo().setMessage("tainted node").addKeyValue("Node", LogValues.ref(node.getMetadata().getName()))
        .addKeyValue("taint", Pods.DISRUPTED.key() + ":" + Pods.DISRUPTED.effect()).log();
    return written;
  }

  /**
   * Sets a NodeClaim condition (a conflict propagates); without a NodeClaim there is nothing to
   * write. The NodeClaim as stored, or null when there is none (any more).
   */
  private NodeClaim setCondition(NodeClaim nodeClaim, String type, String status, String reason, String message) {
    return nodeClaim == null ? null : conditions.set(nodeClaim, type, status, reason, message);
  }

  private Result removeFinalizer(Node node) {
    String name = node.getMetadata().getName();
    boolean removed = OptimisticWrites.retryOnConflict(node, current -> {
      if (current == null || !Metadata.hasFinalizer(current, Finalizers.TERMINATION)) {
        return false;
      }
      try {
        OptimisticWrites.mergePatch(client.nodes().withName(name), client.getKubernetesSerialization(),
            current.getMetadata().getResourceVersion(),
            OptimisticWrites.metadata(Map.of("finalizers", OptimisticWrites.withoutFinalizer(current, Finalizers.TERMINATION))));
        return true;
      } catch (RuntimeException e) {
        if (OptimisticWrites.isNotFound(e)) {
          return false;
        }
        throw e;
      }
    }, () -> client.nodes().withName(name).get());
    if (!removed) {
      return Result.done();
    }
    LOG.atInfo().setMessage("deleted node").addKeyValue("Node", LogValues.ref(node.getMetadata().getName())).log();
    Instant now = clock.instant();
    String nodePool = nodePool(node);
    metrics.nodeTerminated(nodePool);
    metrics.disruption().nodeTerminated(nodePool, since(node.getMetadata().getDeletionTimestamp(), now));
    metrics.disruption().nodeLifetime(nodePool, since(node.getMetadata().getCreationTimestamp(), now));
    return Result.done();
  }

  private static Duration since(String timestamp, Instant now) {
    if (timestamp == null || timestamp.isEmpty()) {
      return null;
    }
    Duration took = Duration.between(Instant.parse(timestamp), now);
    return took.isNegative() ? Duration.ZERO : took;
  }

  private static String nodePool(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels();
    return labels == null ? "" : labels.getOrDefault(Labels.NODE_POOL, "");
  }

  private static List<Condition> conditionsOf(NodeClaim nodeClaim) {
    return nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getConditions();
  }

  /** The NodeClaim's {@code DisruptionReason} when set, else "". */
  static String disruptionReason(NodeClaim nodeClaim) {
    if (nodeClaim == null) {
      return "";
    }
    return Conditions.get(conditionsOf(nodeClaim), DISRUPTION_REASON)
        .filter(c -> Conditions.TRUE.equals(c.getStatus()))
        .map(Condition::getReason)
        .orElse("");
  }
}
