package sh.karpenter.providers.aws.interruption;

/**
 * What an interruption message says happened (upstream's {@code messages.Kind}); {@link #value()} is
 * the {@code message_type} label of {@code karpenter_interruption_received_messages_total} and the
 * {@code reason} of {@code karpenter_nodeclaims_disrupted_total}. The queue's messages have the first
 * six; the instance-status controller's have {@link #INSTANCE_STATUS}, {@link #SYSTEM_STATUS} and
 * {@link #EVENT_STATUS}.
 */
public enum Kind {
  /** EC2's two-minute spot interruption warning. */
  SPOT_INTERRUPTED("spot_interrupted", Action.CORDON_AND_DRAIN),
  /** EC2's spot rebalance recommendation: an event, nothing else. */
  REBALANCE_RECOMMENDATION("rebalance_recommendation", Action.NO_ACTION),
  /** An AWS Health scheduled change (maintenance, retirement) of an EC2 instance. */
  SCHEDULED_CHANGE("scheduled_change", Action.CORDON_AND_DRAIN),
  /** An instance state change to stopping or stopped. */
  INSTANCE_STOPPED("instance_stopped", Action.CORDON_AND_DRAIN),
  /** An instance state change to shutting-down or terminated. */
  INSTANCE_TERMINATED("instance_terminated", Action.CORDON_AND_DRAIN),
  /** The instance's capacity reservation is being interrupted. */
  CAPACITY_RESERVATION_INTERRUPTED("capacity_reservation_interrupted", Action.CORDON_AND_DRAIN),
  /** A failed instance status check (DescribeInstanceStatus, not the queue). */
  INSTANCE_STATUS("instance_status", Action.FORCEFUL_TERMINATION),
  /** A failed system status check: the instance's host (DescribeInstanceStatus). */
  SYSTEM_STATUS("system_status", Action.FORCEFUL_TERMINATION),
  /** A scheduled event of the instance (DescribeInstanceStatus). */
  EVENT_STATUS("event_status", Action.CORDON_AND_DRAIN),
  /** A message Karpenter does not act on (an unknown event, a health event of another service, a state it ignores). */
  NO_OP("no_op", Action.NO_ACTION);

  private final String value;
  private final Action action;

  Kind(String value, Action action) {
    this.value = value;
    this.action = action;
  }

  public String value() {
    return value;
  }

  /** Upstream's {@code actionForMessage}. */
  public Action action() {
    return action;
  }
}
