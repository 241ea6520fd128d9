package sh.karpenter.providers.aws.launchtemplate;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.aws.v1.AwsTags;
import sh.karpenter.api.aws.v1.BlockDevice;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;
import sh.karpenter.api.aws.v1.MetadataOptions;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.amifamily.ResolvedLaunchTemplate;
import software.amazon.awssdk.services.ec2.model.CreateLaunchTemplateRequest;
import software.amazon.awssdk.services.ec2.model.LaunchTemplateBlockDeviceMappingRequest;
import software.amazon.awssdk.services.ec2.model.LaunchTemplateEbsBlockDeviceRequest;
import software.amazon.awssdk.services.ec2.model.LaunchTemplateInstanceMetadataTagsState;
import software.amazon.awssdk.services.ec2.model.LaunchTemplateInstanceNetworkInterfaceSpecificationRequest;
import software.amazon.awssdk.services.ec2.model.LaunchTemplateTagSpecificationRequest;
import software.amazon.awssdk.services.ec2.model.RequestLaunchTemplateData;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.ec2.model.TagSpecification;

/**
 * The CreateLaunchTemplate request of a resolved template and its name (upstream's {@code
 * CreateLaunchTemplateInputBuilder} and {@code LaunchTemplateName}). Pure functions.
 */
public final class LaunchTemplateRequests {
  private LaunchTemplateRequests() {}

  /**
   * {@code karpenter.k8s.aws/<n>}: {@code n} is a 64-bit hash of everything the template holds (image,
   * user data, block devices, metadata options, security groups, instance profile, tags, network
   * settings, capacity type), so a change to any of them names a new template. Upstream hashes its
   * Go struct; the numbers differ, the rule is the same.
   */
  public static String name(ResolvedLaunchTemplate t) {
    StringBuilder canonical = new StringBuilder();
    canonical.append("ami=").append(t.amiId()).append('\n')
        .append("family=").append(t.amiFamily()).append('\n')
        .append("userData=").append(t.userData()).append('\n')
        .append("instanceProfile=").append(t.instanceProfile()).append('\n')
        .append("securityGroups=").append(t.securityGroupIds().stream().sorted().toList()).append('\n')
        .append("tags=").append(t.tags()).append('\n')
        .append("monitoring=").append(t.detailedMonitoring()).append('\n')
        .append("publicIp=").append(t.associatePublicIPAddress()).append('\n')
        .append("ipPrefixCount=").append(t.ipPrefixCount()).append('\n')
        .append("capacityType=").append(t.capacityType()).append('\n')
        .append("ipv6=").append(t.ipv6()).append('\n')
        .append("nodeClass=").append(t.nodeClassName()).append('\n');
    MetadataOptions m = t.metadataOptions();
    canonical.append("metadata=").append(m.getHttpEndpoint()).append(',').append(m.getHttpProtocolIPv6()).append(',')
        .append(m.getHttpPutResponseHopLimit()).append(',').append(m.getHttpTokens()).append('\n');
    for (BlockDeviceMapping b : t.blockDeviceMappings()) {
      BlockDevice e = b.getEbs();
      canonical.append("bdm=").append(b.getDeviceName()).append(',').append(b.getRootVolume());
      if (e != null) {
        canonical.append(',').append(e.getDeleteOnTermination()).append(',').append(e.getEncrypted()).append(',').append(e.getIops())
            .append(',').append(e.getKmsKeyID()).append(',').append(e.getSnapshotID()).append(',').append(e.getThroughput())
            .append(',').append(e.getVolumeInitializationRate()).append(',').append(volumeSizeGiB(e)).append(',').append(e.getVolumeType());
      }
      canonical.append('\n');
    }
    try {
      byte[] digest = MessageDigest.getInstance("SHA-256").digest(canonical.toString().getBytes(StandardCharsets.UTF_8));
      long n = 0;
      for (int i = 0; i < 8; i++) {
        n = (n << 8) | (digest[i] & 0xff);
      }
      return AwsTags.LAUNCH_TEMPLATE_NAME_PREFIX + "/" + Long.toUnsignedString(n);
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }

  /** The CreateLaunchTemplate request (upstream's {@code CreateLaunchTemplateInputBuilder.Build}). */
  public static CreateLaunchTemplateRequest create(ResolvedLaunchTemplate t) {
    List<Tag> tags = tags(t.tags());
    List<LaunchTemplateTagSpecificationRequest> dataTags = new ArrayList<>();
    dataTags.add(LaunchTemplateTagSpecificationRequest.builder().resourceType(ResourceType.NETWORK_INTERFACE).tags(tags).build());
    if (Labels.CAPACITY_TYPE_SPOT.equals(t.capacityType())) {
      dataTags.add(LaunchTemplateTagSpecificationRequest.builder().resourceType(ResourceType.SPOT_INSTANCES_REQUEST).tags(tags).build());
    }
    MetadataOptions m = t.metadataOptions();
    LaunchTemplateInstanceNetworkInterfaceSpecificationRequest.Builder eni = LaunchTemplateInstanceNetworkInterfaceSpecificationRequest.builder()
        .associatePublicIpAddress(t.associatePublicIPAddress())
        .deviceIndex(0)
        .groups(t.securityGroupIds());
    if (t.ipv6()) {
      eni.ipv6PrefixCount(t.ipPrefixCount()).primaryIpv6(true).ipv6AddressCount(1);
    } else {
      eni.ipv4PrefixCount(t.ipPrefixCount());
    }
    RequestLaunchTemplateData data = RequestLaunchTemplateData.builder()
        .blockDeviceMappings(blockDeviceMappings(t.blockDeviceMappings()))
        .iamInstanceProfile(p -> p.name(t.instanceProfile()))
        .monitoring(mon -> mon.enabled(t.detailedMonitoring()))
        // the security groups go on the network interface
        .userData(t.userData())
        .imageId(t.amiId())
        .metadataOptions(o -> o
            .httpEndpoint(m.getHttpEndpoint())
            .httpProtocolIpv6(m.getHttpProtocolIPv6())
            .httpPutResponseHopLimit(m.getHttpPutResponseHopLimit() == null ? null : m.getHttpPutResponseHopLimit().intValue())
            .httpTokens(m.getHttpTokens())
            // account-wide defaults could turn instance tags in metadata on; Karpenter's tag keys are not valid there
            .instanceMetadataTags(LaunchTemplateInstanceMetadataTagsState.DISABLED))
        .networkInterfaces(eni.build())
        .tagSpecifications(dataTags)
        .placement(p -> p.tenancy("default"))
        .enclaveOptions(e -> e.enabled(false))
        .build();
    return CreateLaunchTemplateRequest.builder()
        .launchTemplateName(name(t))
        .launchTemplateData(data)
        .tagSpecifications(TagSpecification.builder().resourceType(ResourceType.LAUNCH_TEMPLATE).tags(tags).build())
        .build();
  }

  /** Tags in key order (EC2 ignores the order; a fixed one keeps requests comparable). */
  public static List<Tag> tags(Map<String, String> tags) {
    return tags.entrySet().stream().sorted(Map.Entry.comparingByKey()).map(e -> Tag.builder().key(e.getKey()).value(e.getValue()).build()).toList();
  }

  static List<LaunchTemplateBlockDeviceMappingRequest> blockDeviceMappings(List<BlockDeviceMapping> mappings) {
    if (mappings.isEmpty()) {
      return null; // EC2 rejects an empty list
    }
    List<LaunchTemplateBlockDeviceMappingRequest> out = new ArrayList<>();
    for (BlockDeviceMapping b : mappings) {
      BlockDevice e = b.getEbs() == null ? new BlockDevice() : b.getEbs();
      out.add(LaunchTemplateBlockDeviceMappingRequest.builder()
          .deviceName(b.getDeviceName())
          .ebs(LaunchTemplateEbsBlockDeviceRequest.builder()
              .deleteOnTermination(e.getDeleteOnTermination())
              .encrypted(e.getEncrypted())
              .volumeType(e.getVolumeType())
              .iops(e.getIops() == null || e.getIops() == 0 ? null : e.getIops().intValue())
              .throughput(e.getThroughput() == null || e.getThroughput() == 0 ? null : e.getThroughput().intValue())
              .kmsKeyId(e.getKmsKeyID())
              .snapshotId(e.getSnapshotID())
              .volumeInitializationRate(e.getVolumeInitializationRate())
              .volumeSize(volumeSizeGiB(e))
              .build())
          .build());
    }
    return out;
  }

  /** The volume size in GiB, rounded up (upstream's {@code volumeSize}), or null when unset. */
  static Integer volumeSizeGiB(BlockDevice e) {
    if (e.getVolumeSize() == null) {
      return null;
    }
    BigDecimal bytes = io.fabric8.kubernetes.api.model.Quantity.getAmountInBytes(e.getVolumeSize());
    return bytes.divide(BigDecimal.valueOf(1L << 30), 0, RoundingMode.CEILING).intValueExact();
  }
}
