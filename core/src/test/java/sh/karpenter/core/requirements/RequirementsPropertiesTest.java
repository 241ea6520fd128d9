package sh.karpenter.core.requirements;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.sweep.Seeds;

/**
 * Copy-on-write {@link Requirements} behave like independent maps of key to intersected requirement,
 * over a seeded sweep of step sequences.
 */
class RequirementsPropertiesTest {
  /** Enough keys to cross the size at which frozen requirements get a hash index. */
  static final List<String> KEYS = List.of("k0", "k1", "k2", "k3", "k4", "k5", "k6", "k7", "k8", "k9", "k10", "k11");

  sealed interface Step permits Add, Remove, Fork, Freeze {}

  record Add(Requirement requirement) implements Step {}

  record Remove(String key) implements Step {}

  /** Continue on a copy; the original must not change afterwards. */
  record Fork() implements Step {}

  /** Continue on a copy of a frozen copy. */
  record Freeze() implements Step {}

  static LongStream seeds() {
    return Seeds.sweep(1000);
  }

  /** Up to 40 steps: adds, removes, forks and freezes in the ratio 6:1:2:1. */
  static List<Step> steps(Random random) {
    return Seeds.listOf(random, 0, 40, RequirementsPropertiesTest::step);
  }

  private static Step step(Random random) {
    int pick = random.nextInt(10);
    if (pick < 6) {
      String key = Seeds.oneOf(random, KEYS);
      String[] values = Seeds.listOf(random, 1, 3, r -> Seeds.oneOf(r, "a", "b", "c")).toArray(String[]::new);
      return new Add(random.nextBoolean() ? Requirement.notIn(key, values) : Requirement.in(key, values));
    }
    if (pick < 7) {
      return new Remove(Seeds.oneOf(random, KEYS));
    }
    return pick < 9 ? new Fork() : new Freeze();
  }

  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void copiesBehaveLikeIndependentMaps(long seed) {
    Seeds.check(seed, RequirementsPropertiesTest::steps, RequirementsPropertiesTest::copiesBehaveLikeIndependentMaps);
  }

  private static void copiesBehaveLikeIndependentMaps(List<Step> steps) {
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
