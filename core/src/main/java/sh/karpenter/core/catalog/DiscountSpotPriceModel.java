package sh.karpenter.core.catalog;

import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * Simulated spot prices: {@code spot = onDemand x (1 - discount(category)) x (1 + jitter x h)},
 * where {@code h} in [-1, 1) is derived from a 64-bit FNV-1a hash of {@code "type/zone"}. The same
 * type and zone therefore always get the same price (runs are reproducible), while zones of one type
 * differ a little, as real spot markets do. The discount depends on the instance category (the
 * letters before the generation, e.g. {@code m}, {@code g}, {@code inf}); GPU and accelerator
 * categories get smaller discounts, as their spot markets are tighter.
 *
 * <p>These are not AWS prices: {@link #simulated()} is true and {@link #description()} says so.
 *
 * @param defaultDiscount discount for categories not in {@code discountByCategory}, in [0, 1)
 * @param discountByCategory per-category discounts, in [0, 1)
 * @param jitter relative half-width of the per-zone variation, in [0, 1)
 */
public record DiscountSpotPriceModel(
    double defaultDiscount, Map<String, Double> discountByCategory, double jitter)
    implements SpotPriceModel {

  /** Relative half-width of the default per-zone variation (±10%). */
  public static final double DEFAULT_JITTER = 0.10;

  /**
   * 60% off on-demand in general; 45% off for GPU categories (g, p, dl) and 50% off for
   * Inferentia and Trainium; ±10% per type and zone.
   */
  public static final DiscountSpotPriceModel DEFAULT =
      new DiscountSpotPriceModel(
          0.60, Map.of("g", 0.45, "p", 0.45, "dl", 0.45, "inf", 0.50, "trn", 0.50), DEFAULT_JITTER);

  public DiscountSpotPriceModel {
    checkFraction("defaultDiscount", defaultDiscount);
    checkFraction("jitter", jitter);
    discountByCategory.forEach((category, discount) -> checkFraction("discount of " + category, discount));
    discountByCategory = Map.copyOf(discountByCategory);
  }

  private static void checkFraction(String what, double value) {
    if (!(value >= 0 && value < 1)) {
      throw new IllegalArgumentException(what + " must be in [0, 1): " + value);
    }
  }

  @Override
  public double spotPrice(String instanceType, String category, double onDemandPrice, String zone) {
    double discount = discountByCategory.getOrDefault(category, defaultDiscount);
    return onDemandPrice * (1 - discount) * (1 + jitter * unitHash(instanceType + "/" + zone));
  }

  /** A deterministic value in [-1, 1) from a string (FNV-1a, 64 bit, top 53 bits). */
  static double unitHash(String key) {
    long hash = 0xcbf29ce484222325L;
    for (byte b : key.getBytes(StandardCharsets.UTF_8)) {
      hash ^= b & 0xff;
      hash *= 0x100000001b3L;
    }
    return (hash >>> 11) * 0x1.0p-53 * 2 - 1;
  }

  @Override
  public boolean simulated() {
    return true;
  }

  @Override
  public String description() {
    StringBuilder text =
        new StringBuilder(
            String.format(
                Locale.ROOT,
                "SIMULATED spot prices: on-demand x (1 - discount), discount %.0f%%",
                defaultDiscount * 100));
    new TreeMap<>(discountByCategory)
        .forEach(
            (category, discount) ->
                text.append(String.format(Locale.ROOT, ", %s %.0f%%", category, discount * 100)));
    return text.append(String.format(Locale.ROOT, ", ±%.0f%% per type and zone", jitter * 100)).toString();
  }
}
