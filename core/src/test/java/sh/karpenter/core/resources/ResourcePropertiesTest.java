package sh.karpenter.core.resources;

import static org.assertj.core.api.Assertions.assertThat;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.sweep.Seeds;

/** Quantity text and {@link Resources} arithmetic, each law over a seeded sweep. */
class ResourcePropertiesTest {
  static final List<String> NAMES = List.of("cpu", "memory", "pods", "ephemeral-storage", "example.com/test-gpu");

  static LongStream seeds() {
    return Seeds.sweep(1000);
  }

  /** Up to five of {@link #NAMES} (often none), each with a milli value in [-2^50, 2^50] (zero included). */
  static Resources resources(Random random) {
    List<String> names = new ArrayList<>(NAMES);
    Collections.shuffle(names, random);
    Map<String, Long> milli = new LinkedHashMap<>();
    for (String name : names.subList(0, Seeds.size(random, 0, NAMES.size()))) {
      milli.put(name, Seeds.between(random, -1L << 50, 1L << 50));
    }
    return Resources.ofMilli(milli);
  }

  static List<Resources> resources(Random random, int count) {
    return Stream.generate(() -> resources(random)).limit(count).toList();
  }

  /** A resource name and any milli value, the extremes of long included. */
  record Named(String name, long milli) {}

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void formatThenParseIsTheIdentity(long seed) {
    Seeds.check(
        seed,
        r -> new Named(Seeds.oneOf(r, NAMES), Seeds.anyLong(r)),
        in -> assertThat(Quantity.parseMilli(Quantity.format(in.name(), in.milli()))).isEqualTo(in.milli()));
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void binaryMultiplesPrintWithTheirSuffix(long seed) {
    Seeds.check(seed, r -> Seeds.between(r, 1L, 1L << 20), mebibytes -> {
      String text = Quantity.format("memory", mebibytes * 1024 * 1024 * 1000);
      assertThat(text).matches("\\d+(Mi|Gi|Ti)");
      assertThat(Quantity.parseMilli(text)).isEqualTo(mebibytes * 1024 * 1024 * 1000);
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void decimalTextParsesExactly(long seed) {
    Seeds.check(seed, r -> Seeds.between(r, -1_000_000_000L, 1_000_000_000L), milli -> {
      String text = BigDecimal.valueOf(milli, 3).toPlainString();
      assertThat(Quantity.parseMilli(text)).as(text).isEqualTo(milli);
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void plusAndMinusAreInverse(long seed) {
    Seeds.check(seed, r -> resources(r, 2), in -> {
      Resources a = in.get(0), b = in.get(1);
      assertThat(a.plus(b).minus(b)).isEqualTo(a);
      assertThat(a.plus(b)).isEqualTo(b.plus(a));
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void fitsWithAgreesWithPlus(long seed) {
    Seeds.check(seed, r -> resources(r, 3), in -> {
      Resources a = in.get(0), b = in.get(1), available = in.get(2);
      assertThat(a.fitsWith(b, available)).isEqualTo(a.plus(b).fits(available));
      assertThat(a.fits(available)).isEqualTo(a.exceeding(available).isEmpty());
    });
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void maxDominatesBoth(long seed) {
    Seeds.check(seed, r -> resources(r, 2), in -> {
      Resources a = in.get(0), b = in.get(1);
      Resources max = a.max(b);
      assertThat(a.fits(max)).isTrue();
      assertThat(b.fits(max)).isTrue();
    });
  }
}
