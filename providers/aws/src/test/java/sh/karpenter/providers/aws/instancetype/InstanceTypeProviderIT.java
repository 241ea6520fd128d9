package sh.karpenter.providers.aws.instancetype;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.ZoneInfo;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.pricing.PricingException;
import sh.karpenter.providers.aws.pricing.PricingProvider;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.aws.ClusterNetwork;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Subnet;

/** Instance types, offerings and spot prices read from moto through the real SDK. */
@AwsEmulatorTest
class InstanceTypeProviderIT {
  private static final Logger LOG = LoggerFactory.getLogger(InstanceTypeProviderIT.class);
  private static final String REGION = "us-west-2";
  private static final List<String> SUBNET_ZONES = List.of("us-west-2a", "us-west-2b");

  private static List<ZoneInfo> zoneInfo(Ec2Client ec2, ClusterNetwork network) {
    List<ZoneInfo> zones = new ArrayList<>();
    for (Subnet subnet : ec2.describeSubnets(b -> b.filters(Filter.builder().name("vpc-id").values(network.vpcId()).build())).subnets()) {
      zones.add(new ZoneInfo(subnet.availabilityZone(), subnet.availabilityZoneId(), List.of(subnet.subnetId())));
    }
    return zones;
  }

  private static Map<String, InstanceType> byName(List<InstanceType> types) {
    return types.stream().collect(Collectors.toMap(InstanceType::name, Function.identity()));
  }

  private static Offering offering(InstanceType type, String zone, String capacityType) {
    return type.offerings().stream().filter(o -> o.zone().equals(zone) && o.capacityType().equals(capacityType)).findFirst().orElseThrow();
  }

  @Test
  void instanceTypesAndOfferingsAreListedThroughTheSdk(Ec2Client ec2) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "it-types", SUBNET_ZONES);
    PricingProvider pricing = new PricingProvider(ec2, REGION, Clock.systemUTC());
    InstanceTypeProvider provider = new InstanceTypeProvider(ec2, REGION, pricing, (t, z, c) -> false, InstanceTypeProvider.Settings.DEFAULT, Clock.systemUTC());
    provider.refresh();

    assertThat(provider.zones()).containsExactly("us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d");
    List<ZoneInfo> zones = zoneInfo(ec2, network);
    Map<String, InstanceType> types = byName(provider.list(NodeClassInputs.of(zones)));
    LOG.info("moto listed {} instance types", types.size());
    assertThat(types).hasSizeGreaterThan(1000).containsKeys("m5.large", "m6g.large", "g5.xlarge", "inf2.xlarge");

    // moto's facts for these types are EC2's, so capacity and allocatable equal the bundled catalogue's.
    Map<String, InstanceType> bundled = byName(InstanceTypeCatalog.aws().instanceTypes());
    for (String name : List.of("m5.large", "m6g.large", "c5.xlarge", "g5.xlarge", "inf2.xlarge")) {
      assertThat(types.get(name).capacity()).as(name + " capacity").isEqualTo(bundled.get(name).capacity());
      assertThat(types.get(name).allocatable()).as(name + " allocatable").isEqualTo(bundled.get(name).allocatable());
    }

    InstanceType m5 = types.get("m5.large");
    assertThat(m5.requirements().find(Labels.ZONE)).isEqualTo(Requirement.in(Labels.ZONE, "us-west-2a", "us-west-2b"));
    assertThat(m5.requirements().find(Labels.REGION)).isEqualTo(Requirement.in(Labels.REGION, REGION));
    assertThat(m5.requirements().find(AwsLabels.TOPOLOGY_ZONE_ID)).isEqualTo(Requirement.in(AwsLabels.TOPOLOGY_ZONE_ID, "usw2-az2", "usw2-az1"));
    assertThat(m5.offerings()).hasSize(8);
    assertThat(offering(m5, "us-west-2a", "on-demand").available()).isTrue();
    assertThat(offering(m5, "us-west-2a", "on-demand").price()).isEqualTo(pricing.onDemandPrice("m5.large").getAsDouble());
    assertThat(offering(m5, "us-west-2c", "on-demand").available()).as("no subnet in 2c").isFalse();
  }

  @Test
  void spotPriceHistoryIsRead(Ec2Client ec2) {
    PricingProvider pricing = new PricingProvider(ec2, REGION, Clock.systemUTC());
    pricing.refresh();
    assertThat(pricing.spotPricesLive()).isTrue();
    assertThat(pricing.spotPrice("m5.large", "us-west-2a")).as("moto's one fixed figure").isEqualTo(OptionalDouble.of(0.00001));
    assertThat(pricing.spotPrice("m5.large", "eu-west-1a")).isEmpty();
  }

  @Test
  void refreshingTwiceKeepsTheCachedTypesAndListingCallsNoApi(AwsFaults faults, Ec2Client ec2) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "it-cache", SUBNET_ZONES);
    List<ZoneInfo> zones = zoneInfo(ec2, network);
    try (Ec2Client counted = faults.clients().ec2()) {
      PricingProvider pricing = new PricingProvider(counted, REGION, Clock.systemUTC());
      InstanceTypeProvider provider = new InstanceTypeProvider(counted, REGION, pricing, (t, z, c) -> false, InstanceTypeProvider.Settings.DEFAULT, Clock.systemUTC());
      provider.refresh();
      InstanceType first = byName(provider.list(NodeClassInputs.of(zones))).get("m5.large");
      InstanceType second = byName(provider.list(NodeClassInputs.of(zones))).get("m5.large");
      provider.refresh();
      InstanceType third = byName(provider.list(NodeClassInputs.of(zones))).get("m5.large");

      assertThat(second.capacity()).isSameAs(first.capacity());
      assertThat(third.capacity()).as("unchanged EC2 data keeps the cache").isSameAs(first.capacity());
      assertThat(faults.requests("ec2", "DescribeInstanceTypes")).as("moto answers in one page").hasSize(2);
      assertThat(faults.requests("ec2", "DescribeInstanceTypeOfferings")).hasSize(2);
      assertThat(faults.requests("ec2", "DescribeInstanceTypes").get(0).parameters())
          .containsEntry("Filter.1.Name", "supported-virtualization-type")
          .containsEntry("Filter.2.Name", "processor-info.supported-architecture");
    }
  }

  @Test
  void aFailingSpotPriceHistoryKeepsThePreviousPrices(AwsFaults faults) {
    try (Ec2Client throughFaults = faults.clients().ec2()) {
      PricingProvider pricing = new PricingProvider(throughFaults, REGION, Clock.systemUTC());
      pricing.refresh();
      faults.error("ec2", "DescribeSpotPriceHistory", 400, "UnauthorizedOperation", "You are not authorized to perform this operation.", 1);

      assertThatThrownBy(pricing::refresh).isInstanceOf(PricingException.class).hasMessageContaining("UnauthorizedOperation");
      assertThat(pricing.spotPrice("m5.large", "us-west-2a")).isEqualTo(OptionalDouble.of(0.00001));
      assertThat(pricing.spotUpdateFailures()).isEqualTo(1);
      assertThat(faults.requests("ec2", "DescribeSpotPriceHistory")).hasSize(2);
    }
  }

  /** Not an assertion: logs how long one full refresh takes against the emulator (see docs/behaviour/aws-instance-types.md). */
  @Test
  void measureOneFullRefresh(Ec2Client ec2) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "it-measure", SUBNET_ZONES);
    List<ZoneInfo> zones = zoneInfo(ec2, network);
    PricingProvider pricing = new PricingProvider(ec2, REGION, Clock.systemUTC());
    InstanceTypeProvider provider = new InstanceTypeProvider(ec2, REGION, pricing, (t, z, c) -> false, InstanceTypeProvider.Settings.DEFAULT, Clock.systemUTC());
    for (int run = 1; run <= 2; run++) {
      long start = System.nanoTime();
      provider.updateInstanceTypes();
      long types = System.nanoTime();
      provider.updateInstanceTypeOfferings();
      long offerings = System.nanoTime();
      pricing.refresh();
      long prices = System.nanoTime();
      int listed = provider.list(NodeClassInputs.of(zones)).size();
      long listedAt = System.nanoTime();
      String line = String.format(
          "refresh run %d: DescribeInstanceTypes %d ms, DescribeInstanceTypeOfferings %d ms, DescribeSpotPriceHistory %d ms,"
              + " first list (%d types) %d ms, total %d ms",
          run, ms(types - start), ms(offerings - types), ms(prices - offerings), listed, ms(listedAt - prices), ms(listedAt - start));
      LOG.info(line);
      System.out.println("MEASURE " + line);
    }
  }

  private static long ms(long nanos) {
    return nanos / 1_000_000;
  }
}
