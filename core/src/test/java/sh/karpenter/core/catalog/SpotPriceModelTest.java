package sh.karpenter.core.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class SpotPriceModelTest {
  private final SpotPriceModel model = SpotPriceModel.simulatedDiscount();

  @Test
  void sameTypeAndZoneAlwaysGetTheSamePrice() {
    assertEquals(model.spotPrice("m5.large", "m", 0.096, "us-east-1a"), model.spotPrice("m5.large", "m", 0.096, "us-east-1a"));
    assertNotEquals(model.spotPrice("m5.large", "m", 0.096, "us-east-1a"), model.spotPrice("m5.large", "m", 0.096, "us-east-1b"));
  }

  @Test
  void pricesStayWithinTheDiscountAndJitter() {
    for (String zone : new String[] {"a", "b", "c", "d", "e", "f"}) {
      double general = model.spotPrice("c5.xlarge", "c", 1.0, zone);
      assertTrue(general >= 0.4 * 0.9 && general <= 0.4 * 1.1, zone + ": " + general);
      double gpu = model.spotPrice("g5.xlarge", "g", 1.0, zone);
      assertTrue(gpu >= 0.55 * 0.9 && gpu <= 0.55 * 1.1, zone + ": " + gpu);
    }
  }

  @Test
  void unitHashCoversMinusOneToOne() {
    double min = 1;
    double max = -1;
    for (int i = 0; i < 10_000; i++) {
      double h = DiscountSpotPriceModel.unitHash("t" + i);
      min = Math.min(min, h);
      max = Math.max(max, h);
    }
    assertTrue(min >= -1 && min < -0.98 && max < 1 && max > 0.98, min + " .. " + max);
  }

  @Test
  void describesItselfAsSimulated() {
    assertTrue(model.simulated());
    assertTrue(model.description().startsWith("SIMULATED spot prices"), model.description());
    assertTrue(model.description().contains("g 45%"), model.description());
  }

  @Test
  void onDemandModelIsUpstreamsColdStart() {
    assertEquals(0.096, SpotPriceModel.onDemand().spotPrice("m5.large", "m", 0.096, "z"));
    assertTrue(!SpotPriceModel.onDemand().simulated());
  }

  @Test
  void rejectsDiscountsOutsideTheUnitInterval() {
    assertThrows(IllegalArgumentException.class, () -> new DiscountSpotPriceModel(1.0, Map.of(), 0.1));
    assertThrows(IllegalArgumentException.class, () -> SpotPriceModel.discount(-0.1));
  }
}
