package sh.karpenter.providers.aws.instance;

import java.time.Instant;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import sh.karpenter.core.wellknown.Labels;
import software.amazon.awssdk.services.ec2.model.InstanceLifecycleType;

/**
 * An EC2 instance as DescribeInstances reports it (upstream's {@code instance.Instance}).
 *
 * @param state EC2's state name: pending, running, stopping, stopped, shutting-down, terminated
 * @param capacityType spot or on-demand
 */
public record AwsInstance(
    String id,
    String instanceType,
    String zone,
    String zoneId,
    String capacityType,
    String state,
    String imageId,
    String subnetId,
    List<String> securityGroupIds,
    Instant launchTime,
    Map<String, String> tags) {

  public AwsInstance {
    securityGroupIds = List.copyOf(securityGroupIds);
    tags = Collections.unmodifiableMap(new TreeMap<>(tags));
  }

  /** {@code aws:///<zone>/<instance-id>}. */
  public String providerId() {
    return InstanceProvider.providerId(zone, id);
  }

  /** True while EC2 is terminating the instance or has. */
  public boolean terminating() {
    return "shutting-down".equals(state) || "terminated".equals(state);
  }

  static AwsInstance of(software.amazon.awssdk.services.ec2.model.Instance i) {
    Map<String, String> tags = new TreeMap<>();
    i.tags().forEach(t -> tags.put(t.key(), t.value()));
    boolean spot = i.spotInstanceRequestId() != null || i.instanceLifecycle() == InstanceLifecycleType.SPOT;
    return new AwsInstance(
        i.instanceId(),
        i.instanceTypeAsString(),
        i.placement() == null ? "" : i.placement().availabilityZone(),
        i.placement() == null || i.placement().availabilityZoneId() == null ? "" : i.placement().availabilityZoneId(),
        spot ? Labels.CAPACITY_TYPE_SPOT : Labels.CAPACITY_TYPE_ON_DEMAND,
        i.state() == null ? "" : i.state().nameAsString(),
        i.imageId() == null ? "" : i.imageId(),
        i.subnetId() == null ? "" : i.subnetId(),
        i.securityGroups().stream().map(g -> g.groupId()).toList(),
        i.launchTime(),
        tags);
  }
}
