package sh.karpenter.providers.aws.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.LaunchFixtures;
import sh.karpenter.providers.aws.launchtemplate.LaunchTemplate;
import software.amazon.awssdk.services.ec2.model.CreateFleetRequest;
import software.amazon.awssdk.services.ec2.model.FleetLaunchTemplateConfigRequest;
import software.amazon.awssdk.services.ec2.model.FleetLaunchTemplateOverridesRequest;
import software.amazon.awssdk.services.ec2.model.ResourceType;

class CreateFleetRequestsTest {
  private static final Map<String, LaunchSubnets.LaunchSubnet> SUBNETS = new LinkedHashMap<>(Map.of(
      "us-west-2a", new LaunchSubnets.LaunchSubnet("subnet-a", "us-west-2a", "usw2-az2", 200),
      "us-west-2b", new LaunchSubnets.LaunchSubnet("subnet-b", "us-west-2b", "usw2-az1", 100)));

  @Test
  void overridesAreTheCrossProductOfTypesAndZonesWithSubnetsPricedAsPriorities() {
    List<InstanceType> types = List.of(
        LaunchFixtures.instanceType("c5.large", 0.085, 0.03, List.of("us-west-2a", "us-west-2b", "us-west-2c")),
        LaunchFixtures.instanceType("m5.large", 0.096, 0.04, List.of("us-west-2a", "us-west-2b")));
    Requirements onDemand = Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND));
    List<FleetLaunchTemplateOverridesRequest> overrides = CreateFleetRequests.overrides(types, SUBNETS, onDemand, "ami-1");
    assertEquals(List.of("c5.large/subnet-a/0.085", "c5.large/subnet-b/0.085", "m5.large/subnet-a/0.096", "m5.large/subnet-b/0.096"),
        overrides.stream().map(o -> o.instanceTypeAsString() + "/" + o.subnetId() + "/" + o.priority()).toList(),
        "us-west-2c has no subnet; one override per type and zone");
    assertEquals("ami-1", overrides.get(0).imageId());
    assertEquals("us-west-2a", overrides.get(0).availabilityZone());

    Requirements spotInB = Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT), Requirement.in(Labels.ZONE, "us-west-2b"));
    assertEquals(List.of("c5.large/us-west-2b/0.03", "m5.large/us-west-2b/0.04"),
        CreateFleetRequests.overrides(types, SUBNETS, spotInB, "ami-1").stream()
            .map(o -> o.instanceTypeAsString() + "/" + o.availabilityZone() + "/" + o.priority()).toList());
  }

  @Test
  void unavailableOfferingsGetNoOverride() {
    InstanceType type = LaunchFixtures.instanceType("c5.large", 0.085, 0.03, List.of("us-west-2a", "us-west-2b"));
    InstanceType iced = type.withOfferings(type.offerings().stream()
        .map(o -> o.zone().equals("us-west-2a") ? new sh.karpenter.core.instancetype.Offering(o.requirements(), o.price(), false, 0) : o).toList());
    Requirements onDemand = Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND));
    assertEquals(List.of("subnet-b"), CreateFleetRequests.overrides(List.of(iced), SUBNETS, onDemand, "ami-1").stream().map(o -> o.subnetId()).toList());
  }

  @Test
  void atMostSixtyInstanceTypesCheapestFirst() {
    List<InstanceType> types = new ArrayList<>();
    for (int i = 99; i >= 0; i--) {
      types.add(LaunchFixtures.instanceType("type-" + i, 1.0 + i / 100.0, 0.5, List.of("us-west-2a")));
    }
    Requirements onDemand = Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND));
    List<InstanceType> truncated = InstanceTypes.truncate(types, onDemand, CreateFleetRequests.MAX_INSTANCE_TYPES);
    List<FleetLaunchTemplateConfigRequest> configs = CreateFleetRequests.launchTemplateConfigs(
        List.of(new LaunchTemplate("karpenter.k8s.aws/1", "lt-1", "ami-1", truncated)), SUBNETS, onDemand);
    List<FleetLaunchTemplateOverridesRequest> overrides = configs.get(0).overrides();
    assertEquals(60, overrides.size());
    assertEquals("type-0", overrides.get(0).instanceTypeAsString());
    assertEquals("type-59", overrides.get(59).instanceTypeAsString());
    assertEquals("karpenter.k8s.aws/1", configs.get(0).launchTemplateSpecification().launchTemplateName());
    assertEquals("$Latest", configs.get(0).launchTemplateSpecification().version());
  }

  @Test
  void theRequestIsAnInstantFleetOfOneWithTheCapacityTypesAllocationStrategy() {
    Map<String, String> tags = Map.of("karpenter.sh/nodepool", "default", "kubernetes.io/cluster/test", "owned");
    CreateFleetRequest onDemand = CreateFleetRequests.build(Labels.CAPACITY_TYPE_ON_DEMAND, tags, List.of(), null);
    assertEquals("instant", onDemand.typeAsString());
    assertEquals(1, onDemand.targetCapacitySpecification().totalTargetCapacity());
    assertEquals("on-demand", onDemand.targetCapacitySpecification().defaultTargetCapacityTypeAsString());
    assertEquals("lowest-price", onDemand.onDemandOptions().allocationStrategyAsString());
    assertNull(onDemand.spotOptions());
    assertEquals(List.of(ResourceType.INSTANCE, ResourceType.VOLUME, ResourceType.FLEET),
        onDemand.tagSpecifications().stream().map(t -> t.resourceType()).toList());
    assertEquals(List.of("karpenter.sh/nodepool", "kubernetes.io/cluster/test"),
        onDemand.tagSpecifications().get(0).tags().stream().map(t -> t.key()).toList());

    CreateFleetRequest spot = CreateFleetRequests.build(Labels.CAPACITY_TYPE_SPOT, tags, List.of(), "ctx-1");
    assertEquals("spot", spot.targetCapacitySpecification().defaultTargetCapacityTypeAsString());
    assertEquals("price-capacity-optimized", spot.spotOptions().allocationStrategyAsString());
    assertEquals("ctx-1", spot.context());
    assertEquals(CreateFleetRequests.build(Labels.CAPACITY_TYPE_SPOT, tags, List.of(), "ctx-1"), spot, "equal launches, equal requests");
  }
}
