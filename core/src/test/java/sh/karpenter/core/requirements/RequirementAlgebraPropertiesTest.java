package sh.karpenter.core.requirements;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.sweep.Seeds;

/** The laws of upstream's requirement algebra, over requirements on one key, each over a seeded sweep. */
class RequirementAlgebraPropertiesTest {
  /** Values a label may take, mixing names and integers so that bounds matter. */
  static final List<String> VALUES = List.of("a", "b", "c", "-1", "0", "1", "2", "3", "5", "8", "13");

  static LongStream seeds() {
    return Seeds.sweep(1000);
  }

  /**
   * A requirement on {@code key}: the intersection of one to three single requirements (so bounded
   * complements with exclusions occur too), with minValues 1-3 three times in ten.
   */
  static Requirement requirement(Random random) {
    List<Requirement> singles = Seeds.listOf(random, 1, 3, RequirementAlgebraPropertiesTest::single);
    Integer minValues = random.nextInt(10) < 7 ? null : Seeds.between(random, 1, 3);
    return singles.stream().reduce(Requirement::intersection).orElseThrow().withMinValues(minValues);
  }

  /** A set requirement (up to four values, duplicates allowed, often none) or a bound in [-2, 14]. */
  private static Requirement single(Random random) {
    if (random.nextBoolean()) {
      Operator op = Seeds.oneOf(random, Operator.In, Operator.NotIn, Operator.Exists, Operator.DoesNotExist);
      List<String> values = Seeds.listOf(random, 0, 4, r -> Seeds.oneOf(r, VALUES));
      return Requirement.of("key", op, op == Operator.Exists || op == Operator.DoesNotExist ? List.of() : values);
    }
    Operator op = Seeds.oneOf(random, Operator.Gt, Operator.Lt, Operator.Gte, Operator.Lte);
    return Requirement.of("key", op, List.of(String.valueOf(Seeds.between(random, -2, 14))));
  }

  static List<Requirement> requirements(Random random, int count) {
    return Stream.generate(() -> requirement(random)).limit(count).toList();
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void intersectionIsCommutative(long seed) {
    Seeds.check(seed, r -> requirements(r, 2), in -> {
      Requirement a = in.get(0), b = in.get(1);
      assertThat(a.intersection(b)).isEqualTo(b.intersection(a));
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void intersectionIsAssociative(long seed) {
    Seeds.check(seed, r -> requirements(r, 3), in -> {
      Requirement a = in.get(0), b = in.get(1), c = in.get(2);
      assertThat(a.intersection(b).intersection(c)).isEqualTo(a.intersection(b.intersection(c)));
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void intersectionIsIdempotent(long seed) {
    Seeds.check(seed, RequirementAlgebraPropertiesTest::requirement, a -> {
      assertThat(a.intersection(a)).isEqualTo(a);
      assertThat(a.intersection(a.withMinValues(null))).isEqualTo(a);
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void existsIsTheIdentityAndDoesNotExistAbsorbs(long seed) {
    Seeds.check(seed, RequirementAlgebraPropertiesTest::requirement, a -> {
      assertThat(a.intersection(Requirement.exists("key"))).isEqualTo(a);
      assertThat(a.intersection(Requirement.doesNotExist("key")).isEmpty()).isTrue();
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void hasOfTheIntersectionIsHasOfBoth(long seed) {
    Seeds.check(seed, r -> requirements(r, 2), in -> {
      Requirement a = in.get(0), b = in.get(1);
      Requirement both = a.intersection(b);
      for (String value : VALUES) {
        assertThat(both.has(value)).as(value).isEqualTo(a.has(value) && b.has(value));
      }
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void intersectsIsSymmetricAndAgreesWithTheIntersection(long seed) {
    Seeds.check(seed, r -> requirements(r, 2), in -> {
      Requirement a = in.get(0), b = in.get(1);
      boolean intersects = a.intersects(b);
      assertThat(b.intersects(a)).isEqualTo(intersects);
      Requirement both = a.intersection(b);
      boolean nonEmpty = both.complement() || !both.isEmpty();
      boolean bothNegative = a.isNotInOrDoesNotExist() && b.isNotInOrDoesNotExist();
      assertThat(intersects).isEqualTo(nonEmpty || bothNegative);
      if (VALUES.stream().anyMatch(v -> a.has(v) && b.has(v))) {
        assertThat(intersects).isTrue();
      }
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void compatibilityIsSymmetricWhenBothDefineTheKey(long seed) {
    Seeds.check(seed, r -> requirements(r, 2), in -> {
      Requirements x = Requirements.of(in.get(0));
      Requirements y = Requirements.of(in.get(1));
      assertThat(x.isCompatible(y, java.util.Set.of())).isEqualTo(y.isCompatible(x, java.util.Set.of()));
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void boundsAndComplementAreConsistent(long seed) {
    Seeds.check(seed, RequirementAlgebraPropertiesTest::requirement, a -> {
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
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void anyIsAllowed(long seed) {
    Seeds.check(seed, RequirementAlgebraPropertiesTest::requirement, a -> {
      String any = a.any();
      if (any != null) {
        assertThat(a.has(any)).isTrue();
      } else {
        assertThat(a.isEmpty() || a.gte() != null && a.lte() != null).as("only DoesNotExist or a range full of exclusions has no value").isTrue();
      }
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void expressionsRoundTrip(long seed) {
    Seeds.check(seed, RequirementAlgebraPropertiesTest::requirement, a -> {
      Requirements back = Requirements.of();
      a.toExpressions().forEach(e -> back.add(e.toRequirement()));
      assertThat(back.get("key")).isEqualTo(a);
    });
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
