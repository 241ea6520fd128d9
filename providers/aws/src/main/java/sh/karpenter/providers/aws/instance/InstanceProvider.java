package sh.karpenter.providers.aws.instance;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.AwsTags;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.Subnet;
import sh.karpenter.core.cloudprovider.CreateException;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;
import sh.karpenter.providers.aws.fleet.CreateFleetBatcher;
import sh.karpenter.providers.aws.fleet.CreateFleetRequests;
import sh.karpenter.providers.aws.fleet.FleetErrors;
import sh.karpenter.providers.aws.fleet.LaunchSubnets;
import sh.karpenter.providers.aws.launchtemplate.LaunchTemplate;
import sh.karpenter.providers.aws.launchtemplate.LaunchTemplateProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesRequest;
import software.amazon.awssdk.services.ec2.model.CreateFleetError;
import software.amazon.awssdk.services.ec2.model.CreateFleetInstance;
import software.amazon.awssdk.services.ec2.model.CreateFleetRequest;
import software.amazon.awssdk.services.ec2.model.CreateFleetResponse;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesResponse;
import software.amazon.awssdk.services.ec2.model.FleetLaunchTemplateConfigRequest;
import software.amazon.awssdk.services.ec2.model.FleetLaunchTemplateOverrides;
import software.amazon.awssdk.services.ec2.model.Filter;

/**
 * Launches, finds and terminates the EC2 instances of Karpenter's NodeClaims (upstream's {@code
 * instance.DefaultProvider}). Thread-safe; the collaborators are shared.
 */
public final class InstanceProvider {
  private static final Logger LOG = LoggerFactory.getLogger(InstanceProvider.class);

  /** The states an instance Karpenter still manages can be in (upstream's {@code instanceStateFilter}). */
  public static final List<String> LIVE_STATES = List.of("pending", "running", "stopping", "stopped", "shutting-down");

  /** Below this many instance types, launching on-demand while spot is allowed is logged (upstream's threshold). */
  static final int INSTANCE_TYPE_FLEXIBILITY_THRESHOLD = 5;

  private final Ec2Client ec2;
  private final String clusterName;
  private final LaunchTemplateProvider launchTemplates;
  private final LaunchSubnets subnets;
  private final CreateFleetBatcher batcher;
  private final DescribeInstancesBatcher describeBatcher;
  private final UnavailableOfferings unavailableOfferings;

  public InstanceProvider(
      Ec2Client ec2,
      String clusterName,
      LaunchTemplateProvider launchTemplates,
      LaunchSubnets subnets,
      CreateFleetBatcher batcher,
      DescribeInstancesBatcher describeBatcher,
      UnavailableOfferings unavailableOfferings) {
    this.ec2 = Objects.requireNonNull(ec2, "ec2");
    this.clusterName = Objects.requireNonNull(clusterName, "clusterName");
    this.launchTemplates = Objects.requireNonNull(launchTemplates, "launchTemplates");
    this.subnets = Objects.requireNonNull(subnets, "subnets");
    this.batcher = Objects.requireNonNull(batcher, "batcher");
    this.describeBatcher = Objects.requireNonNull(describeBatcher, "describeBatcher");
    this.unavailableOfferings = Objects.requireNonNull(unavailableOfferings, "unavailableOfferings");
  }

  /**
   * Launches one instance for the request from the NodeClass (its status resolved: subnets, security
   * groups, AMIs, instance profile), choosing among {@code instanceTypes} (priced, with offerings).
   *
   * @throws NodeClassNotReadyException when the NodeClass's tags use keys Karpenter owns, or the
   *     cluster's service CIDR (AL2023) is unknown
   * @throws InsufficientCapacityException when no candidate offering is left, or every offering
   *     CreateFleet tried was out of capacity (those are marked unavailable)
   * @throws CreateException with upstream's reason for any other failure
   */
  public Instance create(EC2NodeClass nodeClass, LaunchRequest request, List<InstanceType> instanceTypes) {
    Map<String, String> tags = tags(nodeClass, request, clusterName);
    Requirements requirements = request.requirements();
    List<InstanceType> candidates = filterInstanceTypes(instanceTypes, request);
    String capacityType = capacityType(requirements, candidates);
    CreateFleetInstance launched;
    try {
      launched = launch(nodeClass, request, capacityType, candidates, tags);
    } catch (CreateException e) {
      if (!"LaunchTemplateNotFound".equals(e.reason())) {
        throw e;
      }
      // the cache was out of date: launch once more, which creates the templates again
      launched = launch(nodeClass, request, capacityType, candidates, tags);
    }
    FleetLaunchTemplateOverrides override = launched.launchTemplateAndOverrides().overrides();
    String instanceId = launched.instanceIds().get(0);
    String zone = override.availabilityZone();
    String typeName = launched.instanceTypeAsString();
    InstanceType type = candidates.stream().filter(t -> t.name().equals(typeName)).findFirst().orElse(null);
    LOG.info("launched instance {} ({} {} {}) for NodeClaim {}", instanceId, typeName, zone, capacityType, request.nodeClaimName());
    return instance(providerId(zone, instanceId), typeName, zone, zoneId(nodeClass, zone), capacityType,
        tags.get(Labels.NODE_POOL), override.imageId(), type);
  }

  private CreateFleetInstance launch(
      EC2NodeClass nodeClass, LaunchRequest request, String capacityType, List<InstanceType> candidates, Map<String, String> tags) {
    Map<String, LaunchSubnets.LaunchSubnet> zonalSubnets;
    try {
      zonalSubnets = subnets.zonalSubnetsForLaunch(nodeClass);
    } catch (IllegalArgumentException | SdkException e) {
      throw new CreateException("SubnetResolutionFailed", "Error getting subnets: " + e.getMessage(), e);
    }
    List<Taint> taints = new ArrayList<>(request.taints());
    taints.addAll(request.startupTaints());
    List<LaunchTemplate> templates;
    try {
      templates = launchTemplates.ensureAll(nodeClass, candidates, capacityType, request.labels(), taints, tags);
    } catch (NodeClassNotReadyException e) {
      throw e;
    } catch (IllegalArgumentException | IllegalStateException | SdkException e) {
      FleetErrors.ReasonMessage rm = FleetErrors.reasonMessage(e.getMessage());
      throw new CreateException(rm.reason(), "Error getting launch template configs: " + e.getMessage(), e);
    }
    Requirements pinned = request.requirements();
    pinned.put(Requirement.in(Labels.CAPACITY_TYPE, capacityType));
    List<FleetLaunchTemplateConfigRequest> configs = CreateFleetRequests.launchTemplateConfigs(templates, zonalSubnets, pinned);
    if (configs.isEmpty()) {
      throw new CreateException("LaunchFailed", "Error getting launch template configs: no capacity offerings are currently available given the constraints", null);
    }
    if (Labels.CAPACITY_TYPE_ON_DEMAND.equals(capacityType)
        && request.requirements().get(Labels.CAPACITY_TYPE).has(Labels.CAPACITY_TYPE_SPOT)
        && candidates.size() < INSTANCE_TYPE_FLEXIBILITY_THRESHOLD) {
      LOG.warn("at least {} instance types are recommended when flexible to spot but requesting on-demand, the current provisioning request only has {} instance type options",
          INSTANCE_TYPE_FLEXIBILITY_THRESHOLD, candidates.size());
    }
    String context = nodeClass.getSpec() == null ? null : nodeClass.getSpec().getContext();
    CreateFleetRequest fleetRequest = CreateFleetRequests.build(capacityType, tags, configs, context);
    CreateFleetResponse output;
    try {
      output = batcher.createFleet(fleetRequest);
    } catch (SdkException e) {
      FleetErrors.ReasonMessage rm = FleetErrors.reasonMessage(e.getMessage());
      if (FleetErrors.isLaunchTemplateNotFound(e)) {
        templates.forEach(t -> launchTemplates.invalidate(t.name()));
        throw new CreateException("LaunchTemplateNotFound", "Launch templates not found when creating fleet request: " + e.getMessage(), e);
      }
      throw new CreateException(rm.reason(), "Error creating fleet request: " + rm.message() + " (" + e.getMessage() + ")", e);
    }
    updateUnavailableOfferings(output.errors(), capacityType);
    if (output.instances().isEmpty() || output.instances().get(0).instanceIds().isEmpty()) {
      throw combineFleetErrors(output.errors());
    }
    CreateFleetInstance instance = output.instances().get(0);
    String subnetId = instance.launchTemplateAndOverrides() == null ? null : instance.launchTemplateAndOverrides().overrides().subnetId();
    if (subnetId != null) {
      subnets.launched(subnetId);
    }
    return instance;
  }

  /** Upstream's {@code updateUnavailableOfferingsCache} (without reserved capacity and placement groups). */
  private void updateUnavailableOfferings(List<CreateFleetError> errors, String capacityType) {
    for (CreateFleetError error : errors) {
      FleetLaunchTemplateOverrides override = error.launchTemplateAndOverrides() == null ? null : error.launchTemplateAndOverrides().overrides();
      if (FleetErrors.isInsufficientFreeAddressesInSubnet(error) && override != null && override.subnetId() != null) {
        unavailableOfferings.markSubnetUnavailable(override.subnetId());
        subnets.exhausted(override.subnetId());
      }
      if (FleetErrors.isUnfulfillableCapacity(error) && override != null) {
        unavailableOfferings.markUnavailable(override.instanceTypeAsString(), override.availabilityZone(), capacityType, error.errorCode());
      }
      if (FleetErrors.isServiceLinkedRoleCreationNotPermitted(error)) {
        unavailableOfferings.markCapacityTypeUnavailable(Labels.CAPACITY_TYPE_SPOT);
      }
    }
  }

  /**
   * Upstream's {@code combineFleetErrors}: {@link InsufficientCapacityException} when every error is
   * a capacity error (or the spot service-linked role one), else {@link CreateException} with the
   * reason of the distinct errors.
   */
  static RuntimeException combineFleetErrors(List<CreateFleetError> errors) {
    Set<String> unique = new LinkedHashSet<>();
    errors.forEach(e -> unique.add(e.errorCode() + ": " + e.errorMessage()));
    String combined = String.join("; ", unique);
    boolean allCapacity = errors.stream().allMatch(e -> FleetErrors.isUnfulfillableCapacity(e) || FleetErrors.isServiceLinkedRoleCreationNotPermitted(e));
    if (allCapacity) {
      return new InsufficientCapacityException("with fleet error(s), " + (combined.isEmpty() ? "no instance launched" : combined));
    }
    FleetErrors.ReasonMessage rm = FleetErrors.reasonMessage(combined);
    return new CreateException(rm.reason(), rm.message() + ": " + combined, null);
  }

  /**
   * Upstream's launch filters (compatible-launchable, spot-offering) plus the offerings this provider
   * saw run out of capacity, then the 60 cheapest.
   */
  List<InstanceType> filterInstanceTypes(List<InstanceType> instanceTypes, LaunchRequest request) {
    Requirements requirements = request.requirements();
    Resources requests = request.requests();
    List<InstanceType> remaining = new ArrayList<>();
    for (InstanceType type : instanceTypes) {
      if (!type.requirements().intersects(requirements) || !requests.fits(type.allocatable())) {
        continue;
      }
      List<Offering> offerings = new ArrayList<>(type.offerings().size());
      boolean changed = false;
      boolean launchable = false;
      for (Offering o : type.offerings()) {
        if (o.available() && unavailableOfferings.unavailable(type.name(), o.zone(), o.capacityType())) {
          offerings.add(new Offering(o.requirements(), o.price(), false, o.reservationCapacity()));
          changed = true;
        } else {
          offerings.add(o);
          launchable |= o.launchable() && o.isCompatible(requirements) && !o.isReserved();
        }
      }
      if (launchable) {
        remaining.add(changed ? type.withOfferings(offerings) : type);
      }
    }
    if (remaining.isEmpty()) {
      throw new InsufficientCapacityException("all requested instance types were unavailable during launch");
    }
    remaining = spotOfferingFilter(remaining, requirements);
    List<InstanceType> truncated = InstanceTypes.truncate(remaining, requirements, CreateFleetRequests.MAX_INSTANCE_TYPES);
    if (truncated == null) {
      throw new InsufficientCapacityException("truncating instance types based on the passed-in requirements: minValues cannot be met by the "
          + CreateFleetRequests.MAX_INSTANCE_TYPES + " cheapest instance types");
    }
    return truncated;
  }

  /**
   * Upstream's {@code SpotOfferingFilter}: when both spot and on-demand are allowed (and no
   * minValues), spot offerings dearer than the cheapest on-demand offering are dropped.
   */
  static List<InstanceType> spotOfferingFilter(List<InstanceType> types, Requirements requirements) {
    Requirement capacityTypes = requirements.get(Labels.CAPACITY_TYPE);
    if (requirements.hasMinValues() || !capacityTypes.has(Labels.CAPACITY_TYPE_ON_DEMAND) || !capacityTypes.has(Labels.CAPACITY_TYPE_SPOT)) {
      return types;
    }
    double cheapestOnDemand = Double.MAX_VALUE;
    boolean spot = false;
    boolean onDemand = false;
    for (InstanceType type : types) {
      for (Offering o : type.offerings()) {
        if (!o.available() || !o.isCompatible(requirements)) {
          continue;
        }
        if (Labels.CAPACITY_TYPE_ON_DEMAND.equals(o.capacityType())) {
          onDemand = true;
          cheapestOnDemand = Math.min(cheapestOnDemand, o.price());
        } else if (Labels.CAPACITY_TYPE_SPOT.equals(o.capacityType())) {
          spot = true;
        }
      }
    }
    if (!spot || !onDemand) {
      return types;
    }
    List<InstanceType> remaining = new ArrayList<>();
    for (InstanceType type : types) {
      double limit = cheapestOnDemand;
      List<Offering> kept = type.offerings().stream()
          .filter(o -> !(Labels.CAPACITY_TYPE_SPOT.equals(o.capacityType()) && o.price() > limit))
          .toList();
      if (!kept.isEmpty()) {
        remaining.add(kept.size() == type.offerings().size() ? type : type.withOfferings(kept));
      }
    }
    return remaining;
  }

  /**
   * Upstream's {@code getCapacityType} (without reserved capacity): spot when the requirements allow
   * it and a candidate has a launchable compatible spot offering, else on-demand.
   */
  static String capacityType(Requirements requirements, List<InstanceType> candidates) {
    if (requirements.get(Labels.CAPACITY_TYPE).has(Labels.CAPACITY_TYPE_SPOT)) {
      Requirements spot = requirements.copy();
      spot.put(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT));
      for (InstanceType type : candidates) {
        for (Offering o : type.offerings()) {
          if (o.launchable() && o.isCompatible(spot)) {
            return Labels.CAPACITY_TYPE_SPOT;
          }
        }
      }
    }
    return Labels.CAPACITY_TYPE_ON_DEMAND;
  }

  /**
   * The instance's tags (upstream's {@code GetTags}): the NodeClass's {@code spec.tags}, then {@code
   * kubernetes.io/cluster/<cluster>=owned}, {@code karpenter.sh/nodepool}, {@code
   * eks:eks-cluster-name} and {@code karpenter.k8s.aws/ec2nodeclass}.
   *
   * @throws NodeClassNotReadyException naming the keys when {@code spec.tags} sets one Karpenter owns
   */
  public static Map<String, String> tags(EC2NodeClass nodeClass, LaunchRequest request, String clusterName) {
    Map<String, String> specTags = nodeClass.getSpec() == null || nodeClass.getSpec().getTags() == null ? Map.of() : nodeClass.getSpec().getTags();
    List<String> invalid = specTags.keySet().stream().filter(AwsTags::isRestricted).sorted().map(k -> "\"" + k + "\"").toList();
    if (!invalid.isEmpty()) {
      throw new NodeClassNotReadyException("EC2NodeClass " + nodeClass.getMetadata().getName() + ": tags failed validation requirements: " + String.join(", ", invalid));
    }
    Map<String, String> tags = new TreeMap<>(specTags);
    tags.put(AwsTags.clusterTag(clusterName), AwsTags.CLUSTER_TAG_OWNED);
    tags.put(AwsTags.NODE_POOL, request.labels().getOrDefault(Labels.NODE_POOL, request.nodePoolName()));
    tags.put(AwsTags.EKS_CLUSTER_NAME, clusterName);
    tags.put(AwsTags.NODE_CLASS, nodeClass.getMetadata().getName());
    return tags;
  }

  /**
   * The instance, or empty when EC2 does not know it or it is terminated (DescribeInstances by ID,
   * {@link #LIVE_STATES} only, merged with concurrent lookups by the {@link DescribeInstancesBatcher}).
   *
   * @throws IllegalArgumentException when {@code providerId} is not {@code aws:///<zone>/<id>}
   */
  public Optional<AwsInstance> describe(String providerId) {
    String id = instanceId(providerId);
    DescribeInstancesResponse out;
    try {
      out = describeBatcher.describeInstances(DescribeInstancesRequest.builder().instanceIds(id).filters(stateFilter()).build());
    } catch (SdkException e) {
      if (FleetErrors.isNotFound(e)) {
        return Optional.empty();
      }
      throw e;
    }
    return out.reservations().stream().flatMap(r -> r.instances().stream()).filter(i -> id.equals(i.instanceId())).findFirst().map(AwsInstance::of);
  }

  /** The instance as a core {@link Instance} (labels from EC2; no capacity), or empty when gone. */
  public Optional<Instance> get(String providerId) {
    return describe(providerId).map(InstanceProvider::instance);
  }

  /**
   * Every instance of this cluster Karpenter launched and EC2 still has live (upstream's {@code
   * List}: tagged with a NodePool, an EC2NodeClass and this cluster's name).
   */
  public List<AwsInstance> listAws() {
    List<AwsInstance> instances = new ArrayList<>();
    ec2.describeInstancesPaginator(r -> r
            .filters(
                Filter.builder().name("tag-key").values(AwsTags.NODE_POOL).build(),
                Filter.builder().name("tag-key").values(AwsTags.NODE_CLASS).build(),
                Filter.builder().name("tag:" + AwsTags.EKS_CLUSTER_NAME).values(clusterName).build(),
                stateFilter())
            .maxResults(1000))
        .reservations()
        .forEach(r -> r.instances().forEach(i -> instances.add(AwsInstance.of(i))));
    return instances;
  }

  /** {@link #listAws()} as core {@link Instance}s. */
  public List<Instance> list() {
    return listAws().stream().map(InstanceProvider::instance).toList();
  }

  /**
   * Terminates the instance unless it is already shutting down (upstream's {@code Delete}).
   *
   * @throws NodeClaimNotFoundException once the instance is gone or terminated
   */
  public void delete(String providerId) {
    AwsInstance instance = describe(providerId)
        .orElseThrow(() -> new NodeClaimNotFoundException("instance " + providerId + " not found"));
    if (!"shutting-down".equals(instance.state())) {
      try {
        ec2.terminateInstances(r -> r.instanceIds(instance.id()));
      } catch (SdkException e) {
        if (FleetErrors.isNotFound(e)) {
          throw new NodeClaimNotFoundException("instance " + providerId + " not found: " + e.getMessage());
        }
        throw e;
      }
      LOG.info("terminating instance {} ({})", instance.id(), instance.instanceType());
    }
  }

  private static Filter stateFilter() {
    return Filter.builder().name("instance-state-name").values(LIVE_STATES).build();
  }

  private static String zoneId(EC2NodeClass nodeClass, String zone) {
    if (nodeClass.getStatus() == null || nodeClass.getStatus().getSubnets() == null) {
      return "";
    }
    return nodeClass.getStatus().getSubnets().stream()
        .filter(s -> zone.equals(s.getZone()) && s.getZoneID() != null)
        .map(Subnet::getZoneID)
        .findFirst()
        .orElse("");
  }

  /** The described instance as a core {@link Instance}: labels from EC2, no capacity. */
  public static Instance instance(AwsInstance i) {
    return instance(i.providerId(), i.instanceType(), i.zone(), i.zoneId(), i.capacityType(), i.tags().get(AwsTags.NODE_POOL), i.imageId(), null);
  }

  /**
   * Upstream's {@code instanceToNodeClaim}: the instance type's single-valued labels (not the
   * reservation ones), the zone and its ID, the capacity type, the tenancy and the NodePool; capacity
   * and allocatable from the type when known.
   */
  static Instance instance(
      String providerId, String instanceType, String zone, String zoneId, String capacityType, String nodePool, String imageId, InstanceType type) {
    Map<String, String> labels = new LinkedHashMap<>();
    Resources capacity = Resources.EMPTY;
    Resources allocatable = Resources.EMPTY;
    if (type != null) {
      for (Requirement r : type.requirements()) {
        if (!r.complement() && r.size() == 1 && !r.key().equals(Labels.RESERVATION_ID)
            && !r.key().equals(AwsLabels.CAPACITY_RESERVATION_TYPE) && !r.key().equals(AwsLabels.CAPACITY_RESERVATION_INTERRUPTIBLE)) {
          labels.put(r.key(), r.any());
        }
      }
      capacity = type.capacity();
      allocatable = type.allocatable();
    }
    labels.put(Labels.INSTANCE_TYPE, instanceType);
    labels.put(Labels.ZONE, zone);
    if (zoneId != null && !zoneId.isEmpty()) {
      labels.put(AwsLabels.TOPOLOGY_ZONE_ID, zoneId);
    }
    labels.put(Labels.CAPACITY_TYPE, capacityType);
    labels.put(AwsLabels.INSTANCE_TENANCY, "default");
    if (nodePool != null) {
      labels.put(Labels.NODE_POOL, nodePool);
    }
    return new Instance(providerId, instanceType, zone, capacityType, labels, Map.of(), capacity, allocatable, imageId);
  }

  /** {@code aws:///<zone>/<instance-id>}. */
  public static String providerId(String zone, String instanceId) {
    return "aws:///" + zone + "/" + instanceId;
  }

  /**
   * The instance ID of {@code aws:///<zone>/<id>}.
   *
   * @throws IllegalArgumentException naming the provider ID when it has another form
   */
  public static String instanceId(String providerId) {
    if (providerId == null || !providerId.startsWith("aws:///")) {
      throw new IllegalArgumentException("provider ID \"" + providerId + "\" is not of the form aws:///<zone>/<instance-id>");
    }
    String rest = providerId.substring("aws:///".length());
    int slash = rest.lastIndexOf('/');
    String id = slash < 0 ? rest : rest.substring(slash + 1);
    if (!id.startsWith("i-")) {
      throw new IllegalArgumentException("provider ID \"" + providerId + "\" is not of the form aws:///<zone>/<instance-id>");
    }
    return id;
  }
}
