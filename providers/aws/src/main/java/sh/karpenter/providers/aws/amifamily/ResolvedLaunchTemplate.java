package sh.karpenter.providers.aws.amifamily;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;
import sh.karpenter.api.aws.v1.MetadataOptions;
import sh.karpenter.core.instancetype.InstanceType;

/**
 * One launch template a launch needs (upstream's {@code amifamily.LaunchTemplate}): everything
 * CreateLaunchTemplate is given, and the instance types that launch with it.
 *
 * @param userData base64, as CreateLaunchTemplate takes it
 * @param securityGroupIds the NodeClass's resolved security groups
 * @param tags the tags of the template, its instances' network interfaces and (spot) requests
 * @param instanceTypes the candidates that use this AMI and max-pods value (not part of the name)
 * @param maxPods the max-pods value the user data carries
 */
public record ResolvedLaunchTemplate(
    String nodeClassName,
    String amiFamily,
    String amiId,
    String userData,
    List<BlockDeviceMapping> blockDeviceMappings,
    MetadataOptions metadataOptions,
    List<String> securityGroupIds,
    String instanceProfile,
    Map<String, String> tags,
    boolean detailedMonitoring,
    Boolean associatePublicIPAddress,
    Integer ipPrefixCount,
    String capacityType,
    boolean ipv6,
    int maxPods,
    List<InstanceType> instanceTypes) {

  public ResolvedLaunchTemplate {
    blockDeviceMappings = List.copyOf(blockDeviceMappings);
    securityGroupIds = List.copyOf(securityGroupIds);
    tags = Collections.unmodifiableMap(new TreeMap<>(tags));
    instanceTypes = List.copyOf(instanceTypes);
  }
}
