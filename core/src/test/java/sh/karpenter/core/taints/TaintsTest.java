package sh.karpenter.core.taints;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.taints.Taint.Effect;
import sh.karpenter.core.taints.Toleration.Operator;

class TaintsTest {

  /**
   * Kubernetes' ToleratesTaint table. Columns: toleration key, operator, value, effect ('' = all) |
   * taint key, value, effect | tolerated.
   */
  @ParameterizedTest(name = "[{index}] {0}/{1}/{2}/{3} vs {4}={5}:{6} -> {7}")
  @CsvSource(
      nullValues = "-",
      textBlock =
          """
          gpu, Equal,  true, NoSchedule,       gpu, true,  NoSchedule,       true
          gpu, Equal,  true, NoSchedule,       gpu, false, NoSchedule,       false
          gpu, Equal,  true, NoSchedule,       gpu, true,  NoExecute,        false
          gpu, Equal,  true, -,                gpu, true,  NoExecute,        true
          gpu, Equal,  true, -,                gpu, true,  PreferNoSchedule, true
          gpu, Exists, '',   NoSchedule,       gpu, any,   NoSchedule,       true
          gpu, Exists, '',   -,                gpu, any,   NoExecute,        true
          gpu, Exists, '',   PreferNoSchedule, gpu, any,   NoSchedule,       false
          gpu, Exists, '',   -,                tpu, any,   NoSchedule,       false
          '',  Exists, '',   -,                any, thing, NoExecute,        true
          '',  Exists, '',   NoSchedule,       any, thing, NoExecute,        false
          '',  Exists, '',   NoSchedule,       any, thing, NoSchedule,       true
          gpu, -,      '',   NoSchedule,       gpu, '',    NoSchedule,       true
          gpu, -,      '',   NoSchedule,       gpu, x,     NoSchedule,       false
          gpu, Equal,  '',   NoSchedule,       gpu, '',    NoSchedule,       true
          """)
  void toleratesTaint(
      String key, Operator operator, String value, Effect effect, String taintKey, String taintValue, Effect taintEffect, boolean tolerated) {
    Toleration toleration = new Toleration(key, operator, value, effect, null);
    assertThat(toleration.tolerates(new Taint(taintKey, taintValue, taintEffect))).isEqualTo(tolerated);
  }

  static final Taint DISRUPTED = Taint.of("karpenter.sh/disrupted", Effect.NoSchedule);
  static final Taint GPU = new Taint("nvidia.com/gpu", "true", Effect.NoSchedule);
  static final Taint SOFT = new Taint("soft", "x", Effect.PreferNoSchedule);

  @Test
  void untoleratedNamesEachTaint() {
    assertThat(Taints.untolerated(List.of(DISRUPTED, GPU), List.of(), false))
        .isEqualTo("did not tolerate taints karpenter.sh/disrupted:NoSchedule, nvidia.com/gpu=true:NoSchedule");
    assertThat(Taints.untolerated(List.of(DISRUPTED, GPU), List.of(Toleration.exists("nvidia.com/gpu", null)), false))
        .isEqualTo("did not tolerate taint karpenter.sh/disrupted:NoSchedule");
    assertThat(Taints.untolerated(List.of(DISRUPTED, GPU), List.of(Toleration.tolerateAll()), false)).isNull();
    assertThat(Taints.untolerated(List.of(), List.of(), false)).isNull();
  }

  @Test
  void preferNoScheduleIsHardUnlessIgnored() {
    assertThat(Taints.tolerates(List.of(SOFT), List.of(), false)).isFalse();
    assertThat(Taints.untolerated(List.of(SOFT), List.of(), false)).isEqualTo("did not tolerate taint soft=x:PreferNoSchedule");
    assertThat(Taints.tolerates(List.of(SOFT), List.of(), true)).isTrue();
    assertThat(Taints.untolerated(List.of(SOFT, GPU), List.of(), true)).isEqualTo("did not tolerate taint nvidia.com/gpu=true:NoSchedule");
  }

  @Test
  void parsing() {
    assertThat(Effect.parse("NoExecute")).isEqualTo(Effect.NoExecute);
    assertThatThrownBy(() -> Effect.parse("NoScheduled")).hasMessageContaining("\"NoScheduled\"");
    assertThat(Operator.parse(null)).isEqualTo(Operator.Equal);
    assertThat(Operator.parse("Exists")).isEqualTo(Operator.Exists);
    assertThatThrownBy(() -> Operator.parse("In")).hasMessageContaining("\"In\"");
  }

  @Test
  void matchIgnoresTheValue() {
    assertThat(GPU.matches(new Taint("nvidia.com/gpu", "false", Effect.NoSchedule))).isTrue();
    assertThat(GPU.matches(new Taint("nvidia.com/gpu", "true", Effect.NoExecute))).isFalse();
  }
}
