package sh.karpenter.core.lp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;
import static org.assertj.core.api.Assertions.within;

import java.util.Random;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Variable;
import sh.karpenter.core.sweep.Seeds;

/** {@link BoundedSimplex}: examples, and a seeded sweep against ojAlgo with a duality certificate. */
class BoundedSimplexTest {
  private static final double INF = Double.POSITIVE_INFINITY;

  /**
   * max 3x + 2y, x + y <= 4, x + 3y <= 6, x <= 3: x = 3, y = 1, value 11. The vertex is degenerate
   * (three constraints meet there), so the duals are not unique; any returned must certify 11.
   */
  @Test
  void aTextbookProgram() {
    BoundedSimplex.Solution s =
        BoundedSimplex.maximise(new double[] {3, 2}, new double[][] {{1, 1}, {1, 3}}, new double[] {4, 6}, new double[] {3, INF}, 100);
    assertThat(s.optimal()).isTrue();
    assertThat(s.value()).isCloseTo(11, within(1e-9));
    assertThat(s.x()).containsExactly(new double[] {3, 1}, within(1e-9));
    Program p = new Program(new double[] {3, 2}, new double[][] {{1, 1}, {1, 3}}, new double[] {4, 6}, new double[] {3, INF});
    assertThat(dualValue(p, s.duals())).isCloseTo(11, within(1e-9));
  }

  /** The knapsack the cost post-pass asks: items bounded by their counts, one row per resource. */
  @Test
  void aFractionalKnapsackWithCounts() {
    // worth 5, 4, 3; cpu share 0.5, 0.4, 0.1; memory share 0.1, 0.2, 0.5; at most 1, 2, 3 of each
    BoundedSimplex.Solution s =
        BoundedSimplex.maximise(
            new double[] {5, 4, 3}, new double[][] {{0.5, 0.4, 0.1}, {0.1, 0.2, 0.5}}, new double[] {1, 1}, new double[] {1, 2, 3}, 100);
    assertThat(s.optimal()).isTrue();
    assertThat(s.value()).isCloseTo(ojAlgo(new double[] {5, 4, 3}, new double[][] {{0.5, 0.4, 0.1}, {0.1, 0.2, 0.5}}, new double[] {1, 1}, new double[] {1, 2, 3}), within(1e-9));
  }

  @Test
  void anUnboundedProgramIsReported() {
    BoundedSimplex.Solution s = BoundedSimplex.maximise(new double[] {1, 1}, new double[][] {{1, -1}}, new double[] {1}, new double[] {INF, INF}, 100);
    assertThat(s.status()).isEqualTo(BoundedSimplex.Status.UNBOUNDED);
  }

  @Test
  void nothingToGainLeavesTheOrigin() {
    BoundedSimplex.Solution s = BoundedSimplex.maximise(new double[] {-1, 0}, new double[][] {{1, 1}}, new double[] {2}, new double[] {INF, 5}, 100);
    assertThat(s.optimal()).isTrue();
    assertThat(s.value()).isZero();
    assertThat(s.pivots()).isZero();
  }

  @Test
  void thePivotLimitStopsWithAFeasiblePoint() {
    BoundedSimplex.Solution s =
        BoundedSimplex.maximise(new double[] {3, 2}, new double[][] {{1, 1}, {1, 3}}, new double[] {4, 6}, new double[] {3, INF}, 1);
    assertThat(s.status()).isEqualTo(BoundedSimplex.Status.PIVOT_LIMIT);
    assertThat(s.x()[0] + s.x()[1]).isLessThanOrEqualTo(4 + 1e-9);
  }

  @Test
  void badInputIsRefused() {
    assertThatThrownBy(() -> BoundedSimplex.maximise(new double[] {1}, new double[][] {{1}}, new double[] {-1}, new double[] {INF}, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("b[0]");
    assertThatThrownBy(() -> BoundedSimplex.maximise(new double[] {1}, new double[][] {{1, 2}}, new double[] {1}, new double[] {INF}, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("row 0");
    assertThatThrownBy(() -> BoundedSimplex.maximise(new double[] {1}, new double[][] {{1}}, new double[] {1}, new double[] {-2}, 10))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("upper[0]");
  }

  record Program(double[] c, double[][] a, double[] b, double[] upper) {}

  static LongStream seeds() {
    return Seeds.sweep(300);
  }

  /**
   * Random programs of the shapes the cost post-pass solves (non-negative or mixed coefficients, zero
   * right-hand sides for degeneracy, bounded and free variables, integer data for ties): the value
   * matches ojAlgo's optimum, x is feasible, and the duals certify it (weak duality with equality).
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void matchesOjAlgoAndCertifiesItsOptimum(long seed) {
    Seeds.check(seed, BoundedSimplexTest::draw, p -> {
      BoundedSimplex.Solution s = BoundedSimplex.maximise(p.c(), p.a(), p.b(), p.upper(), 10_000);
      assertThat(s.status()).isNotEqualTo(BoundedSimplex.Status.PIVOT_LIMIT);
      double expected = ojAlgo(p.c(), p.a(), p.b(), p.upper());
      if (Double.isInfinite(expected)) {
        assertThat(s.status()).isEqualTo(BoundedSimplex.Status.UNBOUNDED);
        return;
      }
      assertThat(s.status()).isEqualTo(BoundedSimplex.Status.OPTIMAL);
      double tolerance = 1e-6 * Math.max(1, Math.abs(expected));
      assertThat(s.value()).isCloseTo(expected, within(tolerance));
      for (int i = 0; i < p.b().length; i++) {
        double lhs = 0;
        for (int j = 0; j < p.c().length; j++) {
          lhs += p.a()[i][j] * s.x()[j];
        }
        assertThat(lhs).as("row %d", i).isLessThanOrEqualTo(p.b()[i] + 1e-7);
      }
      for (int j = 0; j < p.c().length; j++) {
        assertThat(s.x()[j]).isBetween(0.0, p.upper()[j]);
      }
      assertThat(dualValue(p, s.duals())).isCloseTo(s.value(), within(tolerance));
      // A pricing hint (here the optimal basis itself, then every other column) changes the path, not the optimum.
      for (boolean[] hint : new boolean[][] {s.basic(), invert(s.basic())}) {
        BoundedSimplex.Solution hinted = BoundedSimplex.maximise(p.c(), p.a(), p.b(), p.upper(), hint, 10_000);
        assertThat(hinted.status()).isEqualTo(BoundedSimplex.Status.OPTIMAL);
        assertThat(hinted.value()).isCloseTo(expected, within(tolerance));
        assertThat(dualValue(p, hinted.duals())).isCloseTo(hinted.value(), within(tolerance));
      }
    });
  }

  private static boolean[] invert(boolean[] flags) {
    boolean[] inverted = new boolean[flags.length];
    for (int j = 0; j < flags.length; j++) {
      inverted[j] = !flags[j];
    }
    return inverted;
  }

  /**
   * Given the optimal basis as a hint, the solve walks back to it in fewer pivots: on the first drawn
   * program (seeds 0, 1, ...) whose cold solve takes at least 10 pivots.
   */
  @Test
  void theOptimalBasisAsAHintTakesFewerPivots() {
    for (long seed = 0; seed < 1_000; seed++) {
      Program p = draw(new Random(seed));
      BoundedSimplex.Solution cold = BoundedSimplex.maximise(p.c(), p.a(), p.b(), p.upper(), 10_000);
      if (!cold.optimal() || cold.pivots() < 10) {
        continue;
      }
      BoundedSimplex.Solution warm = BoundedSimplex.maximise(p.c(), p.a(), p.b(), p.upper(), cold.basic(), 10_000);
      assertThat(warm.value()).as("seed %d", seed).isCloseTo(cold.value(), within(1e-9 * Math.max(1, Math.abs(cold.value()))));
      assertThat(warm.pivots()).as("seed %d", seed).isLessThan(cold.pivots());
      return;
    }
    fail("no program of seeds 0-999 took 10 pivots: the test proves nothing about hints");
  }

  /** The dual objective of multipliers y >= 0: b·y + sum_j upper_j max(0, c_j - y·A_j), infinite when a free column gains. */
  private static double dualValue(Program p, double[] y) {
    double total = 0;
    for (int i = 0; i < y.length; i++) {
      total += p.b()[i] * y[i];
    }
    for (int j = 0; j < p.c().length; j++) {
      double reduced = p.c()[j];
      for (int i = 0; i < y.length; i++) {
        reduced -= y[i] * p.a()[i][j];
      }
      if (reduced > 1e-9) {
        total += p.upper()[j] == INF ? INF : p.upper()[j] * reduced;
      }
    }
    return total;
  }

  static Program draw(Random random) {
    boolean large = random.nextInt(5) == 0;
    int m = Seeds.between(random, 1, large ? 40 : 12);
    int n = Seeds.between(random, 1, large ? 80 : 25);
    boolean mixed = random.nextInt(4) == 0;
    boolean integers = random.nextBoolean();
    double[] c = new double[n];
    double[] upper = new double[n];
    double[][] a = new double[m][n];
    double[] b = new double[m];
    for (int j = 0; j < n; j++) {
      c[j] = value(random, integers) * (random.nextInt(6) == 0 ? -1 : 1);
      upper[j] = random.nextInt(3) == 0 ? INF : Seeds.between(random, 0, 6);
    }
    for (int i = 0; i < m; i++) {
      b[i] = random.nextInt(4) == 0 ? 0 : value(random, integers) * 3;
      for (int j = 0; j < n; j++) {
        if (random.nextInt(3) > 0) {
          a[i][j] = value(random, integers) * (mixed && random.nextInt(3) == 0 ? -1 : 1);
        }
      }
    }
    return new Program(c, a, b, upper);
  }

  private static double value(Random random, boolean integers) {
    return integers ? Seeds.between(random, 1, 5) : 0.01 + random.nextDouble() * 4;
  }

  /** ojAlgo's optimum, or +infinity when it finds the program unbounded. */
  private static double ojAlgo(double[] c, double[][] a, double[] b, double[] upper) {
    ExpressionsBasedModel model = LinearModels.newModel();
    Variable[] x = new Variable[c.length];
    for (int j = 0; j < c.length; j++) {
      x[j] = model.newVariable("x" + j).lower(0).weight(c[j]);
      if (upper[j] != INF) {
        x[j].upper(upper[j]);
      }
    }
    for (int i = 0; i < b.length; i++) {
      Expression row = model.newExpression("r" + i).upper(b[i]);
      for (int j = 0; j < c.length; j++) {
        if (a[i][j] != 0) {
          row.set(x[j], a[i][j]);
        }
      }
    }
    Optimisation.Result result = model.maximise();
    if (result.getState() == Optimisation.State.UNBOUNDED) {
      return INF;
    }
    assertThat(result.getState().isOptimal()).as("ojAlgo: %s", result.getState()).isTrue();
    return result.getValue();
  }
}
