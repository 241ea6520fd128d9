package sh.karpenter.providers.aws.pricing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.OptionalDouble;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.providers.aws.instancetype.TestingEc2InstanceTypes;
import software.amazon.awssdk.services.ec2.model.SpotPrice;

class PricingProviderTest {
  private static final Instant NOW = Instant.parse("2026-11-25T12:00:00Z");
  private final TestingEc2InstanceTypes ec2 = new TestingEc2InstanceTypes();
  private final TestingClock clock = new TestingClock(NOW);
  private final PricingProvider pricing = new PricingProvider(ec2, "us-east-1", clock);

  static SpotPrice spot(String type, String zone, String price, Instant at) {
    return SpotPrice.builder().instanceType(type).availabilityZone(zone).spotPrice(price)
        .productDescription("Linux/UNIX").timestamp(at).build();
  }

  @Test
  void onDemandPricesAreTheBundledList() {
    double bundled = InstanceTypeCatalog.bundledAwsInstanceTypes().stream()
        .filter(i -> i.name().equals("m5.large")).findFirst().orElseThrow().onDemandPricePerHour();
    assertThat(pricing.onDemandPrice("m5.large")).isEqualTo(OptionalDouble.of(bundled));
    assertThat(pricing.onDemandPrice("m99.large")).isEmpty();
    assertThat(pricing.onDemandPricesLive()).isFalse();
  }

  @Test
  void beforeTheFirstSpotUpdateSpotIsPricedAtOnDemand() {
    assertThat(pricing.spotPricesLive()).isFalse();
    assertThat(pricing.spotPrice("m5.large", "us-east-1a")).isEqualTo(pricing.onDemandPrice("m5.large"));
    assertThat(pricing.spotPrice("m99.large", "us-east-1a")).isEmpty();
  }

  @Test
  void spotUpdateTakesTheLatestRecordPerTypeAndZone() {
    ec2.spotPrices = List.of(
        spot("m5.large", "us-east-1a", "0.0300", NOW.minusSeconds(3600)),
        spot("m5.large", "us-east-1a", "0.0350", NOW.minusSeconds(60)),
        spot("m5.large", "us-east-1a", "0.0250", NOW.minusSeconds(7200)),
        spot("m5.large", "us-east-1b", "0.0400", NOW.minusSeconds(60)),
        spot("c5.large", "us-east-1a", "not-a-number", NOW));
    assertThat(pricing.refresh()).isEqualTo(Duration.ofHours(12));

    assertThat(pricing.spotPrice("m5.large", "us-east-1a")).isEqualTo(OptionalDouble.of(0.035));
    assertThat(pricing.spotPrice("m5.large", "us-east-1b")).isEqualTo(OptionalDouble.of(0.04));
    assertThat(pricing.spotPrice("m5.large", "us-east-1c")).as("no record in that zone").isEmpty();
    assertThat(pricing.spotPrice("c5.large", "us-east-1a")).as("unparsable record skipped").isEmpty();
    assertThat(pricing.spotPricesLive()).isTrue();
    assertThat(pricing.spotPricesUpdatedAt()).isEqualTo(NOW);
    assertThat(ec2.describeSpotPriceHistoryCalls).as("one page per record").hasValue(5);
    assertThat(ec2.spotRequests.get(0).productDescriptions()).containsExactly("Linux/UNIX", "Linux/UNIX (Amazon VPC)");
    assertThat(ec2.spotRequests.get(0).startTime()).isEqualTo(NOW);
  }

  @Test
  void aFailedSpotUpdateKeepsThePreviousPricesAndIsCounted() {
    ec2.spotPrices = List.of(spot("m5.large", "us-east-1a", "0.0300", NOW));
    pricing.updateSpotPricing();
    ec2.spotPrices = List.of(spot("m5.large", "us-east-1a", "0.0900", NOW));
    ec2.failSpotPriceHistory(1);

    assertThatThrownBy(pricing::refresh).isInstanceOf(PricingException.class).hasMessageContaining("retrieving spot pricing data");
    assertThat(pricing.spotPrice("m5.large", "us-east-1a")).isEqualTo(OptionalDouble.of(0.03));
    assertThat(pricing.spotUpdateFailures()).isEqualTo(1);
    assertThat(pricing.spotUpdates()).isEqualTo(1);

    pricing.updateSpotPricing();
    assertThat(pricing.spotPrice("m5.large", "us-east-1a")).isEqualTo(OptionalDouble.of(0.09));
  }

  @Test
  void aFailedFirstSpotUpdateKeepsOnDemandPricesForSpot() {
    ec2.failSpotPriceHistory(1);
    assertThatThrownBy(pricing::updateSpotPricing).isInstanceOf(PricingException.class);
    assertThat(pricing.spotPrice("m5.large", "us-east-1a")).isEqualTo(pricing.onDemandPrice("m5.large"));
  }

  @Test
  void anEmptyAnswerIsAFailure() {
    assertThatThrownBy(pricing::updateSpotPricing).isInstanceOf(PricingException.class).hasMessage("no spot pricing found");
    assertThat(pricing.spotPricesLive()).isFalse();
    assertThat(pricing.spotUpdateFailures()).isEqualTo(1);
  }

  @Test
  void zonesMissingFromALaterAnswerKeepTheirPrices() {
    ec2.spotPrices = List.of(spot("m5.large", "us-east-1a", "0.03", NOW), spot("m5.large", "us-east-1b", "0.04", NOW));
    pricing.updateSpotPricing();
    ec2.spotPrices = List.of(spot("m5.large", "us-east-1a", "0.05", NOW));
    pricing.updateSpotPricing();
    assertThat(pricing.spotPrice("m5.large", "us-east-1a")).isEqualTo(OptionalDouble.of(0.05));
    assertThat(pricing.spotPrice("m5.large", "us-east-1b")).isEqualTo(OptionalDouble.of(0.04));
  }
}
