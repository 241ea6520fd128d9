package sh.karpenter.controller.nodeclaim.lifecycle;

import static sh.karpenter.api.v1.ConditionTypes.LAUNCHED;
import static sh.karpenter.api.v1.ConditionTypes.REGISTERED;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.nodepool.NodePoolRegistrationHealth;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;

/**
 * Liveness: deletes a NodeClaim that did not launch within {@link #LAUNCH_TIMEOUT} (counted from the
 * {@code Launched} condition's last transition, or from creation before there is one) or whose Node
 * did not register within {@link #REGISTRATION_TIMEOUT} of launching, so the provisioner can try
 * again. Until a deadline passes it asks to be requeued exactly at the deadline. Each such deletion
 * counts as a failure in the NodePool's registration health.
 */
final class Liveness implements Step {
  private static final Logger LOG = LoggerFactory.getLogger(Liveness.class);

  /** docs/behaviour/options.md. */
  static final Duration LAUNCH_TIMEOUT = Duration.ofMinutes(5);
  static final Duration REGISTRATION_TIMEOUT = Duration.ofMinutes(15);
  static final String LAUNCH_TIMEOUT_REASON = "launch_timeout";
  static final String REGISTRATION_TIMEOUT_REASON = "registration_timeout";

  private final KubernetesClient client;
  private final Metrics metrics;
  private final NodePoolRegistrationHealth registrationHealth;

  Liveness(KubernetesClient client, Metrics metrics, NodePoolRegistrationHealth registrationHealth) {
    this.client = client;
    this.metrics = metrics;
    this.registrationHealth = registrationHealth;
  }

  @Override
  public Result reconcile(LifecycleState state) {
    if (state.isTrue(REGISTERED)) {
      return Result.done();
    }
    NodeClaim nodeClaim = state.nodeClaim();
    boolean launched = state.isTrue(LAUNCHED);
    Optional<Instant> since = Conditions.lastTransition(state.conditions(), LAUNCHED)
        .or(() -> Optional.ofNullable(nodeClaim.getMetadata().getCreationTimestamp()).map(Instant::parse));
    if (since.isEmpty()) {
      return Result.done();
    }
    Duration timeout = launched ? REGISTRATION_TIMEOUT : LAUNCH_TIMEOUT;
    Duration remaining = Duration.between(state.now(), since.get().plus(timeout));
    if (remaining.isPositive()) {
      return Result.requeueAfter(remaining);
    }
    String reason = launched ? REGISTRATION_TIMEOUT_REASON : LAUNCH_TIMEOUT_REASON;
    String name = nodeClaim.getMetadata().getName();
    // Locked to the version the decision was made on: a stale cache must not delete (and count) twice.
    // A conflict propagates, and the reconcile starts over from a fresh copy.
    OptimisticWrites.deleteAt(client.resources(NodeClaim.class).withName(name), nodeClaim.getMetadata().getResourceVersion());
    state.markDeleted();
    LOG.atInfo().setMessage("terminating due to timeout").addKeyValue("NodeClaim", LogValues.ref(name)).addKeyValue("reason", reason)
        .addKeyValue("timeout", timeout).log();
    metrics.nodeClaimDisrupted(DisruptionLabels.of(nodeClaim, reason));
    // After the delete, so a retried reconcile cannot count the same NodeClaim twice.
    state.afterWrite(() -> registrationHealth.failed(nodeClaim));
    return Result.done();
  }
}
