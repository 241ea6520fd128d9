package sh.karpenter.core.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.disruption.DisruptionFixture.type;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;

/**
 * {@link Consolidation#cheaperThan} filters the types by worst launch price before ordering the kept
 * ones by price; it must return what ordering every type first and then filtering returns ({@link
 * #orderingAllThenFiltering}), ties in price included.
 */
class CheaperThanTest {
  @Test
  void filteringBeforeOrderingKeepsTheOrder() {
    Random random = new Random(15);
    List<Requirements> requirements =
        List.of(
            Requirements.of(),
            Requirements.of(Requirement.in(Labels.ZONE, DisruptionFixture.ZONES.get(0))),
            Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND)),
            Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_SPOT)));
    for (int round = 0; round < 300; round++) {
      List<InstanceType> types = new ArrayList<>();
      int count = 1 + random.nextInt(40);
      for (int i = 0; i < count; i++) {
        double onDemand = 0.05 * (1 + random.nextInt(8)); // few prices: many ties
        double spot = random.nextBoolean() ? onDemand * 0.4 : 0;
        types.add(type("t-" + random.nextInt(1000) + "-" + i, "2", "4Gi", onDemand, spot));
      }
      Collections.shuffle(types, random);
      Requirements reqs = requirements.get(random.nextInt(requirements.size()));
      double maxPrice = 0.05 * random.nextInt(10);
      Consolidation.Filtered expected = orderingAllThenFiltering(types, reqs, maxPrice);
      Consolidation.Filtered actual = Consolidation.cheaperThan(types, reqs, maxPrice);
      assertThat(actual.types()).containsExactlyElementsOf(expected.types());
      assertThat(actual.error()).isEqualTo(expected.error());
    }
  }

  /** The filter as it was: orders every type by price, then keeps those below {@code maxPrice}. */
  private static Consolidation.Filtered orderingAllThenFiltering(List<InstanceType> types, Requirements requirements, double maxPrice) {
    List<InstanceType> kept = new ArrayList<>();
    for (InstanceType type : InstanceTypes.orderByPrice(types, requirements)) {
      if (InstanceTypes.worstLaunchPrice(type.offerings(), requirements) < maxPrice) {
        kept.add(type);
      }
    }
    if (requirements.hasMinValues()) {
      InstanceTypes.MinValues minValues = InstanceTypes.satisfiesMinValues(kept, requirements);
      if (!minValues.satisfied()) {
        return new Consolidation.Filtered(List.of(), minValues.reason());
      }
    }
    return new Consolidation.Filtered(kept, null);
  }
}
