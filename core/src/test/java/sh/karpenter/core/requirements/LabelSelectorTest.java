package sh.karpenter.core.requirements;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.requirements.LabelSelector.Expression;

class LabelSelectorTest {
  static final Map<String, String> WEB = Map.of("app", "web", "tier", "front");

  @Test
  void emptySelectorMatchesEverythingAndNothingMatchesNothing() {
    assertThat(LabelSelector.of(Map.of(), List.of())).isSameAs(LabelSelector.EVERYTHING);
    assertThat(LabelSelector.EVERYTHING.matches(Map.of())).isTrue();
    assertThat(LabelSelector.EVERYTHING.matches(WEB)).isTrue();
    assertThat(LabelSelector.NOTHING.matches(WEB)).isFalse();
    assertThat(LabelSelector.NOTHING.matches(Map.of())).isFalse();
  }

  @Test
  void matchLabelsAndExpressionsAreAnded() {
    LabelSelector selector =
        LabelSelector.of(Map.of("app", "web"), List.of(new Expression("tier", Operator.In, List.of("front", "back"))));
    assertThat(selector.matches(WEB)).isTrue();
    assertThat(selector.matches(Map.of("app", "web"))).isFalse();
    assertThat(selector.matches(Map.of("app", "db", "tier", "front"))).isFalse();
  }

  @Test
  void operators() {
    assertThat(new Expression("tier", Operator.NotIn, List.of("back")).matches(WEB)).isTrue();
    assertThat(new Expression("missing", Operator.NotIn, List.of("x")).matches(WEB)).isTrue();
    assertThat(new Expression("tier", Operator.NotIn, List.of("front")).matches(WEB)).isFalse();
    assertThat(new Expression("tier", Operator.Exists, List.of()).matches(WEB)).isTrue();
    assertThat(new Expression("missing", Operator.Exists, List.of()).matches(WEB)).isFalse();
    assertThat(new Expression("missing", Operator.DoesNotExist, List.of()).matches(WEB)).isTrue();
    assertThat(new Expression("tier", Operator.DoesNotExist, List.of()).matches(WEB)).isFalse();
    assertThat(new Expression("missing", Operator.In, List.of("x")).matches(WEB)).isFalse();
  }

  @Test
  void invalidExpressionsAreRejected() {
    assertThatThrownBy(() -> new Expression("k", Operator.Gt, List.of("1"))).hasMessageContaining("Gt");
    assertThatThrownBy(() -> new Expression("k", Operator.In, List.of())).hasMessageContaining("needs values");
    assertThatThrownBy(() -> new Expression("k", Operator.Exists, List.of("a"))).hasMessageContaining("takes no values");
  }

  @Test
  void equalSelectorsAreEqual() {
    LabelSelector a = LabelSelector.of(Map.of("app", "web"), List.of(new Expression("t", Operator.In, List.of("x", "y"))));
    LabelSelector b = LabelSelector.of(Map.of("app", "web"), List.of(new Expression("t", Operator.In, List.of("y", "x"))));
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a.withLabel("pod-template-hash", "abc").matches(Map.of("app", "web", "t", "x", "pod-template-hash", "abc"))).isTrue();
    assertThat(a.withLabel("pod-template-hash", "abc").matches(Map.of("app", "web", "t", "x"))).isFalse();
    assertThat(LabelSelector.NOTHING).isNotEqualTo(LabelSelector.EVERYTHING);
  }
}
