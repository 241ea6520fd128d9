package sh.karpenter.core.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourcesTest {
  static final Resources SMALL = Resources.builder().cpu("500m").memory("1Gi").build();
  static final Resources NODE = Resources.builder().cpu("2").memory("4Gi").pods(110).build();

  @Test
  void wellKnownDimensionsHaveFixedIndices() {
    assertThat(ResourceNames.index(ResourceNames.CPU)).isZero();
    assertThat(ResourceNames.index(ResourceNames.MEMORY)).isEqualTo(1);
    assertThat(ResourceNames.index(ResourceNames.PODS)).isEqualTo(2);
    assertThat(ResourceNames.index(ResourceNames.EPHEMERAL_STORAGE)).isEqualTo(3);
    int gpu = ResourceNames.index("example.com/test-gpu");
    assertThat(ResourceNames.index("example.com/test-gpu")).isEqualTo(gpu);
    assertThat(ResourceNames.name(gpu)).isEqualTo("example.com/test-gpu");
    assertThat(ResourceNames.count()).isGreaterThan(gpu);
  }

  @Test
  void parsesQuantitiesNamingTheBadResource() {
    assertThat(Resources.of(Map.of("cpu", "250m", "memory", "512Mi")).milli("memory")).isEqualTo(512L * 1024 * 1024 * 1000);
    assertThatThrownBy(() -> Resources.of(Map.of("memory", "lots")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessage("resource memory: invalid quantity: \"lots\"");
  }

  @Test
  void arithmetic() {
    assertThat(SMALL.plus(SMALL)).isEqualTo(Resources.builder().cpu("1").memory("2Gi").build());
    assertThat(NODE.minus(SMALL).toQuantities()).isEqualTo(Map.of("cpu", "1500m", "memory", "3Gi", "pods", "110"));
    assertThat(SMALL.minus(NODE).floorZero()).isEqualTo(Resources.EMPTY);
    assertThat(SMALL.minus(SMALL).isZero()).isTrue();
    assertThat(SMALL.max(Resources.builder().cpu("1").build())).isEqualTo(Resources.builder().cpu("1").memory("1Gi").build());
    assertThat(SMALL.times(3).cpuMilli()).isEqualTo(1500);
    assertThat(Resources.builder().memory("0").build()).isEqualTo(Resources.EMPTY);
    assertThat(Resources.ofMilli(Map.of("cpu", 5L)).milli("never-interned-name")).isZero();
  }

  @Test
  void fitsComparesOnlyRequestedDimensions() {
    assertThat(SMALL.fits(NODE)).isTrue();
    assertThat(NODE.fits(SMALL)).isFalse();
    assertThat(NODE.exceeding(SMALL)).containsExactly("cpu", "memory", "pods");
    Resources gpu = Resources.builder().milli("example.com/test-gpu", 1000).build();
    assertThat(gpu.fits(NODE)).isFalse();
    assertThat(gpu.exceeding(NODE)).containsExactly("example.com/test-gpu");
    assertThat(Resources.EMPTY.fits(Resources.EMPTY)).isTrue();
    assertThat(SMALL.minus(NODE).fits(Resources.EMPTY)).isTrue();
    assertThat(SMALL.fitsWith(SMALL, NODE)).isTrue();
    assertThat(SMALL.fitsWith(NODE, NODE)).isFalse();
  }

  @Test
  void printsQuantities() {
    assertThat(NODE).hasToString("{cpu=2, memory=4Gi, pods=110}");
    assertThat(NODE.toMilli()).containsEntry("pods", 110_000L);
  }
}
