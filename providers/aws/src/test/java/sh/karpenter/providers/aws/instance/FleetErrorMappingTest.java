package sh.karpenter.providers.aws.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.cloudprovider.CreateException;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.LaunchFixtures;
import sh.karpenter.providers.aws.fleet.FleetErrors;
import software.amazon.awssdk.services.ec2.model.CreateFleetError;

class FleetErrorMappingTest {
  private static CreateFleetError error(String code) {
    return CreateFleetError.builder().errorCode(code).errorMessage(code + " message").build();
  }

  @Test
  void onlyCapacityErrorsMeanInsufficientCapacity() {
    assertInstanceOf(InsufficientCapacityException.class, InstanceProvider.combineFleetErrors(List.of(
        error("InsufficientInstanceCapacity"), error("MaxSpotInstanceCountExceeded"), error("VcpuLimitExceeded"),
        error("UnfulfillableCapacity"), error(FleetErrors.SERVICE_LINKED_ROLE_CREATION_NOT_PERMITTED))));
    RuntimeException mixed = InstanceProvider.combineFleetErrors(List.of(error("InsufficientInstanceCapacity"), error("InvalidAMIID.NotFound")));
    CreateException create = assertInstanceOf(CreateException.class, mixed);
    assertEquals("AMINotFound", create.reason());
  }

  @Test
  void reasonsAsUpstream() {
    assertEquals("Unauthorized", FleetErrors.reasonMessage("UnauthorizedOperation: no").reason());
    assertEquals("RequestLimitExceeded", FleetErrors.reasonMessage("RequestLimitExceeded: slow down").reason());
    assertEquals("SpotSLRCreationFailed", FleetErrors.reasonMessage("AuthFailure.ServiceLinkedRoleCreationNotPermitted").reason());
    assertEquals("LaunchFailed", FleetErrors.reasonMessage("something else").reason());
  }

  @Test
  void spotWhenAllowedAndOffered() {
    var types = List.of(LaunchFixtures.instanceType("m5.large", 0.096, 0.04, List.of("us-west-2a")));
    assertEquals(Labels.CAPACITY_TYPE_SPOT, InstanceProvider.capacityType(Requirements.of(), types));
    assertEquals(Labels.CAPACITY_TYPE_ON_DEMAND,
        InstanceProvider.capacityType(Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND)), types));
  }

  @Test
  void spotOfferingsDearerThanTheCheapestOnDemandAreDropped() {
    var cheap = LaunchFixtures.instanceType("cheap", 0.05, 0.02, List.of("us-west-2a"));
    var pricySpot = LaunchFixtures.instanceType("pricy-spot", 0.2, 0.1, List.of("us-west-2a"));
    var filtered = InstanceProvider.spotOfferingFilter(List.of(cheap, pricySpot), Requirements.of());
    assertEquals(1, filtered.get(1).offerings().size(), "pricy-spot keeps only its on-demand offering");
    assertEquals(Labels.CAPACITY_TYPE_ON_DEMAND, filtered.get(1).offerings().get(0).capacityType());
  }

  @Test
  void providerIds() {
    assertEquals("aws:///us-west-2a/i-0123", InstanceProvider.providerId("us-west-2a", "i-0123"));
    assertEquals("i-0123", InstanceProvider.instanceId("aws:///us-west-2a/i-0123"));
    org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class, () -> InstanceProvider.instanceId("kwok://x"));
  }
}
