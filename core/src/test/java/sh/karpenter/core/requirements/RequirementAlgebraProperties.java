package sh.karpenter.core.requirements;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** The laws of upstream's requirement algebra, over requirements on one key. */
class RequirementAlgebraProperties {
  /** Values a label may take, mixing names and integers so that bounds matter. */
  static final List<String> VALUES = List.of("a", "b", "c", "-1", "0", "1", "2", "3", "5", "8", "13");

  @Provide
  Arbitrary<Requirement> requirements() {
    Arbitrary<Requirement> sets =
        Combinators.combine(
                Arbitraries.of(Operator.In, Operator.NotIn, Operator.Exists, Operator.DoesNotExist),
                Arbitraries.of(VALUES).list().ofMaxSize(4))
            .as((op, values) -> Requirement.of("key", op, op == Operator.Exists || op == Operator.DoesNotExist ? List.of() : values));
    Arbitrary<Requirement> bounds =
        Combinators.combine(Arbitraries.of(Operator.Gt, Operator.Lt, Operator.Gte, Operator.Lte), Arbitraries.integers().between(-2, 14))
            .as((op, n) -> Requirement.of("key", op, List.of(String.valueOf(n))));
    Arbitrary<Requirement> single = Arbitraries.oneOf(sets, bounds);
    Arbitrary<Integer> minValues = Arbitraries.integers().between(1, 3).injectNull(0.7);
    // intersections of up to three generate bounded complements with exclusions too
    return Combinators.combine(single.list().ofMinSize(1).ofMaxSize(3), minValues)
        .as((rs, mv) -> rs.stream().reduce(Requirement::intersection).orElseThrow().withMinValues(mv));
  }

  @Property(seed = "20261123")
  void intersectionIsCommutative(@ForAll("requirements") Requirement a, @ForAll("requirements") Requirement b) {
    assertThat(a.intersection(b)).isEqualTo(b.intersection(a));
  }

  @Property(seed = "20261123")
  void intersectionIsAssociative(
      @ForAll("requirements") Requirement a, @ForAll("requirements") Requirement b, @ForAll("requirements") Requirement c) {
    assertThat(a.intersection(b).intersection(c)).isEqualTo(a.intersection(b.intersection(c)));
  }

  @Property(seed = "20261123")
  void intersectionIsIdempotent(@ForAll("requirements") Requirement a) {
    assertThat(a.intersection(a)).isEqualTo(a);
    assertThat(a.intersection(a.withMinValues(null))).isEqualTo(a);
  }

  @Property(seed = "20261123")
  void existsIsTheIdentityAndDoesNotExistAbsorbs(@ForAll("requirements") Requirement a) {
    assertThat(a.intersection(Requirement.exists("key"))).isEqualTo(a);
    assertThat(a.intersection(Requirement.doesNotExist("key")).isEmpty()).isTrue();
  }

  @Property(seed = "20261123")
  void hasOfTheIntersectionIsHasOfBoth(
      @ForAll("requirements") Requirement a, @ForAll("requirements") Requirement b) {
    Requirement both = a.intersection(b);
    for (String value : VALUES) {
      assertThat(both.has(value)).as(value).isEqualTo(a.has(value) && b.has(value));
    }
  }

  @Property(seed = "20261123")
  void intersectsIsSymmetricAndAgreesWithTheIntersection(
      @ForAll("requirements") Requirement a, @ForAll("requirements") Requirement b) {
    boolean intersects = a.intersects(b);
    assertThat(b.intersects(a)).isEqualTo(intersects);
    Requirement both = a.intersection(b);
    boolean nonEmpty = both.complement() || !both.isEmpty();
    boolean bothNegative = a.isNotInOrDoesNotExist() && b.isNotInOrDoesNotExist();
    assertThat(intersects).isEqualTo(nonEmpty || bothNegative);
    if (VALUES.stream().anyMatch(v -> a.has(v) && b.has(v))) {
      assertThat(intersects).isTrue();
    }
  }

  @Property(seed = "20261123")
  void compatibilityIsSymmetricWhenBothDefineTheKey(
      @ForAll("requirements") Requirement a, @ForAll("requirements") Requirement b) {
    Requirements x = Requirements.of(a);
    Requirements y = Requirements.of(b);
    assertThat(x.isCompatible(y, java.util.Set.of())).isEqualTo(y.isCompatible(x, java.util.Set.of()));
  }

  @Property(seed = "20261123")
  void boundsAndComplementAreConsistent(@ForAll("requirements") Requirement a) {
    for (String value : VALUES) {
      boolean excluded = a.values().contains(value);
      boolean inBounds = withinBounds(a, value);
      boolean expected = a.complement() ? !excluded && inBounds : excluded;
      assertThat(a.has(value)).as(value).isEqualTo(expected);
    }
    if (!a.complement()) {
      assertThat(a.gte()).isNull();
      assertThat(a.lte()).isNull();
      assertThat(a.size()).isEqualTo(a.values().size());
    } else {
      assertThat(a.size()).isEqualTo(Integer.MAX_VALUE);
      // exclusions outside the bounds are dropped
      a.values().forEach(v -> assertThat(withinBounds(a, v)).isTrue());
    }
    if (a.gte() != null && a.lte() != null) {
      assertThat(a.gte()).isLessThanOrEqualTo(a.lte());
    }
  }

  @Property(seed = "20261123")
  void anyIsAllowed(@ForAll("requirements") Requirement a) {
    String any = a.any();
    if (any != null) {
      assertThat(a.has(any)).isTrue();
    } else {
      assertThat(a.isEmpty() || a.gte() != null && a.lte() != null).as("only DoesNotExist or a range full of exclusions has no value").isTrue();
    }
  }

  @Property(seed = "20261123")
  void expressionsRoundTrip(@ForAll("requirements") Requirement a) {
    Requirements back = Requirements.of();
    a.toExpressions().forEach(e -> back.add(e.toRequirement()));
    assertThat(back.get("key")).isEqualTo(a);
  }

  private static boolean withinBounds(Requirement a, String value) {
    if (a.gte() == null && a.lte() == null) {
      return true;
    }
    try {
      long n = Long.parseLong(value);
      return (a.gte() == null || n >= a.gte()) && (a.lte() == null || n <= a.lte());
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
