package sh.karpenter.core.cost;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.core.cost.SmallInstance.vector;

import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;

/** The {@link BoundBudget}: aggregation of request shapes, the work and time limits, and what the bound reports. */
class LowerBoundBudgetTest {

  private static BitSet all(int n) {
    BitSet b = new BitSet();
    b.set(0, n);
    return b;
  }

  /** Pods of distinct random shapes (web to small batch), every one a class of its own. */
  private static List<DemandClass> randomShapes(int count, int candidates, long seed) {
    Random random = new Random(seed);
    List<DemandClass> classes = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Resources requests =
          Resources.builder()
              .milli(ResourceNames.CPU, 50 + random.nextInt(4000))
              .memory((64 + random.nextInt(16000)) + "Mi")
              .milli(ResourceNames.PODS, 1000)
              .build();
      classes.add(new DemandClass("pod-" + i, 1 + random.nextInt(3), requests, all(candidates)));
    }
    return classes;
  }

  private static final List<CandidateOffering> AWS = LowerBoundTest.offerings(InstanceTypeCatalog.aws().instanceTypes());

  @Test
  void theAggregatedBoundNeverExceedsTheOptimum() {
    Random random = new Random(20261123);
    int aggregated = 0;
    for (int i = 0; i < 400; i++) {
      SmallInstance instance = SmallInstance.randomShapes(random, 5 + random.nextInt(3));
      double optimum = instance.optimum();
      if (optimum == Double.POSITIVE_INFINITY) {
        continue;
      }
      for (int maxLpClasses = 4; maxLpClasses <= 5; maxLpClasses++) {
        LowerBound bound = LowerBound.compute(instance.classes(), instance.offerings(), BoundBudget.DEFAULT.withLimits(maxLpClasses, 8000));
        assertThat(bound.perHour()).as("%s for %s", bound, instance).isLessThanOrEqualTo(optimum);
        assertThat(bound.perHour()).isGreaterThanOrEqualTo(bound.simplePerHour());
        if (bound.lpClasses() > 0 && bound.lpClasses() < bound.classes()) {
          aggregated++;
          assertThat(bound.lpClasses()).isLessThanOrEqualTo(maxLpClasses);
          assertThat(bound.detail()).contains("aggregated");
        }
      }
    }
    assertThat(aggregated).as("instances solved on aggregated shapes").isGreaterThan(200);
  }

  @Test
  void aggregatingManyShapesKeepsTheBoundCloseToTheExactLp() {
    // Twice the default budget's classes, over every fourth AWS type: the exact LP stays a matter of
    // seconds (150 shapes over the whole catalog took minutes) while aggregation still has to merge.
    List<InstanceType> types = InstanceTypeCatalog.aws().instanceTypes();
    List<InstanceType> sample = new ArrayList<>();
    for (int i = 0; i < types.size(); i += 4) {
      sample.add(types.get(i));
    }
    List<CandidateOffering> offerings = LowerBoundTest.offerings(sample);
    List<DemandClass> classes = randomShapes(80, offerings.size(), 42);
    LowerBound exact = LowerBound.compute(classes, offerings, BoundBudget.DEFAULT.withLimits(1000, 1_000_000));
    LowerBound aggregated = LowerBound.compute(classes, offerings, BoundBudget.DEFAULT);

    assertThat(exact.method()).isEqualTo(LowerBound.Method.LP);
    assertThat(exact.lpClasses()).isEqualTo(exact.classes());
    assertThat(aggregated.method()).isEqualTo(LowerBound.Method.AGGREGATED_LP);
    assertThat(aggregated.lpClasses()).isLessThanOrEqualTo(BoundBudget.DEFAULT.maxLpClasses());
    assertThat(aggregated.classes()).isEqualTo(exact.classes());
    // Both are certified lower bounds; aggregation gives away little and stays far above the simple bound.
    assertThat(aggregated.perHour()).isGreaterThan(0.95 * exact.perHour());
    assertThat(aggregated.perHour()).isGreaterThan(1.15 * aggregated.simplePerHour());
    assertThat(aggregated.describe()).startsWith("LP relaxation over aggregated request shapes (").contains("solved as");
  }

  @Test
  void theExactLpReportsItselfWithoutDetail() {
    List<CandidateOffering> offerings =
        List.of(CandidateOffering.purchasable("c", 1.0, vector(8, 8, 100)), CandidateOffering.purchasable("r", 1.0, vector(2, 32, 100)));
    LowerBound bound =
        LowerBound.compute(
            List.of(new DemandClass("batch", 8, vector(1, 1, 1), all(2)), new DemandClass("cache", 8, vector(0, 4, 1), all(2))), offerings);
    assertThat(bound.method()).isEqualTo(LowerBound.Method.LP);
    assertThat(bound.detail()).isEmpty();
    assertThat(bound.describe()).isEqualTo("LP relaxation (2 classes)");
  }

  @Test
  void aSpentTimeLimitFallsBackToThePerResourceBound() {
    List<DemandClass> classes = randomShapes(30, AWS.size(), 7);
    LowerBound bound = LowerBound.compute(classes, AWS, BoundBudget.DEFAULT.withDeadline(new TestingClock(), Duration.ZERO));
    assertThat(bound.method()).isEqualTo(LowerBound.Method.PER_RESOURCE);
    assertThat(bound.perHour()).isEqualTo(bound.simplePerHour()).isPositive();
    assertThat(bound.lpPerHour()).isZero();
    assertThat(bound.lpClasses()).isZero();
    assertThat(bound.detail()).isEqualTo("LP skipped: time limit of PT0S reached");
    assertThat(bound.describe()).isEqualTo("per-resource bound (30 classes; LP skipped: time limit of PT0S reached)");
  }

  @Test
  void aClockThatStandsStillNeverCutsTheLpShort() {
    List<DemandClass> classes = randomShapes(30, AWS.size(), 7);
    LowerBound unlimited = LowerBound.compute(classes, AWS);
    LowerBound timed = LowerBound.compute(classes, AWS, BoundBudget.DEFAULT.withDeadline(new TestingClock(), Duration.ofSeconds(1)));
    assertThat(timed).isEqualTo(unlimited);
    assertThat(timed.method()).isEqualTo(LowerBound.Method.LP);
  }

  @Test
  void aDeadlinePassingBetweenRoundsKeepsTheBestRoundSoFar() {
    List<DemandClass> classes = randomShapes(30, AWS.size(), 7);
    LowerBound full = LowerBound.compute(classes, AWS);
    // Every reading of this clock moves it a second on: read at the start (deadline 1.5 s later),
    // before the LP (1 s: in time) and before the second round (2 s: past the deadline).
    LowerBound cut =
        LowerBound.compute(classes, AWS, BoundBudget.DEFAULT.withDeadline(new TestingClock().autoAdvance(Duration.ofSeconds(1)), Duration.ofMillis(1500)));
    assertThat(cut.lpSolved()).isTrue();
    assertThat(cut.detail()).startsWith("LP stopped after 1 round at the time limit of PT1.5S");
    assertThat(cut.perHour()).isGreaterThanOrEqualTo(cut.simplePerHour()).isLessThanOrEqualTo(full.perHour());
  }

  @Test
  void thePairBudgetStopsColumnGeneration() {
    List<DemandClass> classes = randomShapes(30, AWS.size(), 7);
    LowerBound skipped = LowerBound.compute(classes, AWS, BoundBudget.DEFAULT.withLimits(40, 10));
    assertThat(skipped.method()).isEqualTo(LowerBound.Method.PER_RESOURCE);
    assertThat(skipped.perHour()).isEqualTo(skipped.simplePerHour());
    assertThat(skipped.detail()).isEqualTo("LP skipped at the budget of 10 LP pairs");

    LowerBound full = LowerBound.compute(classes, AWS);
    LowerBound stopped = LowerBound.compute(classes, AWS, BoundBudget.DEFAULT.withLimits(40, 30 * 8));
    assertThat(stopped.detail()).startsWith("LP stopped after 1 round at the budget of 240 LP pairs");
    assertThat(stopped.perHour()).isGreaterThanOrEqualTo(stopped.simplePerHour()).isLessThanOrEqualTo(full.perHour());
  }

  @Test
  void tooManyCandidateSetsForTheBudgetSkipTheLp() {
    // Ten candidate sets, each needing a bucket and three remainder classes: 40 LP classes at least.
    List<DemandClass> classes = new ArrayList<>();
    for (int set = 0; set < 10; set++) {
      BitSet candidates = new BitSet();
      candidates.set(set * 10, AWS.size());
      for (DemandClass c : randomShapes(5, AWS.size(), set)) {
        classes.add(new DemandClass(c.name() + "-" + set, c.podCount(), c.requests(), candidates));
      }
    }
    LowerBound skipped = LowerBound.compute(classes, AWS, BoundBudget.DEFAULT.withLimits(39, 8000));
    assertThat(skipped.method()).isEqualTo(LowerBound.Method.PER_RESOURCE);
    assertThat(skipped.detail()).isEqualTo("LP skipped: even aggregated, the classes exceed the budget of 39 LP classes");
    assertThat(skipped.perHour()).isEqualTo(skipped.simplePerHour()).isPositive();

    LowerBound aggregated = LowerBound.compute(classes, AWS, BoundBudget.DEFAULT.withLimits(40, 8000));
    assertThat(aggregated.method()).isEqualTo(LowerBound.Method.AGGREGATED_LP);
    assertThat(aggregated.perHour()).isGreaterThan(skipped.perHour());
  }

  @Test
  void theBoundOverEveryOfferingNeverExceedsTheOptimum() {
    Random random = new Random(20261125);
    int positive = 0;
    for (int i = 0; i < 1000; i++) {
      SmallInstance instance = SmallInstance.random(random);
      double optimum = instance.optimum();
      if (optimum == Double.POSITIVE_INFINITY) {
        continue;
      }
      LowerBound bound = LowerBound.compute(instance.classes(), instance.offerings(), BoundBudget.DEFAULT.withMaxSteps(1));
      assertThat(bound.method()).isEqualTo(LowerBound.Method.PER_RESOURCE_ANY_OFFERING);
      assertThat(bound.perHour()).as("%s for %s", bound, instance).isLessThanOrEqualTo(optimum).isEqualTo(bound.simplePerHour());
      positive += bound.perHour() > 0 ? 1 : 0;
    }
    assertThat(positive).as("instances with a positive bound").isGreaterThan(200);
  }

  /** Every distinct constraint key asks every offering; the step budget caps how many are asked. */
  @Test
  void groupingPodsStaysWithinTheStepBudget() {
    List<sh.karpenter.core.pod.Pod> pods = new ArrayList<>();
    Random random = new Random(11);
    for (int i = 0; i < 1000; i++) {
      pods.add(
          sh.karpenter.core.pod.Pod.builder()
              .namespace("default")
              .name("pod-" + i)
              .container(Resources.builder().milli(ResourceNames.CPU, 100 + random.nextInt(2000)).memory((128 + random.nextInt(4000)) + "Mi").build())
              .build());
    }
    long[] asked = new long[1];
    java.util.function.BiPredicate<sh.karpenter.core.pod.Pod, Integer> mayUse = (pod, offering) -> {
      asked[0]++;
      return true;
    };
    BoundBudget budget = BoundBudget.DEFAULT.withMaxSteps(2_000_000);

    LowerBound cut = LowerBound.forPods(pods, sh.karpenter.core.pod.Pod::key, AWS, mayUse, budget);

    assertThat(asked[0]).isLessThanOrEqualTo(budget.maxSteps() / LowerBound.MAY_USE_STEPS);
    assertThat(cut.method()).isEqualTo(LowerBound.Method.PER_RESOURCE_ANY_OFFERING);
    assertThat(cut.describe())
        .isEqualTo("per-resource bound over every offering (LP skipped: the work budget of 2,000,000 steps ran out grouping 1,000 pods into classes)");
    LowerBound full = LowerBound.forPods(pods, pod -> "one key", AWS, (pod, offering) -> true);
    assertThat(cut.perHour()).isPositive().isLessThanOrEqualTo(full.perHour());
  }

  /**
   * From a budget too small to compare the classes with the offerings up to one that fits the whole
   * LP, the bound degrades step by step, says which limit it met, never exceeds the full bound, and
   * is the same on every run.
   */
  @Test
  void aShrinkingStepBudgetDegradesTheBoundGracefully() {
    List<DemandClass> classes = randomShapes(60, AWS.size(), 5);
    LowerBound full = LowerBound.compute(classes, AWS);
    java.util.Set<String> outcomes = new java.util.TreeSet<>();
    for (long steps = 1 << 12; steps <= 1L << 31; steps *= 2) {
      BoundBudget budget = BoundBudget.DEFAULT.withMaxSteps(steps);
      LowerBound bound = LowerBound.compute(classes, AWS, budget);
      assertThat(LowerBound.compute(classes, AWS, budget)).isEqualTo(bound);
      assertThat(bound.perHour()).as("%,d steps: %s", steps, bound).isPositive().isLessThanOrEqualTo(full.perHour() * (1 + 1e-9));
      if (bound.detail().contains("work budget")) {
        outcomes.add(bound.method() + (bound.detail().contains("LP stopped") ? " stopped" : ""));
      } else {
        assertThat(bound).isEqualTo(full);
        outcomes.add("full");
      }
    }
    assertThat(outcomes).contains("PER_RESOURCE_ANY_OFFERING", "PER_RESOURCE", "full").anyMatch(o -> o.endsWith(" stopped"));
  }

  @Test
  void budgetsRejectNonsense() {
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException().isThrownBy(() -> new BoundBudget(0, 10, 1, null, null));
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> new BoundBudget(10, 10, 1, new TestingClock(), null));
    org.assertj.core.api.Assertions.assertThatIllegalArgumentException()
        .isThrownBy(() -> BoundBudget.DEFAULT.withDeadline(new TestingClock(), Duration.ofSeconds(-1)));
  }
}
