package sh.karpenter.core.requirements;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.wellknown.Labels;

class RequirementsTest {
  static final List<String> NAMES =
      List.of("unconstrained", "exists", "doesNotExist", "inA", "inB", "inAB", "notInA", "notInB", "notInAB");

  static Requirements named(String name) {
    return switch (name) {
      case "unconstrained" -> Requirements.of();
      case "exists" -> Requirements.of(Requirement.exists("key"));
      case "doesNotExist" -> Requirements.of(Requirement.doesNotExist("key"));
      case "inA" -> Requirements.of(Requirement.in("key", "A"));
      case "inB" -> Requirements.of(Requirement.in("key", "B"));
      case "inAB" -> Requirements.of(Requirement.in("key", "A", "B"));
      case "notInA" -> Requirements.of(Requirement.notIn("key", "A"));
      case "notInB" -> Requirements.of(Requirement.notIn("key", "B"));
      case "notInAB" -> Requirements.of(Requirement.notIn("key", "A", "B"));
      default -> throw new IllegalArgumentException(name);
    };
  }

  /**
   * Port of upstream's Compatible matrix (requirements_test.go): row = receiver, column = incoming in
   * the order of {@link #NAMES}; 'o' compatible, 'x' not. No key is allowed undefined.
   */
  static final String COMPATIBLE =
      """
      unconstrained | o x o x x x o o o
      exists        | o o x o o o o o o
      doesNotExist  | o x o x x x o o o
      inA           | o o x o x o x o x
      inB           | o o x x o o o x x
      inAB          | o o x o o o o o x
      notInA        | o o o x o o o o o
      notInB        | o o o o x o o o o
      notInAB       | o o o x x x o o o
      """;

  static Stream<Arguments> compatibleMatrix() {
    return COMPATIBLE.lines()
        .filter(line -> !line.isBlank())
        .flatMap(
            line -> {
              String[] parts = line.split("\\|");
              String receiver = parts[0].trim();
              String[] cells = parts[1].trim().split("\\s+");
              return Stream.iterate(0, i -> i < cells.length, i -> i + 1)
                  .map(i -> Arguments.of(receiver, NAMES.get(i), cells[i].equals("o")));
            });
  }

  @ParameterizedTest(name = "{0}.compatible({1}) = {2}")
  @MethodSource("compatibleMatrix")
  void compatible(String receiver, String incoming, boolean expected) {
    Requirements r = named(receiver);
    Requirements in = named(incoming);
    assertThat(r.isCompatible(in, Set.of())).isEqualTo(expected);
    assertThat(r.compatibility(in, Set.of()) == null).isEqualTo(expected);
    // allowing the key undefined only changes the verdict for a receiver that leaves it undefined
    boolean allowed = receiver.equals("unconstrained") || expected;
    assertThat(r.isCompatible(in, Set.of("key"))).isEqualTo(allowed);
  }

  @ParameterizedTest(name = "{0}.intersects({1}) is symmetric")
  @MethodSource("compatibleMatrix")
  void intersectsIsSymmetric(String receiver, String incoming, boolean ignored) {
    assertThat(named(receiver).intersects(named(incoming))).isEqualTo(named(incoming).intersects(named(receiver)));
  }

  @Test
  void reasonsNameTheKeyAndBothSides() {
    Requirements node = Requirements.of(Requirement.in(Labels.ZONE, "zone-1"), Requirement.in(Labels.ARCH, "amd64"));
    Requirements pod = Requirements.of(Requirement.in(Labels.ZONE, "zone-2", "zone-3"), Requirement.in("team", "a"));
    assertThat(node.compatibility(pod, Labels.WELL_KNOWN))
        .isEqualTo(
            "label \"team\" does not have known values; "
                + "key topology.kubernetes.io/zone, topology.kubernetes.io/zone In [zone-2 zone-3] not in "
                + "topology.kubernetes.io/zone In [zone-1]");
  }

  @Test
  void undefinedKeyReasonHintsAtTypos() {
    Requirements node = Requirements.of(Requirement.in(Labels.ZONE, "zone-1"));
    Requirements pod = Requirements.of(Requirement.in("topology.kubernetes.io/zon", "zone-1"));
    assertThat(node.compatibility(pod, Labels.WELL_KNOWN))
        .isEqualTo("label \"topology.kubernetes.io/zon\" does not have known values (typo of \"topology.kubernetes.io/zone\"?)");
  }

  @Test
  void wellKnownLabelsMayBeUndefinedOnlyWhenAllowed() {
    Requirements template = Requirements.of(Requirement.in(Labels.CAPACITY_TYPE, "spot"));
    Requirements pod = Requirements.of(Requirement.in(Labels.ZONE, "zone-1"));
    assertThat(template.isCompatible(pod, Labels.WELL_KNOWN)).isTrue();
    assertThat(template.isStrictlyCompatible(pod)).isFalse();
  }

  @Test
  void getOfAnUndefinedKeyIsExists() {
    Requirements empty = Requirements.of();
    assertThat(empty.get("anything")).isEqualTo(Requirement.exists("anything"));
    assertThat(empty.has("anything")).isFalse();
    assertThat(empty.find("anything")).isNull();
  }

  @Test
  void addIntersectsKeyByKey() {
    Requirements r = Requirements.of(Requirement.in("k", "a", "b"));
    r.add(Requirement.notIn("k", "a")).add(Requirement.in("other", "x"));
    assertThat(r.get("k")).isEqualTo(Requirement.in("k", "b"));
    assertThat(r.keys()).containsExactly("k", "other");
    assertThat(r.labels()).isEqualTo(Map.of("k", "b", "other", "x"));
  }

  @Test
  void copiesAreIndependent() {
    Requirements original = Requirements.of(Requirement.in("k", "a", "b"));
    Requirements copy = original.copy();
    copy.add(Requirement.in("k", "a")).add(Requirement.in("z", "1"));
    original.add(Requirement.in("y", "2"));
    assertThat(original.get("k")).isEqualTo(Requirement.in("k", "a", "b"));
    assertThat(original.keys()).containsExactly("k", "y");
    assertThat(copy.keys()).containsExactly("k", "z");
    assertThat(copy.get("k")).isEqualTo(Requirement.in("k", "a"));
    Requirements copyOfCopy = copy.copy().remove("k");
    assertThat(copy.keys()).containsExactly("k", "z");
    assertThat(copyOfCopy.keys()).containsExactly("z");
  }

  @Test
  void frozenRequirementsRejectChanges() {
    Requirements frozen = Requirements.of(Requirement.in("k", "a")).frozen();
    assertThatThrownBy(() -> frozen.add(Requirement.in("k", "a"))).isInstanceOf(UnsupportedOperationException.class);
    assertThat(frozen.copy().add(Requirement.in("j", "b")).size()).isEqualTo(2);
    assertThat(frozen.size()).isEqualTo(1);
    assertThat(Requirements.EMPTY.isFrozen()).isTrue();
  }

  @Test
  void equalityIgnoresOrder() {
    Requirements a = Requirements.of(Requirement.in("x", "1"), Requirement.in("y", "2"));
    Requirements b = Requirements.of(Requirement.in("y", "2"), Requirement.in("x", "1"));
    assertThat(a).isEqualTo(b).hasSameHashCodeAs(b);
    assertThat(a).hasToString("x In [1], y In [2]");
  }

  @Test
  void largeFrozenRequirementsFindEveryKey() {
    Requirements many = new Requirements();
    for (int i = 0; i < 40; i++) {
      many.add(Requirement.in("example.com/label-" + i, String.valueOf(i)));
    }
    Requirements frozen = many.frozen();
    for (int i = 0; i < 40; i++) {
      assertThat(frozen.find("example.com/label-" + i)).isEqualTo(Requirement.in("example.com/label-" + i, String.valueOf(i)));
      assertThat(frozen.has("example.com/other-" + i)).isFalse();
    }
    Requirements derived = frozen.copy().remove("example.com/label-0").add(Requirement.in("extra", "x"));
    assertThat(derived.has("example.com/label-0")).isFalse();
    assertThat(derived.has("extra")).isTrue();
    assertThat(derived.frozen().get("example.com/label-39").any()).isEqualTo("39");
    assertThat(frozen.has("example.com/label-0")).isTrue();
    assertThat(frozen.intersects(derived)).isTrue();
  }

  @Test
  void hasMinValues() {
    assertThat(Requirements.of(Requirement.in("x", "1")).hasMinValues()).isFalse();
    assertThat(Requirements.of(Requirement.of("x", Operator.Exists, List.of(), 2)).hasMinValues()).isTrue();
  }
}
