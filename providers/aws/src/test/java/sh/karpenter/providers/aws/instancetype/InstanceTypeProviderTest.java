package sh.karpenter.providers.aws.instancetype;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.BlockDevice;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassSpec;
import sh.karpenter.api.aws.v1.EC2NodeClassStatus;
import sh.karpenter.api.aws.v1.KubeletConfiguration;
import sh.karpenter.api.aws.v1.Subnet;
import sh.karpenter.api.aws.v1.ZoneInfo;
import sh.karpenter.core.catalog.AwsInstanceTypeInfo;
import sh.karpenter.core.catalog.AwsNodeClassSettings;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.pricing.PricingProvider;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.SpotPrice;

class InstanceTypeProviderTest {
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  private static final List<ZoneInfo> SUBNET_ZONES = List.of(
      new ZoneInfo("us-east-1a", "use1-az1", List.of("subnet-a")),
      new ZoneInfo("us-east-1b", "use1-az2", List.of("subnet-b")));

  private final TestingEc2InstanceTypes ec2 = new TestingEc2InstanceTypes();
  private final TestingClock clock = new TestingClock(NOW);
  private final TestingOfferingAvailability availability = new TestingOfferingAvailability();
  private final PricingProvider pricing = new PricingProvider(ec2, "us-east-1", clock);
  private final InstanceTypeProvider provider =
      new InstanceTypeProvider(ec2, "us-east-1", pricing, availability, InstanceTypeProvider.Settings.DEFAULT, clock);

  /** Unavailable offerings the test names, as "type/zone/capacityType". */
  static final class TestingOfferingAvailability implements OfferingAvailability {
    final Set<String> unavailable = java.util.concurrent.ConcurrentHashMap.newKeySet();

    @Override
    public boolean unavailable(String instanceType, String zone, String capacityType) {
      return unavailable.contains(instanceType + "/" + zone + "/" + capacityType);
    }
  }

  static AwsInstanceTypeInfo bundled(String name) {
    return InstanceTypeCatalog.bundledAwsInstanceTypes().stream().filter(i -> i.name().equals(name)).findFirst().orElseThrow();
  }

  private void region() {
    ec2.instanceTypes = List.of(
        InstanceTypeInfosTest.ec2Info(bundled("m5.large")),
        InstanceTypeInfosTest.ec2Info(bundled("c5.large")),
        InstanceTypeInfosTest.ec2Info(bundled("a1.large")));
    ec2.offerings = Map.of(
        "m5.large", List.of("us-east-1a", "us-east-1b", "us-east-1c"),
        "c5.large", List.of("us-east-1b", "us-east-1c"),
        "a1.large", List.of("us-east-1a"));
  }

  private Map<String, InstanceType> byName(List<InstanceType> types) {
    return types.stream().collect(Collectors.toMap(InstanceType::name, t -> t));
  }

  private static Offering offering(InstanceType type, String zone, String capacityType) {
    return type.offerings().stream()
        .filter(o -> o.zone().equals(zone) && o.capacityType().equals(capacityType))
        .findFirst().orElseThrow();
  }

  @Test
  void listingBeforeTheFirstRefreshFails() {
    assertThatThrownBy(() -> provider.list(NodeClassInputs.of(SUBNET_ZONES)))
        .isInstanceOf(InstanceTypeException.class).hasMessage("no instance types found");
  }

  @Test
  void refreshReadsEveryPageWithUpstreamsFilters() {
    region();
    assertThat(provider.refresh()).isEqualTo(Duration.ofHours(12));
    assertThat(ec2.describeInstanceTypesCalls).as("one type per page").hasValue(3);
    assertThat(ec2.describeInstanceTypeOfferingsCalls).hasValue(6);
    assertThat(ec2.instanceTypeRequests.get(0).filters()).containsExactly(
        Filter.builder().name("supported-virtualization-type").values("hvm").build(),
        Filter.builder().name("processor-info.supported-architecture").values("x86_64", "arm64").build());
    assertThat(provider.zones()).containsExactly("us-east-1a", "us-east-1b", "us-east-1c");
    assertThat(provider.lastRefreshed()).isEqualTo(NOW);
    assertThatThrownBy(() -> provider.list(NodeClassInputs.of(List.of())))
        .isInstanceOf(InstanceTypeException.class).hasMessage("no subnets found");
  }

  @Test
  void offeringsCoverEveryZoneOfTheRegionAndAreAvailableWhereTheTypeAndASubnetAre() {
    region();
    provider.refresh();
    InstanceType m5 = byName(provider.list(NodeClassInputs.of(SUBNET_ZONES))).get("m5.large");

    assertThat(m5.offerings()).hasSize(6);
    double onDemand = bundled("m5.large").onDemandPricePerHour();
    for (String capacityType : List.of("on-demand", "spot")) {
      assertThat(offering(m5, "us-east-1a", capacityType).available()).isTrue();
      assertThat(offering(m5, "us-east-1b", capacityType).available()).isTrue();
      assertThat(offering(m5, "us-east-1c", capacityType).available()).as("no subnet in 1c").isFalse();
      assertThat(offering(m5, "us-east-1a", capacityType).price()).as("spot at on-demand before the first spot update").isEqualTo(onDemand);
    }
    assertThat(offering(m5, "us-east-1a", "spot").requirements().find(AwsLabels.TOPOLOGY_ZONE_ID))
        .isEqualTo(Requirement.in(AwsLabels.TOPOLOGY_ZONE_ID, "use1-az1"));
    assertThat(offering(m5, "us-east-1c", "spot").requirements().find(AwsLabels.TOPOLOGY_ZONE_ID)).isNull();
    assertThat(offering(m5, "us-east-1a", "spot").requirements().find(Labels.RESERVATION_ID))
        .isEqualTo(Requirement.doesNotExist(Labels.RESERVATION_ID));

    assertThat(m5.requirements().find(Labels.ZONE)).isEqualTo(Requirement.in(Labels.ZONE, "us-east-1a", "us-east-1b"));
    assertThat(m5.requirements().find(AwsLabels.TOPOLOGY_ZONE_ID)).isEqualTo(Requirement.in(AwsLabels.TOPOLOGY_ZONE_ID, "use1-az1", "use1-az2"));
    assertThat(m5.requirements().find(AwsLabels.INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED))
        .isEqualTo(Requirement.in(AwsLabels.INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED, "false"));
    assertThat(m5.requirements().find(Labels.CAPACITY_TYPE)).isEqualTo(Requirement.in(Labels.CAPACITY_TYPE, "on-demand", "spot"));

    InstanceType c5 = byName(provider.list(NodeClassInputs.of(SUBNET_ZONES))).get("c5.large");
    assertThat(c5.requirements().find(Labels.ZONE)).isEqualTo(Requirement.in(Labels.ZONE, "us-east-1b"));
    assertThat(offering(c5, "us-east-1a", "on-demand").available()).as("c5.large is not offered in 1a").isFalse();
    assertThat(offering(c5, "us-east-1b", "on-demand").available()).isTrue();
  }

  @Test
  void spotPricesFromTheLatestUpdateAndNoPriceMeansUnavailable() {
    region();
    provider.refresh();
    ec2.spotPrices = List.of(SpotPrice.builder().instanceType("m5.large").availabilityZone("us-east-1a")
        .spotPrice("0.0321").productDescription("Linux/UNIX").timestamp(NOW).build());
    pricing.refresh();
    InstanceType m5 = byName(provider.list(NodeClassInputs.of(SUBNET_ZONES))).get("m5.large");
    assertThat(offering(m5, "us-east-1a", "spot").price()).isEqualTo(0.0321);
    assertThat(offering(m5, "us-east-1a", "spot").available()).isTrue();
    assertThat(offering(m5, "us-east-1b", "spot").available()).as("no spot price in 1b").isFalse();
    assertThat(offering(m5, "us-east-1b", "on-demand").available()).isTrue();
  }

  @Test
  void anOfferingTheAvailabilityCallsUnavailableIsListedButNotAvailable() {
    region();
    provider.refresh();
    availability.unavailable.add("m5.large/us-east-1a/spot");
    InstanceType m5 = byName(provider.list(NodeClassInputs.of(SUBNET_ZONES))).get("m5.large");
    assertThat(offering(m5, "us-east-1a", "spot").available()).isFalse();
    assertThat(offering(m5, "us-east-1a", "on-demand").available()).isTrue();
    assertThat(offering(m5, "us-east-1b", "spot").available()).isTrue();

    availability.unavailable.clear();
    InstanceType again = byName(provider.list(NodeClassInputs.of(SUBNET_ZONES))).get("m5.large");
    assertThat(offering(again, "us-east-1a", "spot").available()).as("offerings are rebuilt on every list").isTrue();
  }

  @Test
  void a1IsNotOfferedForAl2023ButIsForAl2() {
    region();
    provider.refresh();
    InstanceType a1 = byName(provider.list(NodeClassInputs.of(SUBNET_ZONES))).get("a1.large");
    assertThat(a1.offerings()).noneMatch(Offering::available);
    NodeClassInputs al2 = new NodeClassInputs(SUBNET_ZONES, AwsNodeClassSettings.DEFAULT, AMIFamily.AL2, false);
    InstanceType a1OnAl2 = byName(provider.list(al2)).get("a1.large");
    assertThat(offering(a1OnAl2, "us-east-1a", "on-demand").available()).isTrue();
  }

  @Test
  void typesAreCachedPerInputsUntilEc2Changes() {
    region();
    provider.refresh();
    NodeClassInputs inputs = NodeClassInputs.of(SUBNET_ZONES);
    InstanceType first = byName(provider.list(inputs)).get("m5.large");
    InstanceType second = byName(provider.list(inputs)).get("m5.large");
    assertThat(second.capacity()).isSameAs(first.capacity());
    assertThat(ec2.describeInstanceTypesCalls).as("listing never calls EC2").hasValue(3);

    provider.refresh();
    assertThat(byName(provider.list(inputs)).get("m5.large").capacity()).as("same answer: cache kept").isSameAs(first.capacity());

    ec2.offerings = Map.of("m5.large", List.of("us-east-1a"));
    provider.refresh();
    InstanceType changed = byName(provider.list(inputs)).get("m5.large");
    assertThat(changed.capacity()).as("offerings changed: cache flushed").isNotSameAs(first.capacity());
    assertThat(changed.requirements().find(Labels.ZONE)).isEqualTo(Requirement.in(Labels.ZONE, "us-east-1a"));
    assertThat(provider.get(inputs, "m5.large")).hasValueSatisfying(t -> assertThat(t.capacity()).isSameAs(changed.capacity()));
    assertThat(provider.get(inputs, "m99.large")).isEmpty();
  }

  @Test
  void aFailedUpdateKeepsThePreviousTypesAndStillUpdatesOfferings() {
    region();
    provider.refresh();
    ec2.failInstanceTypes(1);
    ec2.offerings = Map.of("m5.large", List.of("us-east-1b"), "c5.large", List.of("us-east-1b"), "a1.large", List.of("us-east-1b"));
    assertThatThrownBy(provider::refresh).isInstanceOf(InstanceTypeException.class).hasMessageContaining("describing instance types");
    Map<String, InstanceType> types = byName(provider.list(NodeClassInputs.of(SUBNET_ZONES)));
    assertThat(types).containsOnlyKeys("m5.large", "c5.large", "a1.large");
    assertThat(types.get("m5.large").requirements().find(Labels.ZONE)).isEqualTo(Requirement.in(Labels.ZONE, "us-east-1b"));
    assertThat(provider.lastRefreshed()).isEqualTo(NOW);
  }

  @Test
  void kubeletSettingsOfTheNodeClassChangeCapacityAndOverhead() {
    region();
    provider.refresh();
    EC2NodeClass nodeClass = new EC2NodeClass();
    nodeClass.setMetadata(new ObjectMetaBuilder().withName("default").build());
    EC2NodeClassSpec spec = new EC2NodeClassSpec();
    spec.setAmiFamily(AMIFamily.AL2023);
    spec.setKubelet(KubeletConfiguration.of(Map.of(
        "maxPods", 20,
        "kubeReserved", Map.of("cpu", "200m", "memory", "expression-not-evaluated"),
        "systemReserved", Map.of("memory", "100Mi"),
        "evictionHard", Map.of("memory.available", "5%", "nodefs.available", "1Gi"))));
    BlockDeviceMapping root = new BlockDeviceMapping();
    root.setDeviceName("/dev/xvda");
    root.setRootVolume(true);
    BlockDevice ebs = new BlockDevice();
    ebs.setVolumeSize(new Quantity("100Gi"));
    root.setEbs(ebs);
    spec.setBlockDeviceMappings(List.of(root));
    nodeClass.setSpec(spec);
    EC2NodeClassStatus status = new EC2NodeClassStatus();
    status.setSubnets(List.of(new Subnet("subnet-a", "us-east-1a", "use1-az1")));
    nodeClass.setStatus(status);

    NodeClassInputs inputs = NodeClassInputs.from(nodeClass);
    assertThat(inputs.settings().maxPods()).isEqualTo(20);
    assertThat(inputs.settings().kubeReservedMilli()).containsOnlyKeys("cpu");
    assertThat(inputs.settings().ephemeralStorageBytes()).isEqualTo(100L << 30);

    InstanceType m5 = byName(provider.list(nodeClass)).get("m5.large");
    InstanceType defaults = byName(provider.list(NodeClassInputs.of(SUBNET_ZONES))).get("m5.large");
    assertThat(m5.capacity().milli(ResourceNames.PODS)).isEqualTo(20_000);
    assertThat(defaults.capacity().milli(ResourceNames.PODS)).isEqualTo(29_000);
    assertThat(m5.capacity().milli(ResourceNames.EPHEMERAL_STORAGE)).isEqualTo((100L << 30) * 1000);
    assertThat(m5.overhead().kubeReserved().milli(ResourceNames.CPU)).isEqualTo(200);
    assertThat(m5.overhead().kubeReserved().milli(ResourceNames.MEMORY))
        .as("memory kube-reserved stays ENI-limited: 11 x 29 + 255 MiB").isEqualTo((11L * 29 + 255) * (1L << 20) * 1000);
    assertThat(m5.overhead().systemReserved().milli(ResourceNames.MEMORY)).isEqualTo(100L * (1 << 20) * 1000);
    long memoryBytes = m5.capacity().milli(ResourceNames.MEMORY) / 1000;
    assertThat(m5.overhead().evictionThreshold().milli(ResourceNames.MEMORY))
        .isEqualTo((long) Math.ceil((double) memoryBytes / 100 * 5) * 1000);
    assertThat(m5.overhead().evictionThreshold().milli(ResourceNames.EPHEMERAL_STORAGE)).isEqualTo((1L << 30) * 1000);
    assertThat(m5.requirements().find(Labels.ZONE)).isEqualTo(Requirement.in(Labels.ZONE, "us-east-1a"));
  }

  @Test
  void podsPerCoreCapsPodsAndRaid0UsesTheInstanceStore() {
    region();
    ec2.instanceTypes = List.of(InstanceTypeInfosTest.ec2Info(bundled("m5d.large")));
    ec2.offerings = Map.of("m5d.large", List.of("us-east-1a"));
    provider.refresh();
    NodeClassInputs inputs = new NodeClassInputs(
        SUBNET_ZONES, new AwsNodeClassSettings(null, 4, Map.of(), Map.of(), Map.of(), null), AMIFamily.AL2023, true);
    InstanceType m5d = provider.list(inputs).get(0);
    assertThat(m5d.capacity().milli(ResourceNames.PODS)).as("4 per core x 2 vCPUs").isEqualTo(8_000);
    assertThat(m5d.capacity().milli(ResourceNames.EPHEMERAL_STORAGE)).isEqualTo(bundled("m5d.large").localNvmeGB() * 1_000_000_000L * 1000);
  }

  @Test
  void distinctInputsGetDistinctCacheEntries() {
    Set<Object> keys = new HashSet<>();
    keys.add(NodeClassInputs.of(SUBNET_ZONES).cacheKey());
    keys.add(NodeClassInputs.of(List.of(SUBNET_ZONES.get(1), SUBNET_ZONES.get(0))).cacheKey());
    keys.add(NodeClassInputs.of(List.of(new ZoneInfo("us-east-1a", "use1-az1", List.of("subnet-other")), SUBNET_ZONES.get(1))).cacheKey());
    assertThat(keys).as("zone order and subnet IDs do not matter").hasSize(1);
    keys.add(NodeClassInputs.of(SUBNET_ZONES.subList(0, 1)).cacheKey());
    keys.add(new NodeClassInputs(SUBNET_ZONES, new AwsNodeClassSettings(10, null, Map.of(), Map.of(), Map.of(), null), AMIFamily.AL2023, false).cacheKey());
    assertThat(keys).hasSize(3);
  }

  @Test
  void listingWhileRefreshesSwapTheDataSeesOneStateOrTheOther() throws Exception {
    region();
    provider.refresh();
    Map<String, List<String>> one = ec2.offerings;
    Map<String, List<String>> other = Map.of("m5.large", List.of("us-east-1b"), "c5.large", List.of("us-east-1b"), "a1.large", List.of("us-east-1b"));
    NodeClassInputs inputs = NodeClassInputs.of(SUBNET_ZONES);
    java.util.concurrent.atomic.AtomicBoolean done = new java.util.concurrent.atomic.AtomicBoolean();
    java.util.concurrent.ConcurrentLinkedQueue<String> problems = new java.util.concurrent.ConcurrentLinkedQueue<>();
    List<Thread> readers = new java.util.ArrayList<>();
    for (int i = 0; i < 3; i++) {
      readers.add(Thread.ofPlatform().start(() -> {
        while (!done.get()) {
          try {
            Requirement zones = byName(provider.list(inputs)).get("m5.large").requirements().find(Labels.ZONE);
            if (!zones.equals(Requirement.in(Labels.ZONE, "us-east-1a", "us-east-1b")) && !zones.equals(Requirement.in(Labels.ZONE, "us-east-1b"))) {
              problems.add("unexpected zones " + zones);
            }
          } catch (RuntimeException e) {
            problems.add(e.toString());
          }
        }
      }));
    }
    for (int i = 0; i < 20; i++) {
      ec2.offerings = i % 2 == 0 ? other : one;
      provider.refresh();
    }
    done.set(true);
    for (Thread reader : readers) {
      reader.join();
    }
    assertThat(problems).isEmpty();
  }
}
