package sh.karpenter.providers.aws;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.AMISelectorTerm;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.SecurityGroupSelectorTerm;
import sh.karpenter.api.aws.v1.SubnetSelectorTerm;
import sh.karpenter.providers.aws.ami.AmiProvider;
import sh.karpenter.providers.aws.ami.ResolvedAmi;
import sh.karpenter.providers.aws.ami.SsmParameters;
import sh.karpenter.providers.aws.instanceprofile.InstanceProfileProvider;
import sh.karpenter.providers.aws.securitygroup.SecurityGroupProvider;
import sh.karpenter.providers.aws.subnet.SubnetProvider;
import sh.karpenter.testkit.aws.AwsEmulator;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.ClusterNetwork;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.SecurityGroup;
import software.amazon.awssdk.services.ec2.model.Subnet;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.ec2.model.TagSpecification;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.iam.model.InstanceProfile;
import software.amazon.awssdk.services.ssm.SsmClient;

/** The subnet, security group, AMI and instance profile providers against the AWS emulator. */
@AwsEmulatorTest
class ResolutionIT {
  private static final String TRUST =
      "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":{\"Service\":\"ec2.amazonaws.com\"},\"Action\":\"sts:AssumeRole\"}]}";
  private final Clock clock = Clock.systemUTC();

  @Test
  void subnetsByTagWildcardAndById(Ec2Client ec2) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "c1", List.of("us-west-2a", "us-west-2c"));
    ClusterNetwork.create(ec2, "c2", List.of("us-west-2b"));
    SubnetProvider subnets = new SubnetProvider(ec2, clock);

    EC2NodeClass byTag = TestNodeClasses.nodeClass("by-tag", "c1", "al2023@latest", "role");
    assertThat(subnets.list(byTag)).extracting(Subnet::subnetId).containsExactlyInAnyOrderElementsOf(network.subnetsByZone().values());
    assertThat(subnets.list(byTag)).extracting(Subnet::availabilityZoneId).containsExactlyInAnyOrder("usw2-az2", "usw2-az3");

    EC2NodeClass anyCluster = TestNodeClasses.nodeClass("any", "c1", "al2023@latest", "role");
    anyCluster.getMetadata().setUid("uid-any");
    anyCluster.getSpec().setSubnetSelectorTerms(List.of(new SubnetSelectorTerm(Map.of(ClusterNetwork.DISCOVERY_TAG, "*"), null)));
    assertThat(subnets.list(anyCluster)).hasSize(3);

    EC2NodeClass byId = TestNodeClasses.nodeClass("by-id", "c1", "al2023@latest", "role");
    byId.getSpec().setSubnetSelectorTerms(List.of(new SubnetSelectorTerm(null, network.subnet("us-west-2c"))));
    assertThat(subnets.list(byId)).extracting(Subnet::subnetId).containsExactly(network.subnet("us-west-2c"));
  }

  @Test
  void securityGroupsByTagIdAndName(Ec2Client ec2) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "c1", List.of("us-west-2a"));
    SecurityGroupProvider groups = new SecurityGroupProvider(ec2, clock);

    assertThat(groups.list(TestNodeClasses.nodeClass("by-tag", "c1", "al2023@latest", "role")))
        .extracting(SecurityGroup::groupId).containsExactly(network.securityGroupId());

    EC2NodeClass byName = TestNodeClasses.nodeClass("by-name", "c1", "al2023@latest", "role");
    SecurityGroupSelectorTerm name = new SecurityGroupSelectorTerm();
    name.setName("c1-nodes");
    SecurityGroupSelectorTerm id = new SecurityGroupSelectorTerm();
    id.setId(network.securityGroupId());
    byName.getSpec().setSecurityGroupSelectorTerms(List.of(name, id));
    assertThat(groups.list(byName)).extracting(SecurityGroup::groupName).containsExactly("c1-nodes");
  }

  @Test
  void amisByTagsAndByNameWithOwner(Ec2Client ec2, SsmClient ssm) {
    String base = ec2.describeImages(r -> r.owners("amazon").filters(Filter.builder().name("architecture").values("x86_64").build()))
        .images().getFirst().imageId();
    String instance = ec2.runInstances(r -> r.imageId(base).minCount(1).maxCount(1).instanceType("m5.large")).instances().getFirst().instanceId();
    String tagged = ec2.createImage(r -> r.instanceId(instance).name("team-image")
        .tagSpecifications(TagSpecification.builder().resourceType(ResourceType.IMAGE).tags(Tag.builder().key("team").value("b").build()).build()))
        .imageId();
    AmiProvider amis = new AmiProvider(ec2, new SsmParameters(ssm, AwsEmulator.SSM_PARAMETER_PREFIX, clock), () -> "1.31", clock);

    AMISelectorTerm byTag = new AMISelectorTerm();
    byTag.setTags(Map.of("team", "*"));
    List<ResolvedAmi> found = amis.list(TestNodeClasses.withAmiTerms(TestNodeClasses.nodeClass("t", "c1", "al2023@latest", "role"), AMIFamily.AL2023, byTag));
    assertThat(found).singleElement().satisfies(ami -> {
      assertThat(ami.id()).isEqualTo(tagged);
      assertThat(ami.requirements()).extracting(r -> r.getKey() + "=" + r.getValues()).containsExactly("kubernetes.io/arch=[amd64]");
    });

    AMISelectorTerm byName = new AMISelectorTerm();
    byName.setName("team-image");
    byName.setOwner("self");
    assertThat(amis.list(TestNodeClasses.withAmiTerms(TestNodeClasses.nodeClass("n", "c1", "al2023@latest", "role"), AMIFamily.AL2023, byName)))
        .extracting(ResolvedAmi::id).containsExactly(tagged);
  }

  @Test
  void anInstanceProfileIsCreatedGivenANewRoleAndDeleted(IamClient iam) {
    iam.createRole(r -> r.roleName("role-a").assumeRolePolicyDocument(TRUST));
    iam.createRole(r -> r.roleName("role-b").assumeRolePolicyDocument(TRUST));
    InstanceProfileProvider profiles = new InstanceProfileProvider(iam, clock);
    String path = InstanceProfileProvider.path("us-west-2", "c1", "uid-1");

    profiles.create("c1_1", "role-a", Map.of("k", "v"), path);
    profiles.create("c1_1", "role-a", Map.of("k", "v"), path);
    assertThat(iam.getInstanceProfile(r -> r.instanceProfileName("c1_1")).instanceProfile().roles()).extracting(r -> r.roleName())
        .containsExactly("role-a");

    new InstanceProfileProvider(iam, clock).create("c1_1", "arn:aws:iam::123456789012:role/role-b", Map.of(), path);
    assertThat(iam.getInstanceProfile(r -> r.instanceProfileName("c1_1")).instanceProfile().roles()).extracting(r -> r.roleName())
        .containsExactly("role-b");
    assertThat(profiles.list(path)).extracting(InstanceProfile::instanceProfileName).containsExactly("c1_1");
    assertThat(profiles.list(InstanceProfileProvider.path("us-west-2", "c1", "uid-2"))).isEmpty();

    profiles.delete("c1_1");
    profiles.delete("c1_1");
    assertThat(profiles.get("c1_1")).isEmpty();
    assertThat(profiles.list(path)).isEmpty();
  }
}
