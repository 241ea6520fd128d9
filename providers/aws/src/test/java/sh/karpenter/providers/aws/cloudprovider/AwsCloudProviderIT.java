package sh.karpenter.providers.aws.cloudprovider;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ConditionBuilder;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.AwsAnnotations;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassHash;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.LaunchFixtures;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;
import sh.karpenter.providers.aws.fleet.CreateFleetBatcher;
import sh.karpenter.providers.aws.instance.DescribeInstancesBatcher;
import sh.karpenter.providers.aws.fleet.LaunchSubnets;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.providers.aws.instancetype.InstanceTypeProvider;
import sh.karpenter.providers.aws.launchtemplate.LaunchTemplateProvider;
import sh.karpenter.providers.aws.pricing.PricingProvider;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.aws.ClusterNetwork;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * The whole AWS provider against the AWS emulator (moto): instance types and prices read from EC2,
 * a launch through launch templates and CreateFleet, lookup, drift and termination, as the controller
 * calls them through the core {@code CloudProvider} interface.
 */
@AwsEmulatorTest
class AwsCloudProviderIT {
  static final String CLUSTER = "test-cluster";
  static final String REGION = "us-west-2";
  static final List<String> ZONES = List.of("us-west-2a", "us-west-2b", "us-west-2c");
  static final NodeClassRef REF = new NodeClassRef(EC2NodeClass.GROUP, EC2NodeClass.KIND, "default");

  /** The provider over one emulator, with the NodeClass store a test edits. */
  record Provider(AwsCloudProvider cloud, Map<String, EC2NodeClass> nodeClasses, CreateFleetBatcher batcher, DescribeInstancesBatcher describeBatcher,
      String ami, ClusterNetwork network)
      implements AutoCloseable {
    static Provider create(Ec2Client ec2) {
      ClusterNetwork network = ClusterNetwork.create(ec2, CLUSTER, ZONES);
      String ami = ec2.describeImages(r -> r.owners("amazon").filters(f -> f.name("architecture").values("x86_64")))
          .images().get(0).imageId();
      EC2NodeClass nodeClass = LaunchFixtures.nodeClass("default", "al2023@latest", network.subnetsByZone(), network.securityGroupId(),
          List.of(LaunchFixtures.ami(ami, "amd64")));
      nodeClass.getMetadata().setGeneration(1L);
      nodeClass.getStatus().setConditions(List.of(ready("True", 1L)));
      Map<String, EC2NodeClass> store = new ConcurrentHashMap<>(Map.of("default", nodeClass));

      UnavailableOfferings unavailable = new UnavailableOfferings(Clock.systemUTC());
      PricingProvider pricing = new PricingProvider(ec2, REGION, Clock.systemUTC());
      pricing.refresh();
      InstanceTypeProvider types = new InstanceTypeProvider(ec2, REGION, pricing, unavailable, InstanceTypeProvider.Settings.DEFAULT,
          Clock.systemUTC());
      types.refresh();
      CreateFleetBatcher batcher = new CreateFleetBatcher(ec2::createFleet, CreateFleetBatcher.DEFAULT_WINDOW);
      DescribeInstancesBatcher describeBatcher = new DescribeInstancesBatcher(ec2::describeInstances, DescribeInstancesBatcher.DEFAULT_WINDOW);
      InstanceProvider instances = new InstanceProvider(ec2, CLUSTER, new LaunchTemplateProvider(ec2, LaunchFixtures.CLUSTER),
          new LaunchSubnets(ec2, Clock.systemUTC()), batcher, describeBatcher, unavailable);
      AwsCloudProvider cloud = new AwsCloudProvider(name -> Optional.ofNullable(store.get(name)), types, instances);
      return new Provider(cloud, store, batcher, describeBatcher, ami, network);
    }

    @Override
    public void close() {
      batcher.close();
      describeBatcher.close();
    }
  }

  static Condition ready(String status, long generation) {
    return new ConditionBuilder().withType("Ready").withStatus(status).withReason(status.equals("True") ? "Ready" : "NotReady")
        .withMessage(status.equals("True") ? "" : "SubnetsReady=False").withObservedGeneration(generation).build();
  }

  static LaunchRequest request(Requirement... requirements) {
    return LaunchFixtures.request("default-pool", "default", requirements);
  }

  @Test
  void instanceTypesComeFromEc2WithOfferingsInTheNodeClassZones(Ec2Client ec2) {
    try (Provider provider = Provider.create(ec2)) {
      List<InstanceType> types = provider.cloud().instanceTypes("default-pool", REF);

      assertThat(types).hasSizeGreaterThan(500);
      InstanceType m5 = types.stream().filter(t -> t.name().equals("m5.large")).findFirst().orElseThrow();
      assertThat(m5.capacity().toQuantities()).containsEntry("cpu", "2");
      assertThat(m5.offerings()).anySatisfy(o -> {
        assertThat(o.zone()).isEqualTo("us-west-2a");
        assertThat(o.available()).isTrue();
      });
      assertThat(provider.cloud().instanceTypes("default-pool", new NodeClassRef(EC2NodeClass.GROUP, EC2NodeClass.KIND, "missing")))
          .isEmpty();
    }
  }

  @Test
  void createLaunchesTheCheapestFittingTypeAndStampsTheNodeClassHash(Ec2Client ec2) {
    try (Provider provider = Provider.create(ec2)) {
      Instance instance = provider.cloud().create(request(
          Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND),
          Requirement.in(Labels.INSTANCE_TYPE, "m5.large", "m5.xlarge", "c5.large"),
          Requirement.in(Labels.ZONE, "us-west-2c")));

      assertThat(instance.instanceType()).isEqualTo("c5.large");
      assertThat(instance.zone()).isEqualTo("us-west-2c");
      assertThat(instance.providerId()).matches("aws:///us-west-2c/i-[0-9a-f]+");
      assertThat(instance.capacity().toQuantities()).containsEntry("cpu", "2");
      assertThat(instance.allocatable().toQuantities()).containsKey("memory");
      assertThat(instance.labels()).containsEntry(Labels.INSTANCE_TYPE, "c5.large").containsEntry("karpenter.k8s.aws/instance-family", "c5");
      assertThat(instance.annotations()).containsEntry(AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION, EC2NodeClassHash.VERSION)
          .containsKey(AwsAnnotations.EC2_NODE_CLASS_HASH);

      Instance got = provider.cloud().get(instance.providerId()).orElseThrow();
      assertThat(got.instanceType()).isEqualTo("c5.large");
      assertThat(got.capacity().toQuantities()).containsEntry("cpu", "2");
      assertThat(provider.cloud().list()).extracting(Instance::providerId).containsExactly(instance.providerId());
    }
  }

  @Test
  void aNodeClassThatIsNotReadyOrStaleLaunchesNothing(Ec2Client ec2) {
    try (Provider provider = Provider.create(ec2)) {
      EC2NodeClass nodeClass = provider.nodeClasses().get("default");
      nodeClass.getStatus().setConditions(List.of(ready("False", 1L)));
      assertThatThrownBy(() -> provider.cloud().create(request())).isInstanceOf(NodeClassNotReadyException.class)
          .hasMessageContaining("\"default\" is not ready");

      nodeClass.getStatus().setConditions(List.of(ready("True", 1L)));
      nodeClass.getMetadata().setGeneration(2L);
      assertThatThrownBy(() -> provider.cloud().create(request())).isInstanceOf(NodeClassNotReadyException.class)
          .hasMessageContaining("not been reconciled");
      assertThat(provider.cloud().list()).isEmpty();
    }
  }

  @Test
  void driftFollowsTheStaticHashTheAmiTheSubnetsAndTheSecurityGroups(Ec2Client ec2, AwsFaults faults) {
    // through the proxy, which gives fleet instances their launch template's security groups as EC2 does
    try (Ec2Client throughFaults = faults.clients().ec2(); Provider provider = Provider.create(throughFaults)) {
      EC2NodeClass nodeClass = provider.nodeClasses().get("default");
      nodeClass.getMetadata().setAnnotations(new HashMap<>(Map.of(
          AwsAnnotations.EC2_NODE_CLASS_HASH, EC2NodeClassHash.of(nodeClass, null),
          AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION, EC2NodeClassHash.VERSION)));
      Instance instance = provider.cloud().create(request(Requirement.in(Labels.INSTANCE_TYPE, "c5.large")));
      Map<String, String> claim = instance.annotations();
      assertThat(provider.cloud().driftReason(instance.providerId(), REF, claim)).isEmpty();

      // the class's spec changes: its hash no longer matches the one the NodeClaim was launched with
      nodeClass.getMetadata().getAnnotations().put(AwsAnnotations.EC2_NODE_CLASS_HASH, "123");
      assertThat(provider.cloud().driftReason(instance.providerId(), REF, claim)).isEqualTo(AwsCloudProvider.NODE_CLASS_DRIFT);
      nodeClass.getMetadata().getAnnotations().put(AwsAnnotations.EC2_NODE_CLASS_HASH, claim.get(AwsAnnotations.EC2_NODE_CLASS_HASH));

      // a new AMI resolves
      String other = ec2.describeImages(r -> r.owners("amazon").filters(f -> f.name("architecture").values("x86_64")))
          .images().stream().map(i -> i.imageId()).filter(id -> !id.equals(provider.ami())).findFirst().orElseThrow();
      nodeClass.getStatus().setAmis(List.of(LaunchFixtures.ami(other, "amd64")));
      assertThat(provider.cloud().driftReason(instance.providerId(), REF, claim)).isEqualTo(AwsCloudProvider.AMI_DRIFT);
      nodeClass.getStatus().setAmis(List.of(LaunchFixtures.ami(provider.ami(), "amd64")));

      // the instance's subnet is no longer selected
      var subnets = nodeClass.getStatus().getSubnets();
      nodeClass.getStatus().setSubnets(nodeClass.getStatus().getSubnets().stream().filter(s -> !s.getZone().equals(instance.zone())).toList());
      assertThat(provider.cloud().driftReason(instance.providerId(), REF, claim)).isEqualTo(AwsCloudProvider.SUBNET_DRIFT);
      nodeClass.getStatus().setSubnets(subnets);

      // another security group is selected instead
      String otherGroup = ec2.createSecurityGroup(r -> r.groupName("other").description("other").vpcId(provider.network().vpcId())).groupId();
      nodeClass.getStatus().getSecurityGroups().get(0).setId(otherGroup);
      assertThat(provider.cloud().driftReason(instance.providerId(), REF, claim)).isEqualTo(AwsCloudProvider.SECURITY_GROUP_DRIFT);
    }
  }

  @Test
  void deleteTerminatesTheInstance(Ec2Client ec2) {
    try (Provider provider = Provider.create(ec2)) {
      Instance instance = provider.cloud().create(request(Requirement.in(Labels.INSTANCE_TYPE, "c5.large")));
      provider.cloud().delete(instance.providerId());
      String state = ec2.describeInstances(r -> r.instanceIds(InstanceProvider.instanceId(instance.providerId())))
          .reservations().get(0).instances().get(0).state().nameAsString();
      assertThat(state).isIn("shutting-down", "terminated");
    }
  }
}
