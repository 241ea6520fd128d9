package sh.karpenter.core.catalog;

import java.util.Map;

/**
 * Where spot prices come from when a catalogue has none. The AWS data file has only on-demand
 * prices (upstream fetches spot prices live with DescribeSpotPriceHistory), so every spot price of the
 * default catalogue comes from one of these models, and whatever prints a price should say so via
 * {@link #description()}.
 */
public interface SpotPriceModel {

  /** The spot price, USD per hour, of a type in a zone. */
  double spotPrice(String instanceType, String category, double onDemandPrice, String zone);

  /** Whether the prices are invented rather than observed. */
  boolean simulated();

  /** One line saying how spot prices are derived, for CLI output and reports. */
  String description();

  /**
   * Karpenter's own cold start: before its first spot price update, every spot offering is priced at
   * the type's on-demand price (docs/behaviour/cloudprovider.md#spot-prices).
   */
  static SpotPriceModel onDemand() {
    return OnDemandSpotPrices.INSTANCE;
  }

  /** The default simulated model: {@link DiscountSpotPriceModel#DEFAULT}. */
  static SpotPriceModel simulatedDiscount() {
    return DiscountSpotPriceModel.DEFAULT;
  }

  /** A discount model with one discount for every category and the default jitter. */
  static SpotPriceModel discount(double discount) {
    return new DiscountSpotPriceModel(discount, Map.of(), DiscountSpotPriceModel.DEFAULT_JITTER);
  }

  /** Spot priced at on-demand, as upstream does before its first spot price update. */
  enum OnDemandSpotPrices implements SpotPriceModel {
    INSTANCE;

    @Override
    public double spotPrice(String instanceType, String category, double onDemandPrice, String zone) {
      return onDemandPrice;
    }

    @Override
    public boolean simulated() {
      return false;
    }

    @Override
    public String description() {
      return "spot priced at on-demand (Karpenter's behaviour before its first spot price update)";
    }
  }
}
