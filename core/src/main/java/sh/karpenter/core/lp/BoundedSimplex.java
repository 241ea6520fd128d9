package sh.karpenter.core.lp;

import java.util.Arrays;

/**
 * A dense primal simplex for the linear programs of the cost post-pass (small ones, many times over)
 * and of the lower bound's column generation (a few hundred rows, one per round):
 *
 * <pre>
 *   maximise   c·x
 *   subject to A x <= b        (b >= 0)
 *              0 <= x <= upper (an upper bound may be +infinity)
 * </pre>
 *
 * <p>With {@code b >= 0} the origin is feasible, so one phase from the slack basis suffices; an
 * upper bound is kept by the bounded-variable method (a variable at its bound is flipped, not given a
 * row). The tableau holds {@code B^-1 [A I]}, so the duals of the rows are read off the slack
 * columns at the end. Pivots follow Dantzig's rule (largest reduced cost) and fall back to Bland's
 * (smallest index, in the ratio test too) after a run of degenerate pivots, which rules out cycling.
 *
 * <p>It exists because ojAlgo's general model (named variables and expressions, a presolve in
 * {@code BigDecimal}) costs far more than the arithmetic on programs of a few rows, and because a
 * plan runs once in a fresh JVM, where small code is compiled sooner. Thread-safe: every call works
 * on its own arrays.
 */
public final class BoundedSimplex {
  /** How a solve ended. */
  public enum Status {
    OPTIMAL,
    UNBOUNDED,
    /** More pivots than the limit allowed: the solution is feasible but not proven optimal. */
    PIVOT_LIMIT
  }

  /**
   * @param value c·x
   * @param x the solution (feasible whatever the status)
   * @param duals a multiplier per row, {@code >= 0}: with {@code OPTIMAL}, {@code b·duals +
   *     sum_j upper_j * max(0, c_j - duals·A_j)} equals {@code value} (up to rounding)
   * @param basic which of the n variables are basic at the end (a hint for a later, similar solve)
   */
  public record Solution(Status status, double value, double[] x, double[] duals, boolean[] basic, int pivots) {
    public boolean optimal() {
      return status == Status.OPTIMAL;
    }
  }

  /** Tolerance on reduced costs and on the values of basic variables. */
  private static final double EPSILON = 1e-9;
  /** Smallest pivot element accepted in the ratio test. */
  private static final double PIVOT_EPSILON = 1e-9;
  /** Degenerate pivots in a row after which Bland's rule takes over until one makes progress. */
  private static final int DEGENERATE_RUN = 25;
  /** Relative (and absolute) slack within which two ratios of the ratio test count as tied. */
  private static final double RATIO_TOLERANCE = 1e-12;

  private BoundedSimplex() {}

  /**
   * Solves the program. {@code a} is row-major ({@code a[i][j]}), {@code upper} may hold {@code
   * Double.POSITIVE_INFINITY}; {@code maxPivots} bounds the work (bound flips count too).
   *
   * @throws IllegalArgumentException on mismatched sizes, a negative or non-finite {@code b}, or a
   *     negative upper bound
   */
  public static Solution maximise(double[] c, double[][] a, double[] b, double[] upper, int maxPivots) {
    return maximise(c, a, b, upper, null, maxPivots);
  }

  /**
   * As {@link #maximise(double[], double[][], double[], double[], int)}, with a pricing hint: while
   * a {@code preferred} variable can improve the objective, the best of those enters first. Column
   * generation passes the previous round's basic variables, so a round starts by walking back to
   * the last optimum instead of searching for it again among every column.
   */
  public static Solution maximise(double[] c, double[][] a, double[] b, double[] upper, boolean[] preferred, int maxPivots) {
    int m = b.length;
    int n = c.length;
    if (a.length != m || upper.length != n) {
      throw new IllegalArgumentException("sizes: c " + n + ", a " + a.length + " rows, b " + m + ", upper " + upper.length);
    }
    for (int i = 0; i < m; i++) {
      if (a[i].length != n) {
        throw new IllegalArgumentException("row " + i + " has " + a[i].length + " columns, expected " + n);
      }
      if (!(b[i] >= 0) || Double.isInfinite(b[i])) {
        throw new IllegalArgumentException("b[" + i + "] = " + b[i] + ": must be finite and >= 0");
      }
    }
    for (int j = 0; j < n; j++) {
      if (!(upper[j] >= 0)) {
        throw new IllegalArgumentException("upper[" + j + "] = " + upper[j] + ": must be >= 0");
      }
    }
    if (preferred != null && preferred.length != n) {
      throw new IllegalArgumentException("preferred has " + preferred.length + " entries, expected " + n);
    }
    return new Run(c, a, b, upper, preferred).solve(maxPivots);
  }

  private static final class Run {
    private final int m;
    private final int n;
    private final int width;
    /** B^-1 [A I], row-major. */
    private final double[][] tableau;
    /** Current values of the basic variables. */
    private final double[] beta;
    /** Reduced costs c_j - c_B B^-1 a_j of every column (0 for basic ones). */
    private final double[] reduced;
    private final double[] bound;
    private final double[] cost;
    private final int[] basis;
    /** Row of a basic column, else -1. */
    private final int[] rowOf;
    private final boolean[] atUpper;
    /** Columns priced first, or null. */
    private final boolean[] preferred;
    /** The ratio test's limit per row, for the pivot being chosen. */
    private final double[] limits;
    /** The pivot row's nonzero columns, for the pivot being made. */
    private final int[] nonzero;

    Run(double[] c, double[][] a, double[] b, double[] upper, boolean[] preferred) {
      this.preferred = preferred;
      this.limits = new double[b.length];
      m = b.length;
      n = c.length;
      width = n + m;
      nonzero = new int[width];
      tableau = new double[m][width];
      for (int i = 0; i < m; i++) {
        System.arraycopy(a[i], 0, tableau[i], 0, n);
        tableau[i][n + i] = 1;
      }
      beta = b.clone();
      reduced = new double[width];
      cost = new double[width];
      System.arraycopy(c, 0, cost, 0, n);
      System.arraycopy(c, 0, reduced, 0, n);
      bound = new double[width];
      System.arraycopy(upper, 0, bound, 0, n);
      Arrays.fill(bound, n, width, Double.POSITIVE_INFINITY);
      basis = new int[m];
      rowOf = new int[width];
      Arrays.fill(rowOf, -1);
      for (int i = 0; i < m; i++) {
        basis[i] = n + i;
        rowOf[n + i] = i;
      }
      atUpper = new boolean[width];
    }

    Solution solve(int maxPivots) {
      int pivots = 0;
      int degenerate = 0;
      Status status = Status.OPTIMAL;
      while (true) {
        boolean bland = degenerate >= DEGENERATE_RUN;
        int q = entering(bland);
        if (q < 0) {
          break;
        }
        if (pivots >= maxPivots) {
          status = Status.PIVOT_LIMIT;
          break;
        }
        pivots++;
        double direction = atUpper[q] ? -1 : 1;
        // Basic variable i moves by -alpha_i * direction * t as x_q moves by direction * t. First the
        // longest step no basic variable forbids, then, among the rows that allow at most that (up to
        // rounding), the one to leave: the smallest variable under Bland's rule (ties broken exactly
        // as the rule needs, which an exact comparison of rounded ratios would not), else the largest
        // pivot element, for stability.
        double step = Double.POSITIVE_INFINITY;
        for (int i = 0; i < m; i++) {
          limits[i] = limit(i, q, direction);
          step = Math.min(step, limits[i]);
        }
        int leaving = -1;
        if (step != Double.POSITIVE_INFINITY) {
          double tolerance = step * RATIO_TOLERANCE + RATIO_TOLERANCE;
          double bestPivot = 0;
          for (int i = 0; i < m; i++) {
            if (limits[i] <= step + tolerance) {
              double size = Math.abs(tableau[i][q]);
              if (leaving < 0 || (bland ? basis[i] < basis[leaving] : size > bestPivot)) {
                leaving = i;
                bestPivot = size;
              }
            }
          }
        }
        if (bound[q] <= step) {
          step = bound[q];
          leaving = -1;
        }
        if (step == Double.POSITIVE_INFINITY) {
          status = Status.UNBOUNDED;
          break;
        }
        degenerate = step <= EPSILON ? degenerate + 1 : 0;
        for (int i = 0; i < m; i++) {
          beta[i] -= tableau[i][q] * direction * step;
        }
        if (leaving < 0) {
          atUpper[q] = !atUpper[q]; // the entering variable reached its other bound first: no pivot
          continue;
        }
        double enteringValue = (atUpper[q] ? bound[q] : 0) + direction * step;
        int out = basis[leaving];
        atUpper[out] = -tableau[leaving][q] * direction > 0; // it rose to its upper bound
        pivot(leaving, q);
        beta[leaving] = enteringValue;
        atUpper[q] = false;
      }
      return solution(status, pivots);
    }

    /**
     * How far x_q may move (in {@code direction}) before basic variable i reaches a bound; infinity
     * when i does not limit it.
     */
    private double limit(int i, int q, double direction) {
      double delta = -tableau[i][q] * direction;
      if (delta < -PIVOT_EPSILON) {
        return Math.max(0, beta[i]) / -delta;
      }
      if (delta > PIVOT_EPSILON && bound[basis[i]] != Double.POSITIVE_INFINITY) {
        return Math.max(0, bound[basis[i]] - beta[i]) / delta;
      }
      return Double.POSITIVE_INFINITY;
    }

    /**
     * The entering column, or -1 when no reduced cost improves the objective: the first improving
     * one under Bland's rule, else the one improving most, a preferred one when any improves.
     */
    private int entering(boolean bland) {
      int best = -1;
      double bestScore = EPSILON;
      boolean bestPreferred = false;
      for (int j = 0; j < width; j++) {
        if (rowOf[j] >= 0) {
          continue;
        }
        double score = atUpper[j] ? -reduced[j] : bound[j] > 0 ? reduced[j] : 0;
        if (score <= EPSILON) {
          continue;
        }
        if (bland) {
          return j;
        }
        boolean isPreferred = preferred != null && j < n && preferred[j];
        if ((isPreferred && !bestPreferred) || (isPreferred == bestPreferred && score > bestScore)) {
          best = j;
          bestScore = score;
          bestPreferred = isPreferred;
        }
      }
      return best;
    }

    /**
     * Pivots on row r, column q. The pivot row is mostly zeros (a column's classes, and the slacks of
     * the rows pivoted on so far), so the other rows are updated only at its nonzero columns: the
     * same values as a full sweep, which would subtract zeros.
     */
    private void pivot(int r, int q) {
      double[] pivotRow = tableau[r];
      double scale = 1 / pivotRow[q];
      int nonzeros = 0;
      for (int j = 0; j < width; j++) {
        if (pivotRow[j] != 0) {
          pivotRow[j] *= scale;
          nonzero[nonzeros++] = j;
        }
      }
      pivotRow[q] = 1;
      for (int i = 0; i < m; i++) {
        if (i == r) {
          continue;
        }
        double[] row = tableau[i];
        double factor = row[q];
        if (factor != 0) {
          for (int k = 0; k < nonzeros; k++) {
            int j = nonzero[k];
            row[j] -= factor * pivotRow[j];
          }
          row[q] = 0;
        }
      }
      double factor = reduced[q];
      for (int k = 0; k < nonzeros; k++) {
        int j = nonzero[k];
        reduced[j] -= factor * pivotRow[j];
      }
      reduced[q] = 0;
      rowOf[basis[r]] = -1;
      basis[r] = q;
      rowOf[q] = r;
    }

    private Solution solution(Status status, int pivots) {
      double[] x = new double[n];
      for (int j = 0; j < n; j++) {
        x[j] = rowOf[j] >= 0 ? beta[rowOf[j]] : atUpper[j] ? bound[j] : 0;
        x[j] = Math.min(Math.max(x[j], 0), bound[j]);
      }
      double value = 0;
      for (int j = 0; j < n; j++) {
        value += cost[j] * x[j];
      }
      double[] duals = new double[m];
      for (int i = 0; i < m; i++) {
        duals[i] = Math.max(0, -reduced[n + i]);
      }
      boolean[] basic = new boolean[n];
      for (int j = 0; j < n; j++) {
        basic[j] = rowOf[j] >= 0;
      }
      return new Solution(status, value, x, duals, basic, pivots);
    }
  }
}
