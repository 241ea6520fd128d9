package sh.karpenter.core.cost;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.core.sweep.Seeds;

/** The bound never exceeds the optimum of small instances solved by enumeration. */
class LowerBoundPropertiesTest {

  static LongStream seeds() {
    return Seeds.sweep(300);
  }

  /** One instance per seed: a failure names the seed and the instance. */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void neverExceedsTheOptimum(long seed) {
    Seeds.check(seed, SmallInstance::random, LowerBoundPropertiesTest::checkBelowOptimum);
  }

  /** The same check over 1000 instances drawn in turn from one generator. */
  @Test
  void neverExceedsTheOptimumOnAFixedSweep() {
    Random random = new Random(20260823);
    for (int i = 0; i < 1000; i++) {
      checkBelowOptimum(SmallInstance.random(random));
    }
  }

  /**
   * Pods in identical copies make classes of several pods, where the fit cuts matter most: the
   * bound with them must still never exceed the optimum.
   */
  @Test
  void neverExceedsTheOptimumWithClassesOfSeveralPods() {
    Random random = new Random(20261123);
    for (int i = 0; i < 1000; i++) {
      checkBelowOptimum(SmallInstance.randomCopies(random));
    }
  }

  private static void checkBelowOptimum(SmallInstance instance) {
    double optimum = instance.optimum();
    LowerBound bound = LowerBound.compute(instance.classes(), instance.offerings());
    if (optimum == Double.POSITIVE_INFINITY) {
      return; // some pod fits nowhere: no plan exists to compare with
    }
    assertTrue(bound.perHour() <= optimum, () -> bound + " > optimum " + optimum + " for " + instance);
    assertTrue(bound.lpSolved(), () -> "LP not solved for " + instance);
    assertTrue(
        bound.lpPerHour() >= bound.simplePerHour() * (1 - 1e-6), () -> "LP below the simple bound: " + bound);
  }
}
