package sh.karpenter.providers.aws.fleet;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.launchtemplate.LaunchTemplate;
import sh.karpenter.providers.aws.launchtemplate.LaunchTemplateRequests;
import software.amazon.awssdk.services.ec2.model.CreateFleetRequest;
import software.amazon.awssdk.services.ec2.model.DefaultTargetCapacityType;
import software.amazon.awssdk.services.ec2.model.FleetLaunchTemplateConfigRequest;
import software.amazon.awssdk.services.ec2.model.FleetLaunchTemplateOverridesRequest;
import software.amazon.awssdk.services.ec2.model.FleetOnDemandAllocationStrategy;
import software.amazon.awssdk.services.ec2.model.FleetType;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.SpotAllocationStrategy;
import software.amazon.awssdk.services.ec2.model.TagSpecification;

/**
 * The CreateFleet request of one launch (upstream's {@code CreateFleetInputBuilder}, {@code
 * getLaunchTemplateConfigs} and {@code getOverrides}). Pure functions: equal launches give equal
 * requests, which is what lets {@link CreateFleetBatcher} merge them.
 */
public final class CreateFleetRequests {
  private CreateFleetRequests() {}

  /** At most this many instance types go into one CreateFleet request (upstream's {@code maxInstanceTypes}). */
  public static final int MAX_INSTANCE_TYPES = 60;

  /**
   * One config per launch template that has an override: the template by name at {@code $Latest},
   * and its overrides.
   *
   * @param requirements the launch's requirements with the capacity type pinned
   */
  public static List<FleetLaunchTemplateConfigRequest> launchTemplateConfigs(
      List<LaunchTemplate> launchTemplates, Map<String, LaunchSubnets.LaunchSubnet> zonalSubnets, Requirements requirements) {
    List<FleetLaunchTemplateConfigRequest> configs = new ArrayList<>();
    for (LaunchTemplate lt : launchTemplates) {
      List<FleetLaunchTemplateOverridesRequest> overrides = overrides(lt.instanceTypes(), zonalSubnets, requirements, lt.imageId());
      if (!overrides.isEmpty()) {
        configs.add(FleetLaunchTemplateConfigRequest.builder()
            .launchTemplateSpecification(s -> s.launchTemplateName(lt.name()).version("$Latest"))
            .overrides(overrides)
            .build());
      }
    }
    return configs;
  }

  /**
   * Upstream's {@code getOverrides}: for each instance type (in the given order: cheapest first),
   * each launchable offering compatible with {@code requirements} in a zone that has a subnet, one
   * override of the type in that zone's subnet, with the image, the zone (so capacity errors name
   * it), and the offering's price as its priority.
   */
  public static List<FleetLaunchTemplateOverridesRequest> overrides(
      List<InstanceType> instanceTypes, Map<String, LaunchSubnets.LaunchSubnet> zonalSubnets, Requirements requirements, String imageId) {
    List<FleetLaunchTemplateOverridesRequest> overrides = new ArrayList<>();
    Set<String> seen = new HashSet<>();
    for (InstanceType type : instanceTypes) {
      for (Offering offering : type.offerings()) {
        if (!offering.launchable() || !offering.isCompatible(requirements)) {
          continue;
        }
        LaunchSubnets.LaunchSubnet subnet = zonalSubnets.get(offering.zone());
        if (subnet == null || !seen.add(type.name() + "/" + offering.zone())) {
          continue;
        }
        overrides.add(FleetLaunchTemplateOverridesRequest.builder()
            .instanceType(type.name())
            .subnetId(subnet.id())
            .imageId(imageId)
            .availabilityZone(subnet.zone())
            .priority(offering.price())
            .build());
      }
    }
    return overrides;
  }

  /**
   * The request: an {@code instant} fleet of one unit of {@code capacityType}, on-demand by {@code
   * lowest-price}, spot by {@code price-capacity-optimized}, the tags on the instance, its volumes
   * and the fleet, and the NodeClass's {@code context} when set.
   */
  public static CreateFleetRequest build(
      String capacityType, Map<String, String> tags, List<FleetLaunchTemplateConfigRequest> configs, String contextId) {
    List<TagSpecification> tagSpecifications = new ArrayList<>();
    for (ResourceType resource : List.of(ResourceType.INSTANCE, ResourceType.VOLUME, ResourceType.FLEET)) {
      tagSpecifications.add(TagSpecification.builder().resourceType(resource).tags(LaunchTemplateRequests.tags(tags)).build());
    }
    CreateFleetRequest.Builder request = CreateFleetRequest.builder()
        .type(FleetType.INSTANT)
        .context(contextId)
        .launchTemplateConfigs(configs)
        .targetCapacitySpecification(t -> t
            .defaultTargetCapacityType(Labels.CAPACITY_TYPE_SPOT.equals(capacityType) ? DefaultTargetCapacityType.SPOT : DefaultTargetCapacityType.ON_DEMAND)
            .totalTargetCapacity(1))
        .tagSpecifications(tagSpecifications);
    if (Labels.CAPACITY_TYPE_SPOT.equals(capacityType)) {
      request.spotOptions(o -> o.allocationStrategy(SpotAllocationStrategy.PRICE_CAPACITY_OPTIMIZED));
    } else {
      request.onDemandOptions(o -> o.allocationStrategy(FleetOnDemandAllocationStrategy.LOWEST_PRICE));
    }
    return request.build();
  }
}
