package sh.karpenter.core.requirements;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Port of upstream's requirement intersection matrix (pkg/scheduling/requirement_test.go): every
 * pair of the named requirements below, with the expected intersection as it prints. Each row is
 * checked in both orders.
 */
class RequirementIntersectionTest {
  static final String KEY = "key";

  static final Map<String, Requirement> NAMED =
      Map.ofEntries(
          Map.entry("exists", Requirement.of(KEY, Operator.Exists, List.of())),
          Map.entry("doesNotExist", Requirement.of(KEY, Operator.DoesNotExist, List.of())),
          Map.entry("inA", Requirement.of(KEY, Operator.In, List.of("A"))),
          Map.entry("inB", Requirement.of(KEY, Operator.In, List.of("B"))),
          Map.entry("inAB", Requirement.of(KEY, Operator.In, List.of("A", "B"))),
          Map.entry("notInA", Requirement.of(KEY, Operator.NotIn, List.of("A"))),
          Map.entry("in1", Requirement.of(KEY, Operator.In, List.of("1"))),
          Map.entry("in9", Requirement.of(KEY, Operator.In, List.of("9"))),
          Map.entry("in19", Requirement.of(KEY, Operator.In, List.of("1", "9"))),
          Map.entry("notIn12", Requirement.of(KEY, Operator.NotIn, List.of("1", "2"))),
          Map.entry("greaterThan1", Requirement.of(KEY, Operator.Gt, List.of("1"))),
          Map.entry("greaterThan9", Requirement.of(KEY, Operator.Gt, List.of("9"))),
          Map.entry("lessThan1", Requirement.of(KEY, Operator.Lt, List.of("1"))),
          Map.entry("lessThan9", Requirement.of(KEY, Operator.Lt, List.of("9"))),
          Map.entry("gte5", Requirement.of(KEY, Operator.Gte, List.of("5"))),
          Map.entry("lte5", Requirement.of(KEY, Operator.Lte, List.of("5"))));

  /** left | right | expected intersection (as printed, without the key). */
  static final String MATRIX =
      """
      exists       | exists       | Exists
      exists       | doesNotExist | DoesNotExist
      exists       | inA          | In [A]
      exists       | inAB         | In [A B]
      exists       | notInA       | NotIn [A]
      exists       | in19         | In [1 9]
      exists       | notIn12      | NotIn [1 2]
      exists       | greaterThan1 | Gte 2
      exists       | greaterThan9 | Gte 10
      exists       | lessThan1    | Lte 0
      exists       | lessThan9    | Lte 8
      doesNotExist | doesNotExist | DoesNotExist
      doesNotExist | inA          | DoesNotExist
      doesNotExist | inAB         | DoesNotExist
      doesNotExist | notInA       | DoesNotExist
      doesNotExist | in19         | DoesNotExist
      doesNotExist | notIn12      | DoesNotExist
      doesNotExist | greaterThan1 | DoesNotExist
      doesNotExist | lessThan9    | DoesNotExist
      inA          | inA          | In [A]
      inA          | inB          | DoesNotExist
      inA          | inAB         | In [A]
      inA          | notInA       | DoesNotExist
      inA          | in1          | DoesNotExist
      inA          | in19         | DoesNotExist
      inA          | notIn12      | In [A]
      inA          | greaterThan1 | DoesNotExist
      inA          | greaterThan9 | DoesNotExist
      inA          | lessThan1    | DoesNotExist
      inA          | lessThan9    | DoesNotExist
      inB          | inAB         | In [B]
      inB          | notInA       | In [B]
      inB          | notIn12      | In [B]
      inB          | lessThan9    | DoesNotExist
      inAB         | inAB         | In [A B]
      inAB         | notInA       | In [B]
      inAB         | in9          | DoesNotExist
      inAB         | notIn12      | In [A B]
      inAB         | greaterThan1 | DoesNotExist
      notInA       | notInA       | NotIn [A]
      notInA       | in1          | In [1]
      notInA       | in9          | In [9]
      notInA       | in19         | In [1 9]
      notInA       | notIn12      | NotIn [1 2 A]
      notInA       | greaterThan1 | Gte 2
      notInA       | greaterThan9 | Gte 10
      notInA       | lessThan1    | Lte 0
      notInA       | lessThan9    | Lte 8
      in1          | in1          | In [1]
      in1          | in9          | DoesNotExist
      in1          | in19         | In [1]
      in1          | notIn12      | DoesNotExist
      in1          | greaterThan1 | DoesNotExist
      in1          | greaterThan9 | DoesNotExist
      in1          | lessThan1    | DoesNotExist
      in1          | lessThan9    | In [1]
      in9          | in9          | In [9]
      in9          | in19         | In [9]
      in9          | notIn12      | In [9]
      in9          | greaterThan1 | In [9]
      in9          | greaterThan9 | DoesNotExist
      in9          | lessThan1    | DoesNotExist
      in9          | lessThan9    | DoesNotExist
      in19         | in19         | In [1 9]
      in19         | notIn12      | In [9]
      in19         | greaterThan1 | In [9]
      in19         | greaterThan9 | DoesNotExist
      in19         | lessThan1    | DoesNotExist
      in19         | lessThan9    | In [1]
      notIn12      | notIn12      | NotIn [1 2]
      notIn12      | greaterThan1 | NotIn [2] Gte 2
      notIn12      | greaterThan9 | Gte 10
      notIn12      | lessThan1    | Lte 0
      notIn12      | lessThan9    | NotIn [1 2] Lte 8
      greaterThan1 | greaterThan1 | Gte 2
      greaterThan1 | greaterThan9 | Gte 10
      greaterThan1 | lessThan1    | DoesNotExist
      greaterThan1 | lessThan9    | Gte 2 Lte 8
      greaterThan9 | greaterThan9 | Gte 10
      greaterThan9 | lessThan1    | DoesNotExist
      greaterThan9 | lessThan9    | DoesNotExist
      lessThan1    | lessThan1    | Lte 0
      lessThan1    | lessThan9    | Lte 0
      lessThan9    | lessThan9    | Lte 8
      gte5         | lte5         | Gte 5 Lte 5
      gte5         | in19         | In [9]
      lte5         | in19         | In [1]
      gte5         | greaterThan9 | Gte 10
      lte5         | lessThan1    | Lte 0
      gte5         | lessThan1    | DoesNotExist
      """;

  static Stream<Arguments> matrix() {
    return MATRIX.lines()
        .filter(line -> !line.isBlank())
        .map(line -> Arrays.stream(line.split("\\|")).map(String::trim).toArray(String[]::new))
        .map(cells -> Arguments.of(cells[0], cells[1], cells[2]));
  }

  @ParameterizedTest(name = "{0} ∩ {1} = {2}")
  @MethodSource("matrix")
  void intersection(String left, String right, String expected) {
    Requirement a = NAMED.get(left);
    Requirement b = NAMED.get(right);
    assertThat(a.intersection(b)).hasToString(KEY + " " + expected);
    assertThat(b.intersection(a)).isEqualTo(a.intersection(b));
  }

  @ParameterizedTest(name = "{0} ∩ {1} = {2}: has() agrees")
  @MethodSource("matrix")
  void hasOfIntersectionIsConjunction(String left, String right, String expected) {
    Requirement a = NAMED.get(left);
    Requirement b = NAMED.get(right);
    Requirement both = a.intersection(b);
    for (String value : List.of("A", "B", "C", "-1", "0", "1", "2", "5", "8", "9", "10", "11")) {
      assertThat(both.has(value)).as(value).isEqualTo(a.has(value) && b.has(value));
    }
  }
}
