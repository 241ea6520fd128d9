package sh.karpenter.controller.nodeclaim.expiration;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NillableDuration;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.core.cloudprovider.CloudProvider;

/**
 * The {@code nodeclaim.expiration} controller (upstream nodeclaim/expiration,
 * docs/behaviour/nodeclaim-lifecycle.md#expiration), keyed by NodeClaim name: deletes a NodeClaim
 * once {@code creationTimestamp + spec.expireAfter} has passed, and until then asks to be requeued
 * exactly then. Expiration is forceful: disruption budgets do not apply, and the NodeClaim's
 * finalizer drains and terminates the node. {@code expireAfter: Never} never expires.
 *
 * <p>Counts {@code karpenter_nodeclaims_disrupted_total{reason="expired"}} and publishes an {@value
 * #EVENT_REASON} event on the NodeClaim. The delete is locked to the resourceVersion read, so that a
 * stale cache cannot delete (and count) twice; on a conflict the NodeClaim is read again from the API
 * server.
 */
public final class Expiration implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(Expiration.class);

  public static final String NAME = "nodeclaim.expiration";
  /** {@code karpenter_nodeclaims_disrupted_total} reason, as upstream's {@code metrics.ExpiredReason}. */
  public static final String METRIC_REASON = "expired";
  /** Upstream publishes no event here; this port tells the NodeClaim's watchers why it went. */
  public static final String EVENT_REASON = "Expired";

  private final KubernetesClient client;
  private final Informers informers;
  private final CloudProvider cloudProvider;
  private final Clock clock;
  private final EventRecorder events;
  private final Metrics metrics;

  public Expiration(
      KubernetesClient client, Informers informers, CloudProvider cloudProvider, Clock clock, EventRecorder events, Metrics metrics) {
    this.client = client;
    this.informers = informers;
    this.cloudProvider = cloudProvider;
    this.clock = clock;
    this.events = events;
    this.metrics = metrics;
  }

  /** When the NodeClaim expires; empty for {@code expireAfter: Never} (or unset) and before it has a creation time. */
  public static Optional<Instant> expiresAt(NodeClaim nodeClaim) {
    NillableDuration expireAfter = nodeClaim.getSpec() == null ? null : nodeClaim.getSpec().getExpireAfter();
    String created = nodeClaim.getMetadata().getCreationTimestamp();
    if (expireAfter == null || expireAfter.isNever() || created == null || created.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(Instant.parse(created).plus(expireAfter.duration()));
  }

  @Override
  public Result reconcile(String name) {
    return OptimisticWrites.retryOnConflict(NodeClaims.get(client, informers, name), this::expire, () -> NodeClaims.fresh(client, name));
  }

  /** Deletes the NodeClaim, locked to the version read, once it expired. */
  private Result expire(NodeClaim nodeClaim) {
    if (nodeClaim == null || Metadata.deleting(nodeClaim) || !NodeClaims.isManaged(nodeClaim, cloudProvider)) {
      return Result.done();
    }
    Optional<Instant> expiry = expiresAt(nodeClaim);
    if (expiry.isEmpty()) {
      return Result.done();
    }
    Duration remaining = Duration.between(clock.instant(), expiry.get());
    if (remaining.isPositive()) {
      return Result.requeueAfter(remaining);
    }
    OptimisticWrites.deleteAt(client.resources(NodeClaim.class).withName(nodeClaim.getMetadata().getName()), nodeClaim.getMetadata().getResourceVersion());
    expired(nodeClaim);
    return Result.done();
  }

  private void expired(NodeClaim nodeClaim) {
    String expireAfter = nodeClaim.getSpec().getExpireAfter().text();
    LOG.info("deleting expired nodeclaim {} (nodepool {}, expireAfter {})",
        nodeClaim.getMetadata().getName(), NodeClaims.nodePool(nodeClaim), expireAfter);
    metrics.nodeClaimDisrupted(DisruptionLabels.of(nodeClaim, METRIC_REASON));
    events.normal(nodeClaim, EVENT_REASON, "NodeClaim expired after " + expireAfter);
  }
}
