package sh.karpenter.providers.aws.interruption;

import io.fabric8.kubernetes.api.model.Node;
import java.time.Clock;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;

/**
 * What both interruption controllers do with a message (upstream's {@code InterruptionHandler}): for
 * every NodeClaim of every instance it names, publish the kind's event, mark a spot-interrupted
 * offering unavailable, and carry out the kind's {@link Action}. The queue's messages come from
 * {@link InterruptionController}, the status checks' from {@link InstanceStatusController}.
 */
final class InterruptionHandler {
  private static final Logger LOG = LoggerFactory.getLogger(InterruptionHandler.class);

  private final InterruptionTargets targets;
  private final EventRecorder events;
  private final Metrics metrics;
  private final UnavailableOfferings unavailableOfferings;
  private final Clock clock;

  /**
   * @param unavailableOfferings where spot interruptions mark their offering; null marks nothing
   * @param clock the time of a forceful termination's {@code nodeclaim-termination-timestamp}
   */
  InterruptionHandler(InterruptionTargets targets, EventRecorder events, Metrics metrics, UnavailableOfferings unavailableOfferings, Clock clock) {
    this.targets = targets;
    this.events = events;
    this.metrics = metrics;
    this.unavailableOfferings = unavailableOfferings;
    this.clock = clock;
  }

  /**
   * Upstream's {@code handleMessage}: acts on every NodeClaim of every instance the message names, all
   * of them even when one fails (the first failure is thrown afterwards, the others suppressed in it).
   *
   * @return whether any NodeClaim has one of the message's instances (false for a no-op)
   */
  boolean handle(InterruptionMessage message) {
    if (message.kind() == Kind.NO_OP) {
      return false;
    }
    boolean found = false;
    RuntimeException failure = null;
    for (String instanceId : message.instanceIds()) {
      List<NodeClaim> nodeClaims = targets.nodeClaims(instanceId);
      found |= !nodeClaims.isEmpty();
      for (NodeClaim nodeClaim : nodeClaims) {
        try {
          act(message.kind(), nodeClaim, targets.node(instanceId).orElse(null));
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
    return found;
  }

  /** Upstream's {@code handleNodeClaim}: the event, the unavailable offering, then the action. */
  private void act(Kind kind, NodeClaim nodeClaim, Node node) {
    InterruptionEvents.notify(events, kind, nodeClaim, node);
    if (kind == Kind.SPOT_INTERRUPTED && unavailableOfferings != null) {
      Map<String, String> labels = nodeClaim.getMetadata().getLabels() == null ? Map.of() : nodeClaim.getMetadata().getLabels();
      String zone = labels.getOrDefault(Labels.ZONE, "");
      String instanceType = labels.getOrDefault(Labels.INSTANCE_TYPE, "");
      if (!zone.isEmpty() && !instanceType.isEmpty()) {
        unavailableOfferings.markUnavailable(instanceType, zone, Labels.CAPACITY_TYPE_SPOT, kind.value());
      }
    }
    switch (kind.action()) {
      case FORCEFUL_TERMINATION -> {
        annotateTerminationTimestamp(nodeClaim);
        delete(kind, nodeClaim, node);
      }
      case CORDON_AND_DRAIN -> delete(kind, nodeClaim, node);
      case NO_ACTION -> { }
    }
  }

  /**
   * Upstream's {@code annotateTerminationTimestamp}: the termination timestamp is now, unless the
   * NodeClaim has one, so the drain does not wait for PodDisruptionBudgets or volume detachment.
   */
  private void annotateTerminationTimestamp(NodeClaim nodeClaim) {
    Map<String, String> annotations = nodeClaim.getMetadata().getAnnotations();
    if (annotations != null && annotations.containsKey(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP)) {
      return;
    }
    targets.annotateTerminationTimestamp(nodeClaim, clock.instant().truncatedTo(ChronoUnit.SECONDS).toString());
  }

  /** Upstream's {@code deleteNodeClaim}: unless it is already being deleted. */
  private void delete(Kind kind, NodeClaim nodeClaim, Node node) {
    if (nodeClaim.getMetadata().getDeletionTimestamp() != null || !targets.delete(nodeClaim)) {
      return;
    }
    LOG.info("initiating delete from interruption message NodeClaim={} Node={} messageKind={} action={}", nodeClaim.getMetadata().getName(),
        node == null ? "" : node.getMetadata().getName(), kind.value(), kind.action());
    InterruptionEvents.terminating(events, nodeClaim, node);
    metrics.nodeClaimDisrupted(DisruptionLabels.of(nodeClaim, kind.value()));
  }
}
