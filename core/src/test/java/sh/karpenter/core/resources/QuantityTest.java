package sh.karpenter.core.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class QuantityTest {

  @ParameterizedTest(name = "{0} = {1}m")
  @CsvSource(
      textBlock =
          """
          0,          0
          1,          1000
          100m,       100
          1.5,        1500
          .5,         500
          5.,         5000
          +2,         2000
          -2,         -2000
          1k,         1000000
          1M,         1000000000
          1G,         1000000000000
          1T,         1000000000000000
          1P,         1000000000000000000
          1Ki,        1024000
          1.5Gi,      1610612736000
          7134Mi,     7480541184000
          1Pi,        1125899906842624000
          2e3,        2000000
          2E3,        2000000
          12e+2,      1200000
          5E-3,       5
          1e-3,       1
          0.1m,       1
          -0.1m,      -1
          1n,         1
          1u,         1
          1000000n,   1
          1000001n,   2
          1.0001,     1001
          3.3333m,    4
          0.5Ki,      512000
          """)
  void parsesEveryKubernetesFormRoundingUpToMilli(String text, long milli) {
    assertThat(Quantity.parseMilli(text)).isEqualTo(milli);
  }

  @ParameterizedTest(name = "\"{0}\" is rejected")
  @ValueSource(strings = {"", "m", "1K", "1.2.3", "1e", "abc", " 1", "1 ", "1Gib", "1e2.5", "--1"})
  void rejectsWhatKubernetesRejects(String text) {
    assertThatThrownBy(() -> Quantity.parseMilli(text))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("\"" + text + "\"");
  }

  @ParameterizedTest(name = "{0} saturates")
  @ValueSource(strings = {"10000000Gi", "8Ei", "1E", "1e99", "9300000000000000"})
  void magnitudesBeyondLongMilliUnitsSaturateAndStayUnbounded(String text) {
    long unbounded = Quantity.parseMilli(text);
    assertThat(unbounded).isEqualTo(Long.MAX_VALUE);
    assertThat(Quantity.parseMilli("-" + text)).isEqualTo(Long.MIN_VALUE);
    Resources limit = Resources.ofMilli(java.util.Map.of("memory", unbounded));
    Resources usage = Resources.ofMilli(java.util.Map.of("memory", 5L << 40));
    assertThat(limit.plus(usage).milli("memory")).isEqualTo(Long.MAX_VALUE);
    assertThat(limit.times(3).milli("memory")).isEqualTo(Long.MAX_VALUE);
    assertThat(usage.minus(limit).milli("memory")).isNegative();
    assertThat(usage.fits(limit.minus(usage))).isTrue();
  }

  @ParameterizedTest(name = "{0} {1}m prints {2}")
  @CsvSource(
      textBlock =
          """
          cpu,               1930,                 1930m
          cpu,               2000,                 2
          cpu,               0,                    0
          memory,            7480541184000,        7134Mi
          memory,            21474836480000,       20Gi
          memory,            1000000,              1000
          memory,            1500,                 1500m
          memory,            -1073741824000,       -1Gi
          ephemeral-storage, 1099511627776000,     1Ti
          hugepages-2Mi,     2097152000,           2Mi
          pods,              29000,                29
          pods,              1024000,              1024
          nvidia.com/gpu,    1000,                 1
          """)
  void formatsCanonically(String resource, long milli, String text) {
    assertThat(Quantity.format(resource, milli)).isEqualTo(text);
    assertThat(Quantity.parseMilli(text)).isEqualTo(milli);
  }
}
