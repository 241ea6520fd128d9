package sh.karpenter.providers.aws.interruption;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.runtime.EventRecorder;

/** The Events upstream's interruption controller publishes, on the NodeClaim and on its Node when there is one. */
final class InterruptionEvents {
  private InterruptionEvents() {}

  /** The event announcing what the message says (upstream's {@code notifyForMessage}); none for a no-op. */
  static void notify(EventRecorder events, Kind kind, NodeClaim nodeClaim, Node node) {
    switch (kind) {
      case REBALANCE_RECOMMENDATION ->
          both(events, EventRecorder.NORMAL, "SpotRebalanceRecommendation", "Spot rebalance recommendation was triggered", nodeClaim, node);
      case SCHEDULED_CHANGE, INSTANCE_STATUS, SYSTEM_STATUS, EVENT_STATUS ->
          both(events, EventRecorder.WARNING, "InstanceUnhealthy", "An unhealthy warning was triggered for the instance", nodeClaim, node);
      case SPOT_INTERRUPTED ->
          both(events, EventRecorder.WARNING, "SpotInterrupted", "Spot interruption warning was triggered", nodeClaim, node);
      case CAPACITY_RESERVATION_INTERRUPTED ->
          both(events, EventRecorder.WARNING, "CapacityReservationInstanceInterrupted",
              "Capacity Reservation interruption warning was triggered", nodeClaim, node);
      case INSTANCE_STOPPED -> both(events, EventRecorder.WARNING, "InstanceStopping", "Instance is stopping", nodeClaim, node);
      case INSTANCE_TERMINATED -> both(events, EventRecorder.WARNING, "InstanceTerminating", "Instance is terminating", nodeClaim, node);
      case NO_OP -> { }
    }
  }

  /** Upstream's {@code TerminatingOnInterruption}, after the NodeClaim was deleted. */
  static void terminating(EventRecorder events, NodeClaim nodeClaim, Node node) {
    publish(events, nodeClaim, EventRecorder.WARNING, "TerminatingOnInterruption", "Interruption triggered termination for the NodeClaim");
    if (node != null) {
      publish(events, node, EventRecorder.WARNING, "TerminatingOnInterruption", "Interruption triggered termination for the Node");
    }
  }

  private static void both(EventRecorder events, String type, String reason, String message, NodeClaim nodeClaim, Node node) {
    publish(events, nodeClaim, type, reason, message);
    if (node != null) {
      publish(events, node, type, reason, message);
    }
  }

  private static void publish(EventRecorder events, HasMetadata involved, String type, String reason, String message) {
    events.publish(involved, type, reason, message, EventRecorder.DEFAULT_DEDUPE);
  }
}
