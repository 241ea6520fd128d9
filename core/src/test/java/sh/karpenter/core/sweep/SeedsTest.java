package sh.karpenter.core.sweep;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.opentest4j.AssertionFailedError;

class SeedsTest {

  @Test
  void sweepsAreRepeatableAndDistinct() {
    assertThat(Seeds.sweep(300).boxed().toList()).isEqualTo(Seeds.sweep(300).boxed().toList()).doesNotHaveDuplicates();
    assertThat(Seeds.sweep(1000).limit(300).boxed().toList()).isEqualTo(Seeds.sweep(300).boxed().toList());
  }

  @ParameterizedTest(name = "[{0}, {1}]")
  @CsvSource({
    "-9223372036854775808, 9223372036854775807",
    "-1125899906842624, 1125899906842624",
    "1, 1048576",
    "-2, 14",
    "10, 6000",
    "5, 5"
  })
  void betweenStaysInRangeAndReachesTheEdges(long min, long max) {
    Random random = new Random(1);
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < 2000; i++) {
      long value = Seeds.between(random, min, max);
      assertThat(value).isBetween(min, max);
      seen.add(value);
    }
    assertThat(seen).contains(min, max);
    if (min <= 0 && max >= 0) {
      assertThat(seen).contains(0L);
    }
    if (max - min > 1000) {
      assertThat(seen.stream().filter(v -> Math.abs(v) < 1000)).as("small magnitudes").hasSizeGreaterThan(10);
    }
  }

  @Test
  void sizesReachBothEnds() {
    Random random = new Random(1);
    Set<Integer> seen = new HashSet<>();
    for (int i = 0; i < 500; i++) {
      int size = Seeds.listOf(random, 0, 40, Random::nextInt).size();
      assertThat(size).isBetween(0, 40);
      seen.add(size);
    }
    assertThat(seen).contains(0, 1, 40);
  }

  @Test
  void aFailureNamesTheSeedAndTheInput() {
    assertThatThrownBy(() -> Seeds.check(42, r -> List.of("drawn"), in -> assertThat(in).containsExactly("other")))
        .isInstanceOf(AssertionError.class)
        .hasMessageStartingWith("seed 42L, input [drawn]: ");
    assertThatThrownBy(() -> Seeds.check(42, r -> "drawn", in -> assertThat(in).isEqualTo("other")))
        .isInstanceOf(AssertionFailedError.class)
        .hasMessageStartingWith("seed 42L, input drawn: ");
    assertThatThrownBy(() -> Seeds.check(42, r -> "drawn", in -> {
          throw new IllegalStateException("broken");
        }))
        .hasMessage("seed 42L, input drawn: java.lang.IllegalStateException: broken");
    assertThatThrownBy(() -> Seeds.check(42, r -> {
          throw new IllegalArgumentException("cannot draw");
        }, in -> {}))
        .hasMessage("seed 42L, input (not drawn): java.lang.IllegalArgumentException: cannot draw");
  }

  @Test
  void theInputComesFromARandomWithTheSeed() {
    long expected = new Random(7).nextLong();
    Seeds.check(7, Random::nextLong, drawn -> assertThat(drawn).isEqualTo(expected));
  }
}
