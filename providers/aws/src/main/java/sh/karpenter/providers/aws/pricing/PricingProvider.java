package sh.karpenter.providers.aws.pricing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.core.catalog.AwsInstanceTypeInfo;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.providers.aws.sdk.SdkErrors;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeSpotPriceHistoryRequest;
import software.amazon.awssdk.services.ec2.model.DescribeSpotPriceHistoryResponse;
import software.amazon.awssdk.services.ec2.model.SpotPrice;

/**
 * On-demand and spot prices of EC2 instance types (upstream {@code pricing.DefaultProvider}).
 *
 * <p>On-demand prices come from the price list bundled with core's AWS catalogue, as upstream's
 * static fallback does: the Pricing API has no client here, so {@link #updateOnDemandPricing()}
 * changes nothing and the provider says so once, at construction; {@link #onDemandPricesLive()} is
 * the flag for a metric. The bundled list is for {@link InstanceTypeCatalog#bundledAwsRegion()};
 * other regions use it too, as upstream falls back to us-east-1's static prices.
 *
 * <p>Spot prices come from {@code DescribeSpotPriceHistory} (Linux/UNIX, the price in effect now, the
 * latest record per instance type and zone). Until the first successful update every spot price is
 * the on-demand price, zone by zone; afterwards a type × zone without a spot record has no spot
 * price. A failed update keeps the prices from before and is counted ({@link
 * #spotUpdateFailures()}). Thread-safe: readers see one immutable snapshot.
 */
public final class PricingProvider {
  private static final Logger LOG = LoggerFactory.getLogger(PricingProvider.class);

  /** How often upstream's pricing controller refreshes prices: every 12 hours. */
  public static final Duration REFRESH_PERIOD = Duration.ofHours(12);

  /** The product descriptions upstream asks DescribeSpotPriceHistory for. */
  static final java.util.List<String> PRODUCT_DESCRIPTIONS = java.util.List.of("Linux/UNIX", "Linux/UNIX (Amazon VPC)");

  /** Upstream's page size for DescribeSpotPriceHistory. */
  static final int SPOT_PAGE_SIZE = 2000;

  private final Ec2Client ec2;
  private final String region;
  private final Clock clock;
  private final Map<String, Double> onDemandPrices;
  private final AtomicLong spotUpdates = new AtomicLong();
  private final AtomicLong spotUpdateFailures = new AtomicLong();
  private final Object updateLock = new Object();

  /** Spot prices by type, then zone; null until the first successful update. */
  private volatile Spot spot;

  private record Spot(Map<String, Map<String, Double>> prices, Instant updatedAt, int offerings) {}

  /**
   * @param ec2 the client DescribeSpotPriceHistory goes through
   * @param region the region the client is for (only named in messages: prices are the bundled list)
   * @param clock the time spot prices are asked for
   */
  public PricingProvider(Ec2Client ec2, String region, Clock clock) {
    this.ec2 = Objects.requireNonNull(ec2, "ec2");
    this.region = Objects.requireNonNull(region, "region");
    this.clock = Objects.requireNonNull(clock, "clock");
    Map<String, Double> prices = new LinkedHashMap<>();
    for (AwsInstanceTypeInfo info : InstanceTypeCatalog.bundledAwsInstanceTypes()) {
      if (info.onDemandPricePerHour() != null) {
        prices.put(info.name(), info.onDemandPricePerHour());
      }
    }
    this.onDemandPrices = Map.copyOf(prices);
    LOG.info(
        "live on-demand pricing is unavailable (no Pricing API client); using the bundled on-demand prices"
            + " of {} for {} instance types (generated {}){}",
        InstanceTypeCatalog.bundledAwsRegion(),
        onDemandPrices.size(),
        InstanceTypeCatalog.bundledAwsPricesGeneratedAt(),
        region.equals(InstanceTypeCatalog.bundledAwsRegion()) ? "" : " in region " + region);
  }

  /** The on-demand price, USD per hour; empty for a type the price list lacks. */
  public OptionalDouble onDemandPrice(String instanceType) {
    Double price = onDemandPrices.get(instanceType);
    return price == null ? OptionalDouble.empty() : OptionalDouble.of(price);
  }

  /**
   * The spot price, USD per hour, of a type in a zone: before the first spot update the on-demand
   * price (for types with one), afterwards the latest observed price, or empty when there is none.
   */
  public OptionalDouble spotPrice(String instanceType, String zone) {
    Spot current = spot;
    if (current == null) {
      return onDemandPrice(instanceType);
    }
    Map<String, Double> zones = current.prices().get(instanceType);
    Double price = zones == null ? null : zones.get(zone);
    return price == null ? OptionalDouble.empty() : OptionalDouble.of(price);
  }

  /**
   * Upstream's pricing controller body: updates spot and on-demand prices and returns when to run
   * again ({@link #REFRESH_PERIOD}).
   *
   * @throws PricingException when the spot update failed (previous prices are kept); a loop retries
   *     with backoff
   */
  public Duration refresh() {
    updateOnDemandPricing();
    updateSpotPricing();
    return REFRESH_PERIOD;
  }

  /** Does nothing: there is no Pricing API client, the bundled prices stay (said once at startup). */
  public void updateOnDemandPricing() {}

  /**
   * Reads the spot prices in effect now and merges them into the known ones (a type × zone not in
   * the answer keeps its previous price, as upstream's combine does).
   *
   * @throws PricingException when a call fails or the answer has no price; nothing changes then
   */
  public void updateSpotPricing() {
    synchronized (updateLock) {
      Map<String, Map<String, SpotPrice>> latest = new HashMap<>();
      try {
        DescribeSpotPriceHistoryRequest request =
            DescribeSpotPriceHistoryRequest.builder()
                .productDescriptions(PRODUCT_DESCRIPTIONS)
                .startTime(clock.instant())
                .maxResults(SPOT_PAGE_SIZE)
                .build();
        for (DescribeSpotPriceHistoryResponse page : ec2.describeSpotPriceHistoryPaginator(request)) {
          for (SpotPrice record : page.spotPriceHistory()) {
            if (record.timestamp() == null || record.spotPrice() == null || record.availabilityZone() == null) {
              continue;
            }
            if (parse(record.spotPrice()) == null) {
              LOG.debug("unable to parse spot price record {}", record);
              continue;
            }
            latest
                .computeIfAbsent(record.instanceTypeAsString(), k -> new HashMap<>())
                .merge(record.availabilityZone(), record, (a, b) -> b.timestamp().isAfter(a.timestamp()) ? b : a);
          }
        }
      } catch (SdkException e) {
        spotUpdateFailures.incrementAndGet();
        String reason = SdkErrors.describe(e);
        LOG.warn("retrieving spot pricing data failed, keeping the previous spot prices: {}", reason);
        throw new PricingException("retrieving spot pricing data, " + reason, e);
      }
      if (latest.isEmpty()) {
        spotUpdateFailures.incrementAndGet();
        LOG.warn("no spot pricing found, keeping the previous spot prices");
        throw new PricingException("no spot pricing found");
      }
      Map<String, Map<String, Double>> merged = new HashMap<>();
      Spot previous = spot;
      if (previous != null) {
        previous.prices().forEach((type, zones) -> merged.put(type, new HashMap<>(zones)));
      }
      latest.forEach((type, zones) -> {
        Map<String, Double> target = merged.computeIfAbsent(type, k -> new HashMap<>());
        zones.forEach((zone, record) -> target.put(zone, parse(record.spotPrice())));
      });
      int offerings = 0;
      Map<String, Map<String, Double>> frozen = new HashMap<>();
      for (Map.Entry<String, Map<String, Double>> e : merged.entrySet()) {
        frozen.put(e.getKey(), Map.copyOf(e.getValue()));
        offerings += e.getValue().size();
      }
      boolean changed = previous == null || !previous.prices().equals(frozen);
      spot = new Spot(Map.copyOf(frozen), clock.instant(), offerings);
      spotUpdates.incrementAndGet();
      if (changed) {
        LOG.info("updated spot pricing: {} instance types, {} offerings", frozen.size(), offerings);
      }
    }
  }

  private static Double parse(String price) {
    try {
      return Double.parseDouble(price);
    } catch (NumberFormatException e) {
      return null;
    }
  }

  /** Always false: on-demand prices are the bundled list (the flag for a metric). */
  public boolean onDemandPricesLive() {
    return false;
  }

  /** Whether a spot update has succeeded, so spot prices are observed rather than on-demand. */
  public boolean spotPricesLive() {
    return spot != null;
  }

  /** When spot prices were last updated successfully, or null. */
  public Instant spotPricesUpdatedAt() {
    Spot current = spot;
    return current == null ? null : current.updatedAt();
  }

  /** Successful spot updates so far. */
  public long spotUpdates() {
    return spotUpdates.get();
  }

  /** Failed spot updates so far (each kept the previous prices). */
  public long spotUpdateFailures() {
    return spotUpdateFailures.get();
  }

  /** The region the client is for. */
  public String region() {
    return region;
  }
}
