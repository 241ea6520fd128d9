package sh.karpenter.core.resources;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.LongRange;

class ResourceProperties {
  static final List<String> NAMES = List.of("cpu", "memory", "pods", "ephemeral-storage", "example.com/test-gpu");

  @Provide
  Arbitrary<Resources> resources() {
    return Arbitraries.maps(Arbitraries.of(NAMES), Arbitraries.longs().between(-1L << 50, 1L << 50))
        .ofMaxSize(5)
        .map(Resources::ofMilli);
  }

  @Provide
  Arbitrary<String> names() {
    return Arbitraries.of(NAMES);
  }

  @Property(seed = "20261123")
  void formatThenParseIsTheIdentity(@ForAll("names") String name, @ForAll long milli) {
    assertThat(Quantity.parseMilli(Quantity.format(name, milli))).isEqualTo(milli);
  }

  @Property(seed = "20261123")
  void binaryMultiplesPrintWithTheirSuffix(@ForAll @LongRange(min = 1, max = 1 << 20) long mebibytes) {
    String text = Quantity.format("memory", mebibytes * 1024 * 1024 * 1000);
    assertThat(text).matches("\\d+(Mi|Gi|Ti)");
    assertThat(Quantity.parseMilli(text)).isEqualTo(mebibytes * 1024 * 1024 * 1000);
  }

  @Property(seed = "20261123")
  void decimalTextParsesExactly(@ForAll @LongRange(min = -1_000_000_000L, max = 1_000_000_000L) long milli) {
    String text = java.math.BigDecimal.valueOf(milli, 3).toPlainString();
    assertThat(Quantity.parseMilli(text)).isEqualTo(milli);
  }

  @Property(seed = "20261123")
  void plusAndMinusAreInverse(@ForAll("resources") Resources a, @ForAll("resources") Resources b) {
    assertThat(a.plus(b).minus(b)).isEqualTo(a);
    assertThat(a.plus(b)).isEqualTo(b.plus(a));
  }

  @Property(seed = "20261123")
  void fitsWithAgreesWithPlus(
      @ForAll("resources") Resources a, @ForAll("resources") Resources b, @ForAll("resources") Resources available) {
    assertThat(a.fitsWith(b, available)).isEqualTo(a.plus(b).fits(available));
    assertThat(a.fits(available)).isEqualTo(a.exceeding(available).isEmpty());
  }

  @Property(seed = "20261123")
  void maxDominatesBoth(@ForAll("resources") Resources a, @ForAll("resources") Resources b) {
    Resources max = a.max(b);
    assertThat(a.fits(max)).isTrue();
    assertThat(b.fits(max)).isTrue();
  }
}
