package sh.karpenter.controller.nodeclaim.podevents;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BinaryOperator;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.core.cloudprovider.CloudProvider;

/**
 * The {@code nodeclaim.podevents} controller (upstream nodeclaim/podevents), keyed by NodeClaim
 * name: records in {@code status.lastPodEventTime} when a pod was last bound to or removed from the
 * NodeClaim's node ({@link PodEvent}), which restarts the NodeClaim's consolidateAfter window.
 *
 * <p>The pod informer {@link #handler} maps each event to the NodeClaim of the pod's node (by
 * provider ID), remembers the latest event time per NodeClaim and enqueues it; the reconcile writes
 * that time unless it falls within {@link #DEDUPE} of the one recorded (or before it), so that a burst
 * of pods costs one write. The status is updated locked to the resourceVersion read; on a conflict
 * the NodeClaim is read again from the API server.
 */
public final class PodEvents implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(PodEvents.class);

  public static final String NAME = "nodeclaim.podevents";
  /** docs/behaviour/options.md: pod events are de-duplicated for 10 seconds. */
  public static final Duration DEDUPE = Duration.ofSeconds(10);
  private static final BinaryOperator<Instant> LATEST = (a, b) -> a.isAfter(b) ? a : b;

  private final KubernetesClient client;
  private final Informers informers;
  private final CloudProvider cloudProvider;
  private final Clock clock;
  /** The latest pod event per NodeClaim name, not yet written. */
  private final Map<String, Instant> pending = new ConcurrentHashMap<>();

  public PodEvents(KubernetesClient client, Informers informers, CloudProvider cloudProvider, Clock clock) {
    this.client = client;
    this.informers = informers;
    this.cloudProvider = cloudProvider;
    this.clock = clock;
  }

  /** The pod informer handler: records each pod event against its node's NodeClaims and passes their names to {@code enqueue}. */
  public ResourceEventHandler<Pod> handler(Consumer<String> enqueue) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(Pod pod) {
        PodEvent.added(pod, clock.instant()).ifPresent(event -> record(event, enqueue));
      }

      @Override
      public void onUpdate(Pod old, Pod pod) {
        PodEvent.updated(old, pod, clock.instant()).ifPresent(event -> record(event, enqueue));
      }

      @Override
      public void onDelete(Pod pod, boolean deletedFinalStateUnknown) {
        PodEvent.deleted(pod, clock.instant()).ifPresent(event -> record(event, enqueue));
      }
    };
  }

  /** Remembers {@code event} for the NodeClaims of its node and enqueues them; a node Karpenter does not know is skipped. */
  void record(PodEvent event, Consumer<String> enqueue) {
    Node node = informers.nodes().getStore().getByKey(event.nodeName());
    if (node == null || node.getSpec() == null) {
      return;
    }
    for (NodeClaim nodeClaim : NodeClaims.forProviderId(informers, node.getSpec().getProviderID())) {
      String name = nodeClaim.getMetadata().getName();
      pending.merge(name, event.time(), LATEST);
      enqueue.accept(name);
    }
  }

  /** Whether {@code time} is worth writing over {@code recorded} (RFC 3339, or null): at least {@link #DEDUPE} later. */
  static boolean supersedes(Instant time, String recorded) {
    return recorded == null || recorded.isEmpty() || !time.isBefore(Instant.parse(recorded).plus(DEDUPE));
  }

  @Override
  public Result reconcile(String name) {
    Instant time = pending.remove(name);
    if (time == null) {
      return Result.done();
    }
    try {
      write(name, time);
    } catch (RuntimeException e) {
      pending.merge(name, time, LATEST); // retried with backoff
      throw e;
    }
    return Result.done();
  }

  private void write(String name, Instant time) {
    OptimisticWrites.retryOnConflict(NodeClaims.get(client, informers, name), nodeClaim -> {
      if (nodeClaim == null || Metadata.deleting(nodeClaim) || !NodeClaims.isManaged(nodeClaim, cloudProvider)) {
        return null;
      }
      String recorded = Optional.ofNullable(nodeClaim.getStatus()).map(NodeClaimStatus::getLastPodEventTime).orElse(null);
      if (!supersedes(time, recorded)) {
        return null;
      }
      NodeClaim update = client.getKubernetesSerialization().clone(nodeClaim);
      if (update.getStatus() == null) {
        update.setStatus(new NodeClaimStatus());
      }
      update.getStatus().setLastPodEventTime(time.truncatedTo(ChronoUnit.SECONDS).toString());
      client.resources(NodeClaim.class).resource(update).updateStatus();
      LOG.debug("nodeclaim {}: last pod event at {}", name, time);
      return null;
    }, () -> NodeClaims.fresh(client, name));
  }
}
