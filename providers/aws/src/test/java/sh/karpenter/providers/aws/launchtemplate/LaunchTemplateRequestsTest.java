package sh.karpenter.providers.aws.launchtemplate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.BlockDevice;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.MetadataOptions;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.LaunchFixtures;
import sh.karpenter.providers.aws.amifamily.ResolvedLaunchTemplate;
import sh.karpenter.providers.aws.amifamily.Resolver;
import software.amazon.awssdk.services.ec2.model.CreateLaunchTemplateRequest;
import software.amazon.awssdk.services.ec2.model.LaunchTemplateBlockDeviceMappingRequest;
import software.amazon.awssdk.services.ec2.model.ResourceType;

class LaunchTemplateRequestsTest {
  private static final Map<String, String> TAGS = Map.of("karpenter.sh/nodepool", "default", "eks:eks-cluster-name", "test-cluster");

  private static ResolvedLaunchTemplate resolve(EC2NodeClass nodeClass, String capacityType) {
    return Resolver.resolve(nodeClass, LaunchFixtures.CLUSTER,
        List.of(LaunchFixtures.instanceType("m5.large", 0.096, 0.04, List.of("us-west-2a"))), capacityType,
        Map.of(Labels.NODE_POOL, "default"), List.of(), TAGS).get(0);
  }

  private static EC2NodeClass nodeClass(String alias) {
    return LaunchFixtures.nodeClass("default", alias, Map.of("us-west-2a", "subnet-a"), "sg-1", List.of(LaunchFixtures.ami("ami-1", "amd64")));
  }

  @Test
  void al2023DefaultsAsUpstream() {
    CreateLaunchTemplateRequest request = LaunchTemplateRequests.create(resolve(nodeClass("al2023@latest"), Labels.CAPACITY_TYPE_ON_DEMAND));
    assertTrue(request.launchTemplateName().matches("karpenter\\.k8s\\.aws/\\d+"));
    var data = request.launchTemplateData();
    assertEquals("ami-1", data.imageId());
    assertEquals("test-cluster_123", data.iamInstanceProfile().name());
    LaunchTemplateBlockDeviceMappingRequest root = data.blockDeviceMappings().get(0);
    assertEquals("/dev/xvda", root.deviceName());
    assertEquals(20, root.ebs().volumeSize());
    assertEquals("gp3", root.ebs().volumeTypeAsString());
    assertEquals(true, root.ebs().encrypted());
    assertEquals("enabled", data.metadataOptions().httpEndpointAsString());
    assertEquals("disabled", data.metadataOptions().httpProtocolIpv6AsString());
    assertEquals(1, data.metadataOptions().httpPutResponseHopLimit());
    assertEquals("required", data.metadataOptions().httpTokensAsString());
    assertEquals("disabled", data.metadataOptions().instanceMetadataTagsAsString());
    assertEquals(List.of("sg-1"), data.networkInterfaces().get(0).groups());
    assertTrue(data.securityGroupIds().isEmpty(), "the security groups are on the network interface");
    assertEquals(List.of(ResourceType.NETWORK_INTERFACE), data.tagSpecifications().stream().map(t -> t.resourceType()).toList());
    assertEquals(ResourceType.LAUNCH_TEMPLATE, request.tagSpecifications().get(0).resourceType());
    assertEquals(2, request.tagSpecifications().get(0).tags().size());
  }

  @Test
  void bottlerocketHasTwoVolumesAndSpotTagsTheRequest() {
    CreateLaunchTemplateRequest request = LaunchTemplateRequests.create(resolve(nodeClass("bottlerocket@latest"), Labels.CAPACITY_TYPE_SPOT));
    assertEquals(List.of("/dev/xvda:6", "/dev/xvdb:20"),
        request.launchTemplateData().blockDeviceMappings().stream().map(b -> b.deviceName() + ":" + b.ebs().volumeSize()).toList());
    assertEquals(List.of(ResourceType.NETWORK_INTERFACE, ResourceType.SPOT_INSTANCES_REQUEST),
        request.launchTemplateData().tagSpecifications().stream().map(t -> t.resourceType()).toList());
  }

  @Test
  void theNodeClassesBlockDevicesAndMetadataOptionsWin() {
    EC2NodeClass nodeClass = nodeClass("al2023@latest");
    BlockDevice ebs = new BlockDevice();
    ebs.setVolumeSize(new Quantity("100G"));
    ebs.setVolumeType("io2");
    ebs.setIops(3000L);
    BlockDeviceMapping mapping = new BlockDeviceMapping();
    mapping.setDeviceName("/dev/xvdc");
    mapping.setEbs(ebs);
    nodeClass.getSpec().setBlockDeviceMappings(List.of(mapping));
    MetadataOptions options = new MetadataOptions();
    options.setHttpPutResponseHopLimit(2L);
    nodeClass.getSpec().setMetadataOptions(options);
    var data = LaunchTemplateRequests.create(resolve(nodeClass, Labels.CAPACITY_TYPE_ON_DEMAND)).launchTemplateData();
    LaunchTemplateBlockDeviceMappingRequest b = data.blockDeviceMappings().get(0);
    assertEquals("/dev/xvdc", b.deviceName());
    assertEquals(94, b.ebs().volumeSize(), "100G is 93.13Gi, rounded up");
    assertEquals(3000, b.ebs().iops());
    assertNull(b.ebs().encrypted());
    assertEquals(2, data.metadataOptions().httpPutResponseHopLimit());
    assertEquals("required", data.metadataOptions().httpTokensAsString(), "unset fields take the CRD's defaults");
  }

  @Test
  void theNameChangesWithTheContents() {
    ResolvedLaunchTemplate a = resolve(nodeClass("al2023@latest"), Labels.CAPACITY_TYPE_ON_DEMAND);
    assertEquals(LaunchTemplateRequests.name(a), LaunchTemplateRequests.name(resolve(nodeClass("al2023@latest"), Labels.CAPACITY_TYPE_ON_DEMAND)));
    EC2NodeClass withUserData = nodeClass("al2023@latest");
    withUserData.getSpec().setUserData("#!/bin/bash\necho hi");
    assertNotEquals(LaunchTemplateRequests.name(a), LaunchTemplateRequests.name(resolve(withUserData, Labels.CAPACITY_TYPE_ON_DEMAND)));
    assertNotEquals(LaunchTemplateRequests.name(a), LaunchTemplateRequests.name(resolve(nodeClass("al2023@latest"), Labels.CAPACITY_TYPE_SPOT)));
  }
}
