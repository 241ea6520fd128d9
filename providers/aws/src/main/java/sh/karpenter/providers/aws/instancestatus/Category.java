package sh.karpenter.providers.aws.instancestatus;

/**
 * The part of an instance's DescribeInstanceStatus answer a check belongs to (upstream's {@code
 * instancestatus.Category}); {@link #value()} is the {@code category} label of {@code
 * karpenter_interruption_instance_status_unhealthy_total}.
 */
public enum Category {
  /** The instance's own checks ({@code instanceStatus}): its operating system, network configuration. */
  INSTANCE_STATUS("InstanceStatus"),
  /** The host's checks ({@code systemStatus}): the hardware and network under the instance. */
  SYSTEM_STATUS("SystemStatus"),
  /**
   * A scheduled event ({@code eventsSet}: reboot, maintenance, retirement, stop). Treated as a failure
   * at once, as the interruption queue's scheduled changes are.
   */
  EVENT_STATUS("EventStatus"),
  /** The attached EBS volumes' checks ({@code attachedEbsStatus}); reported, never acted on (upstream ignores them). */
  EBS_STATUS("EBSStatus");

  private final String value;

  Category(String value) {
    this.value = value;
  }

  public String value() {
    return value;
  }
}
