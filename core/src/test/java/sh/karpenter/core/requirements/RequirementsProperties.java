package sh.karpenter.core.requirements;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Copy-on-write {@link Requirements} behave like independent maps of key to intersected requirement. */
class RequirementsProperties {
  /** Enough keys to cross the size at which frozen requirements get a hash index. */
  static final List<String> KEYS = List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11");

  sealed interface Step permits Add, Remove, Fork, Freeze {}

  record Add(Requirement requirement) implements Step {}

  record Remove(String key) implements Step {}

  /** Continue on a copy; the original must not change afterwards. */
  record Fork() implements Step {}

  /** Continue on a copy of a frozen copy. */
  record Freeze() implements Step {}

  @Provide
  Arbitrary<List<Step>> steps() {
    Arbitrary<Step> add =
        Combinators.combine(Arbitraries.of(KEYS), Arbitraries.of("a", "b", "c").list().ofMinSize(1).ofMaxSize(3), Arbitraries.of(true, false))
            .as((key, values, negative) -> new Add(negative ? Requirement.notIn(key, values.toArray(String[]::new)) : Requirement.in(key, values.toArray(String[]::new))));
    Arbitrary<Step> remove = Arbitraries.of(KEYS).map(Remove::new);
    return Arbitraries.frequencyOf(
            net.jqwik.api.Tuple.of(6, add), net.jqwik.api.Tuple.of(1, remove), net.jqwik.api.Tuple.of(2, Arbitraries.just(new Fork())), net.jqwik.api.Tuple.of(1, Arbitraries.just(new Freeze())))
        .list()
        .ofMaxSize(40);
  }

  @Property(seed = "20261123")
  void copiesBehaveLikeIndependentMaps(@ForAll("steps") List<Step> steps) {
    Requirements current = new Requirements();
    Map<String, Requirement> model = new LinkedHashMap<>();
    List<Requirements> snapshots = new ArrayList<>();
    List<Map<String, Requirement>> snapshotModels = new ArrayList<>();
    for (Step step : steps) {
      switch (step) {
        case Add add -> {
          current.add(add.requirement());
          model.merge(add.requirement().key(), add.requirement(), (old, incoming) -> incoming.intersection(old));
        }
        case Remove remove -> {
          current.remove(remove.key());
          model.remove(remove.key());
        }
        case Fork fork -> {
          snapshots.add(current);
          snapshotModels.add(new LinkedHashMap<>(model));
          current = current.copy();
        }
        case Freeze freeze -> {
          Requirements frozen = current.frozen();
          snapshots.add(frozen);
          snapshotModels.add(new LinkedHashMap<>(model));
          current = frozen.copy();
        }
      }
      assertMatches(current, model);
    }
    for (int i = 0; i < snapshots.size(); i++) {
      assertMatches(snapshots.get(i), snapshotModels.get(i));
    }
  }

  private static void assertMatches(Requirements requirements, Map<String, Requirement> model) {
    assertThat(requirements.keys()).containsExactlyElementsOf(model.keySet());
    for (String key : KEYS) {
      assertThat(requirements.find(key)).isEqualTo(model.get(key));
    }
  }
}
