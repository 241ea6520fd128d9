package sh.karpenter.providers.aws.instancetype;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.ZoneInfo;
import sh.karpenter.core.catalog.AwsCatalogOptions;
import sh.karpenter.core.catalog.AwsInstanceTypeInfo;
import sh.karpenter.core.catalog.AwsInstanceTypes;
import sh.karpenter.core.catalog.AwsNodeClassSettings;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.catalog.SpotPriceModel;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.pricing.PricingProvider;
import sh.karpenter.providers.aws.sdk.SdkErrors;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceTypeOfferingsRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceTypeOfferingsResponse;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceTypesRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceTypesResponse;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.InstanceTypeInfo;
import software.amazon.awssdk.services.ec2.model.InstanceTypeOffering;
import software.amazon.awssdk.services.ec2.model.LocationType;

/**
 * The instance types of the region as an EC2NodeClass sees them (upstream {@code
 * instancetype.DefaultProvider} with the {@code DefaultResolver} and the base offering resolver).
 *
 * <p>{@link #refresh()} (upstream's {@code providers.instancetype} controller, every 12 hours) reads
 * DescribeInstanceTypes (hvm, x86_64 and arm64) and DescribeInstanceTypeOfferings (by availability
 * zone). {@link #list} builds core {@link InstanceType}s with core's AWS formulas ({@link
 * AwsInstanceTypes}; docs/behaviour/cloudprovider.md#aws-catalogue) and caches them per node-class
 * inputs until the EC2 data changes; offerings are added on every call from the current prices and
 * {@link OfferingAvailability}. Thread-safe: a refresh swaps in a new immutable state.
 */
public final class InstanceTypeProvider {
  private static final Logger LOG = LoggerFactory.getLogger(InstanceTypeProvider.class);

  /** How often upstream's instance-type controller refreshes: every 12 hours. */
  public static final Duration REFRESH_PERIOD = Duration.ofHours(12);

  /** DescribeInstanceTypes' maximum page size. */
  static final int INSTANCE_TYPES_PAGE_SIZE = 100;

  /** DescribeInstanceTypeOfferings' maximum page size. */
  static final int OFFERINGS_PAGE_SIZE = 1000;

  /**
   * The AWS provider settings that change capacity.
   *
   * @param vmMemoryOverheadPercent {@code VM_MEMORY_OVERHEAD_PERCENT}, default 0.075
   * @param reservedEnis {@code RESERVED_ENIS}, default 0
   */
  public record Settings(double vmMemoryOverheadPercent, int reservedEnis) {
    public static final Settings DEFAULT = new Settings(AwsCatalogOptions.DEFAULT_VM_MEMORY_OVERHEAD_PERCENT, 0);
  }

  /** One type as DescribeInstanceTypes gave it, in core's form, with its capacity types. */
  private record Entry(InstanceTypeInfo ec2, AwsInstanceTypeInfo info, List<String> capacityTypes) {}

  /** Everything a list needs; replaced whole by a refresh. The cache belongs to the state it was built from. */
  private record State(
      List<InstanceTypeInfo> rawTypes,
      Map<String, Entry> types,
      Map<String, Set<String>> offerings,
      List<String> allZones,
      ConcurrentHashMap<Object, List<InstanceType>> cache) {
    State withTypes(List<InstanceTypeInfo> raw, Map<String, Entry> newTypes) {
      return new State(raw, newTypes, offerings, allZones, new ConcurrentHashMap<>());
    }

    State withOfferings(Map<String, Set<String>> newOfferings, List<String> zones) {
      return new State(rawTypes, types, newOfferings, zones, new ConcurrentHashMap<>());
    }
  }

  private final Ec2Client ec2;
  private final String region;
  private final PricingProvider pricing;
  private final OfferingAvailability availability;
  private final AwsCatalogOptions options;
  private final Clock clock;
  private final Map<String, AwsInstanceTypeInfo> bundled;
  private final Object refreshLock = new Object();
  private volatile State state = new State(List.of(), Map.of(), Map.of(), List.of(), new ConcurrentHashMap<>());
  private volatile Instant lastRefreshed;

  public InstanceTypeProvider(
      Ec2Client ec2,
      String region,
      PricingProvider pricing,
      OfferingAvailability availability,
      Settings settings,
      Clock clock) {
    this.ec2 = Objects.requireNonNull(ec2, "ec2");
    this.region = Objects.requireNonNull(region, "region");
    this.pricing = Objects.requireNonNull(pricing, "pricing");
    this.availability = Objects.requireNonNull(availability, "availability");
    this.clock = Objects.requireNonNull(clock, "clock");
    // core's options carry the two settings; zones and spot model are not used on this path
    this.options =
        new AwsCatalogOptions(List.of(region), SpotPriceModel.onDemand(), settings.vmMemoryOverheadPercent(), settings.reservedEnis());
    Map<String, AwsInstanceTypeInfo> byName = new HashMap<>();
    for (AwsInstanceTypeInfo info : InstanceTypeCatalog.bundledAwsInstanceTypes()) {
      byName.put(info.name(), info);
    }
    this.bundled = Map.copyOf(byName);
  }

  /**
   * Upstream's controller body: updates instance types and offerings (both are tried) and returns
   * when to run again.
   *
   * @throws InstanceTypeException when either update failed (the other's result is kept); a loop
   *     retries with backoff
   */
  public Duration refresh() {
    List<String> errors = new ArrayList<>();
    try {
      updateInstanceTypes();
    } catch (InstanceTypeException e) {
      errors.add(e.getMessage());
    }
    try {
      updateInstanceTypeOfferings();
    } catch (InstanceTypeException e) {
      errors.add(e.getMessage());
    }
    if (!errors.isEmpty()) {
      throw new InstanceTypeException("updating instance types, " + String.join("; ", errors));
    }
    lastRefreshed = clock.instant();
    return REFRESH_PERIOD;
  }

  /** Reads DescribeInstanceTypes; the cache is flushed when the answer changed. */
  public void updateInstanceTypes() {
    synchronized (refreshLock) {
      List<InstanceTypeInfo> raw = new ArrayList<>();
      try {
        DescribeInstanceTypesRequest request =
            DescribeInstanceTypesRequest.builder()
                .filters(
                    Filter.builder().name("supported-virtualization-type").values("hvm").build(),
                    Filter.builder().name("processor-info.supported-architecture").values("x86_64", "arm64").build())
                .maxResults(INSTANCE_TYPES_PAGE_SIZE)
                .build();
        for (DescribeInstanceTypesResponse page : ec2.describeInstanceTypesPaginator(request)) {
          raw.addAll(page.instanceTypes());
        }
      } catch (SdkException e) {
        throw new InstanceTypeException("describing instance types, " + SdkErrors.describe(e), e);
      }
      State current = state;
      if (raw.equals(current.rawTypes())) {
        return;
      }
      Map<String, Entry> types = new LinkedHashMap<>();
      for (InstanceTypeInfo info : raw) {
        String name = info.instanceTypeAsString();
        try {
          types.put(name, new Entry(info, InstanceTypeInfos.toCatalogInfo(info, bundled.get(name)), InstanceTypeInfos.capacityTypes(info)));
        } catch (IllegalArgumentException e) {
          LOG.warn("skipping instance type: {}", e.getMessage());
        }
      }
      state = current.withTypes(List.copyOf(raw), Map.copyOf(types));
      LOG.info("discovered instance types: {}", types.size());
    }
  }

  /** Reads DescribeInstanceTypeOfferings by availability zone; the cache is flushed when they changed. */
  public void updateInstanceTypeOfferings() {
    synchronized (refreshLock) {
      Map<String, Set<String>> offerings = new HashMap<>();
      try {
        DescribeInstanceTypeOfferingsRequest request =
            DescribeInstanceTypeOfferingsRequest.builder()
                .locationType(LocationType.AVAILABILITY_ZONE)
                .maxResults(OFFERINGS_PAGE_SIZE)
                .build();
        for (DescribeInstanceTypeOfferingsResponse page : ec2.describeInstanceTypeOfferingsPaginator(request)) {
          for (InstanceTypeOffering offering : page.instanceTypeOfferings()) {
            offerings.computeIfAbsent(offering.instanceTypeAsString(), k -> new TreeSet<>()).add(offering.location());
          }
        }
      } catch (SdkException e) {
        throw new InstanceTypeException("describing instance type zone offerings, " + SdkErrors.describe(e), e);
      }
      Map<String, Set<String>> frozen = new HashMap<>();
      Set<String> zones = new TreeSet<>();
      offerings.forEach((type, typeZones) -> {
        frozen.put(type, Set.copyOf(typeZones));
        zones.addAll(typeZones);
      });
      State current = state;
      if (frozen.equals(current.offerings())) {
        return;
      }
      state = current.withOfferings(Map.copyOf(frozen), List.copyOf(zones));
      LOG.info("discovered offerings for {} instance types in zones {}", frozen.size(), zones);
    }
  }

  /** The instance types of a node class, from its status's subnets and its spec (see {@link NodeClassInputs#from}). */
  public List<InstanceType> list(EC2NodeClass nodeClass) {
    return list(NodeClassInputs.from(nodeClass));
  }

  /**
   * The instance types for these inputs, each with an offering per zone of the region and capacity
   * type it supports: available when the type is compatible with the AMI family, offered in the zone,
   * the zone has one of the class's subnets, it has a price and {@link OfferingAvailability} does not
   * call it unavailable.
   *
   * @throws InstanceTypeException before the first refresh, or when the inputs have no zones
   */
  public List<InstanceType> list(NodeClassInputs inputs) {
    State current = state;
    check(current, inputs);
    List<InstanceType> types = current.cache().computeIfAbsent(inputs.cacheKey(), key -> build(current, inputs));
    OfferingRequirements requirements = new OfferingRequirements(inputs, current.allZones());
    List<InstanceType> out = new ArrayList<>(types.size());
    for (InstanceType type : types) {
      out.add(type.withOfferings(offerings(current, type.name(), inputs, requirements)));
    }
    return out;
  }

  /** One type of a node class by name, empty when the region has no such type. */
  public Optional<InstanceType> get(EC2NodeClass nodeClass, String name) {
    return get(NodeClassInputs.from(nodeClass), name);
  }

  /** One type by name, empty when the region has no such type. */
  public Optional<InstanceType> get(NodeClassInputs inputs, String name) {
    State current = state;
    check(current, inputs);
    List<InstanceType> cached = current.cache().get(inputs.cacheKey());
    InstanceType type = null;
    if (cached != null) {
      type = cached.stream().filter(t -> t.name().equals(name)).findFirst().orElse(null);
    } else if (current.types().containsKey(name)) {
      type = instanceType(current, current.types().get(name), inputs);
    }
    if (type == null) {
      return Optional.empty();
    }
    return Optional.of(type.withOfferings(offerings(current, name, inputs, new OfferingRequirements(inputs, current.allZones()))));
  }

  /** Every zone some type is offered in, sorted; empty before the first refresh. */
  public List<String> zones() {
    return state.allZones();
  }

  /** When the last refresh succeeded, or null. */
  public Instant lastRefreshed() {
    return lastRefreshed;
  }

  private static void check(State current, NodeClassInputs inputs) {
    if (current.types().isEmpty()) {
      throw new InstanceTypeException("no instance types found");
    }
    if (current.offerings().isEmpty()) {
      throw new InstanceTypeException("no instance types offerings found");
    }
    if (inputs.zones().isEmpty()) {
      throw new InstanceTypeException("no subnets found");
    }
  }

  private List<InstanceType> build(State current, NodeClassInputs inputs) {
    List<InstanceType> types = new ArrayList<>(current.types().size());
    for (Entry entry : new TreeMap<>(current.types()).values()) {
      types.add(instanceType(current, entry, inputs));
    }
    return List.copyOf(types);
  }

  /** The type without offerings (upstream {@code NewInstanceType}). */
  private InstanceType instanceType(State current, Entry entry, NodeClassInputs inputs) {
    AwsInstanceTypeInfo info = entry.info();
    AwsNodeClassSettings settings = inputs.settings();
    Long instanceStore = InstanceTypeInfos.instanceStorageGb(entry.ec2());
    if (inputs.raid0() && instanceStore != null) {
      settings = new AwsNodeClassSettings(
          settings.maxPods(), settings.podsPerCore(), settings.kubeReservedMilli(), settings.systemReservedMilli(),
          settings.evictionHard(), instanceStore * 1_000_000_000L);
    }
    Set<String> typeZones = new TreeSet<>(current.offerings().getOrDefault(info.name(), Set.of()));
    typeZones.retainAll(inputs.zoneNames());
    Requirements requirements =
        AwsInstanceTypes.requirements(info, region, List.copyOf(typeZones), entry.capacityTypes()).copy();
    requirements.add(Requirement.in(
        AwsLabels.INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED,
        Boolean.toString(InstanceTypeInfos.encryptionInTransitSupported(entry.ec2()))));
    requirements.add(Requirement.doesNotExist(AwsLabels.CAPACITY_RESERVATION_INTERRUPTIBLE));
    List<String> zoneIds = new ArrayList<>();
    for (ZoneInfo zone : inputs.zones()) {
      if (typeZones.contains(zone.zone()) && zone.zoneId() != null && !zone.zoneId().isEmpty() && !zoneIds.contains(zone.zoneId())) {
        zoneIds.add(zone.zoneId());
      }
    }
    if (!zoneIds.isEmpty()) {
      requirements.add(Requirement.of(AwsLabels.TOPOLOGY_ZONE_ID, Operator.In, zoneIds));
    }
    Resources capacity = AwsInstanceTypes.capacity(info, options, settings);
    return new InstanceType(
        info.name(), requirements.frozen(), List.of(), capacity, AwsInstanceTypes.overhead(info, capacity, settings));
  }

  /** Upstream's base offering resolver: one offering per zone of the region × capacity type. */
  private List<Offering> offerings(State current, String name, NodeClassInputs inputs, OfferingRequirements requirements) {
    Entry entry = current.types().get(name);
    Set<String> typeZones = current.offerings().getOrDefault(name, Set.of());
    boolean compatible = !AMIFamily.AL2023.equals(inputs.amiFamily()) || AwsInstanceTypes.compatibleWithAl2023(entry.info());
    List<Offering> offerings = new ArrayList<>(current.allZones().size() * entry.capacityTypes().size());
    for (String zone : current.allZones()) {
      boolean inSubnets = inputs.zoneNames().contains(zone);
      for (String capacityType : entry.capacityTypes()) {
        OptionalDouble price =
            capacityType.equals(Labels.CAPACITY_TYPE_SPOT) ? pricing.spotPrice(name, zone) : pricing.onDemandPrice(name);
        boolean available =
            compatible
                && price.isPresent()
                && inSubnets
                && typeZones.contains(zone)
                && !availability.unavailable(name, zone, capacityType);
        offerings.add(new Offering(requirements.get(zone, capacityType), price.orElse(0), available, 0));
      }
    }
    return offerings;
  }

  /** The frozen requirements of each zone × capacity type, shared by every type of one list. */
  private static final class OfferingRequirements {
    private final Map<String, Requirements> byZoneAndCapacityType = new HashMap<>();

    OfferingRequirements(NodeClassInputs inputs, List<String> zones) {
      Map<String, String> zoneIds = new HashMap<>();
      for (ZoneInfo zone : inputs.zones()) {
        if (zone.zoneId() != null && !zone.zoneId().isEmpty()) {
          zoneIds.putIfAbsent(zone.zone(), zone.zoneId());
        }
      }
      for (String zone : zones) {
        for (String capacityType : List.of(Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_SPOT)) {
          Requirements r = Requirements.of(
              Requirement.in(Labels.CAPACITY_TYPE, capacityType),
              Requirement.in(Labels.ZONE, zone),
              Requirement.doesNotExist(Labels.RESERVATION_ID),
              Requirement.doesNotExist(AwsLabels.CAPACITY_RESERVATION_TYPE),
              Requirement.doesNotExist(AwsLabels.CAPACITY_RESERVATION_INTERRUPTIBLE));
          String zoneId = zoneIds.get(zone);
          if (zoneId != null) {
            r.add(Requirement.in(AwsLabels.TOPOLOGY_ZONE_ID, zoneId));
          }
          byZoneAndCapacityType.put(zone + "/" + capacityType, r.frozen());
        }
      }
    }

    Requirements get(String zone, String capacityType) {
      return byZoneAndCapacityType.get(zone + "/" + capacityType);
    }
  }
}
