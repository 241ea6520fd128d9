package sh.karpenter.core.requirements;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import sh.karpenter.core.wellknown.Labels;

class RequirementTest {

  /** operator | operand values | value | has. Port of upstream's "Has" cases plus the bounds. */
  @ParameterizedTest(name = "{0} [{1}] has {2} = {3}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          In           | A,B | A   | true
          In           | A,B | C   | false
          NotIn        | A,B | A   | false
          NotIn        | A,B | C   | true
          Exists       |     | A   | true
          Exists       |     | ''  | true
          DoesNotExist |     | A   | false
          Gt           | 5   | 6   | true
          Gt           | 5   | 5   | false
          Gt           | 5   | x   | false
          Gt           | -3  | -2  | true
          Lt           | 5   | 4   | true
          Lt           | 5   | 5   | false
          Lt           | 5   | 4.5 | false
          Gte          | 5   | 5   | true
          Gte          | 5   | 4   | false
          Lte          | 5   | 5   | true
          Lte          | 5   | 6   | false
          Gt           | 5   | 99999999999 | true
          """)
  void has(Operator op, String values, String value, boolean expected) {
    List<String> operands = values == null ? List.of() : List.of(values.split(","));
    assertThat(Requirement.of("key", op, operands).has(value)).isEqualTo(expected);
  }

  @ParameterizedTest(name = "{0} [{1}] reads back as {2}")
  @CsvSource(
      delimiter = '|',
      textBlock =
          """
          In           | A   | In
          NotIn        | A   | NotIn
          Exists       |     | Exists
          DoesNotExist |     | DoesNotExist
          Gt           | 5   | Gte
          Gte          | 5   | Gte
          Lt           | 5   | Lte
          Lte          | 5   | Lte
          In           |     | DoesNotExist
          NotIn        |     | Exists
          """)
  void operatorIsDerivedFromTheSet(Operator op, String values, Operator expected) {
    List<String> operands = values == null ? List.of() : List.of(values.split(","));
    assertThat(Requirement.of("key", op, operands).operator()).isEqualTo(expected);
  }

  @Test
  void gtOfTheLargestIntegerAllowsNothing() {
    assertThat(Requirement.of("key", Operator.Gt, List.of(String.valueOf(Integer.MAX_VALUE))).isEmpty()).isTrue();
    assertThat(Requirement.of("key", Operator.Gt, List.of(String.valueOf(Long.MAX_VALUE))).isEmpty()).isTrue();
    assertThat(Requirement.of("key", Operator.Lt, List.of(String.valueOf(Long.MIN_VALUE))).isEmpty()).isTrue();
  }

  @Test
  void comparisonOperatorsNeedOneInteger() {
    assertThatThrownBy(() -> Requirement.of("key", Operator.Gt, List.of("a")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("key Gt")
        .hasMessageContaining("\"a\"");
    assertThatThrownBy(() -> Requirement.of("key", Operator.Lt, List.of("1", "2")))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Operator.parse("Gtx")).hasMessageContaining("Gtx");
  }

  @Test
  void betaKeysAreNormalised() {
    assertThat(Requirement.in("failure-domain.beta.kubernetes.io/zone", "a").key()).isEqualTo(Labels.ZONE);
    assertThat(Requirement.of("beta.kubernetes.io/arch", Operator.Exists, List.of()).key()).isEqualTo(Labels.ARCH);
    assertThat(Requirements.fromLabels(java.util.Map.of("beta.kubernetes.io/os", "linux")).has(Labels.OS)).isTrue();
  }

  @Test
  void minValuesIsTheMaximumOnIntersection() {
    Requirement two = Requirement.of("key", Operator.In, List.of("a", "b", "c"), 2);
    Requirement three = Requirement.of("key", Operator.Exists, List.of(), 3);
    assertThat(two.intersection(three).minValues()).isEqualTo(3);
    assertThat(two.intersection(Requirement.exists("key")).minValues()).isEqualTo(2);
    assertThat(Requirement.exists("key").intersection(two)).isEqualTo(two);
    assertThat(two.intersection(Requirement.doesNotExist("key")).minValues()).isEqualTo(2);
  }

  @Test
  void sizeAndAny() {
    assertThat(Requirement.in("k", "b", "a", "b").size()).isEqualTo(2);
    assertThat(Requirement.in("k", "b", "a").any()).isEqualTo("a");
    assertThat(Requirement.notIn("k", "a").size()).isEqualTo(Integer.MAX_VALUE);
    assertThat(Requirement.doesNotExist("k").any()).isNull();
    assertThat(Requirement.exists("k").any()).isEqualTo("0");
    assertThat(Requirement.notIn("k", "0", "1").any()).isEqualTo("2");
    assertThat(Requirement.of("k", Operator.Gt, List.of("7")).any()).isEqualTo("8");
    assertThat(Requirement.of("k", Operator.Lt, List.of("-4")).any()).isEqualTo("-5");
    Requirement narrow = Requirement.of("k", Operator.Gte, List.of("3")).intersection(Requirement.of("k", Operator.Lte, List.of("3")));
    assertThat(narrow.any()).isEqualTo("3");
    Requirement atMostZero = Requirement.of("k", Operator.Lte, List.of("0")).intersection(Requirement.notIn("k", "0"));
    assertThat(atMostZero.any()).isEqualTo("-1");
    assertThat(narrow.intersection(Requirement.notIn("k", "3")).any()).isNull();
  }

  @Test
  void printsLikeUpstreamEllidingLongLists() {
    assertThat(Requirement.in("k", "1", "2", "3", "4", "5", "6", "7")).hasToString("k In [1 2 3 4 5 and 2 others]");
    assertThat(Requirement.of("k", Operator.NotIn, List.of("a"), 2)).hasToString("k NotIn [a] minValues 2");
  }

  @Test
  void intersectsTreatsTwoNegativeRequirementsAsCompatible() {
    Requirement doesNotExist = Requirement.doesNotExist("k");
    Requirement notInA = Requirement.notIn("k", "a");
    assertThat(doesNotExist.intersects(notInA)).isTrue();
    assertThat(notInA.intersects(doesNotExist)).isTrue();
    assertThat(doesNotExist.intersects(doesNotExist)).isTrue();
    assertThat(doesNotExist.intersects(Requirement.exists("k"))).isFalse();
    assertThat(Requirement.in("k", "a").intersects(notInA)).isFalse();
    assertThat(Requirement.in("k", "a", "b").intersects(notInA)).isTrue();
  }

  @Test
  void expressionsRoundTrip() {
    Requirement complex = Requirement.notIn("k", "1", "2").intersection(Requirement.of("k", Operator.Gt, List.of("1")));
    assertThat(complex.toExpressions())
        .extracting(Requirement.Expression::operator)
        .containsExactly(Operator.NotIn, Operator.Gte);
    Requirements back = Requirements.of();
    complex.toExpressions().forEach(e -> back.add(e.toRequirement()));
    assertThat(back.get("k")).isEqualTo(complex);
  }
}
