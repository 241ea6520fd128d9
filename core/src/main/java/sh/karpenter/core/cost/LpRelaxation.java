package sh.karpenter.core.cost;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Variable;
import sh.karpenter.core.resources.Resources;

/**
 * Computes a {@link LowerBound}: reduces the fractional-fleet LP, solves its dual with ojAlgo and
 * turns the solver's answer into a certified bound.
 *
 * <p><b>Why the dual.</b> The primal LP (see {@link LowerBound}) has the dual
 *
 * <pre>
 *   maximise   sum_c u_c - sum_{o bounded} maxCount_o * v_o
 *   subject to u_c <= podCount_c * (requests_c . w_o)   for every class c and offering o it may use
 *              alloc_o . w_o - v_o <= price_o            for every offering o (v_o = 0 when unbounded)
 *              w >= 0, v >= 0
 * </pre>
 *
 * where {@code w_or} reads as a price per unit of resource r on offering o. By weak duality
 * <em>any</em> feasible (w, v, u) gives a lower bound, optimal or not. So the solver's w is only a
 * hint: it is clipped to {@code >= 0}, scaled down per offering until the price constraint holds,
 * and u and v are then recomputed from it exactly ({@code u_c} = the least {@code podCount_c *
 * requests_c . w_o} over c's offerings, {@code v_o} = the excess of {@code alloc_o . w_o} over the
 * price). The resulting objective is valid whatever the solver's tolerances did. What is left is
 * round-off in that final evaluation (sums of products of non-negative doubles, relative error far
 * below 1e-12), which {@link #ROUNDING_MARGIN} covers with a wide margin.
 *
 * <p>Because only w comes from the solver, the LP may be solved on a coarser model than the one
 * certified: beyond {@link #MAX_LP_CLASSES} classes, classes with the same offerings and similar
 * requests are merged for the solve, while the certificate still charges every class at its exact
 * requests. The LP is solved by column generation ({@link ColumnGeneration}).
 *
 * <p><b>Reductions</b>, each exact (the reduced LP has the same optimum):
 *
 * <ul>
 *   <li>classes with the same requests and candidates merge; only requested resources are modelled;
 *   <li>a class may not use an offering its pods do not fit (no integral plan does);
 *   <li>offerings no class may use are dropped;
 *   <li>an offering is dropped when an unbounded offering at most as expensive, with at least its
 *       allocatable in every modelled resource, is usable by every class that could use it (a
 *       dropped offering takes its dominator's w). So only the cheapest zone and capacity type of
 *       each instance type survive for a given set of classes, and larger-and-cheaper types
 *       eliminate smaller ones.
 * </ul>
 *
 * Resources are rescaled by the total demand, so every coefficient is in a sane range whether the
 * unit is a pod or a milli-byte.
 */
final class LpRelaxation {
  /** Relative safety margin taken off the certified value. */
  static final double ROUNDING_MARGIN = 1e-9;

  private final List<CandidateOffering> offerings;
  /** Resource indices some class requests. */
  private final int[] dims;
  /** Total demand per modelled resource: the unit of the scaled figures. */
  private final double[] scale;

  // Placeable classes, merged: per-pod scaled requests, pod count, offering group.
  private final List<Resources> requests = new ArrayList<>();
  private final List<double[]> perPod = new ArrayList<>();
  private final List<Long> podCounts = new ArrayList<>();
  private final List<Integer> groupOf = new ArrayList<>();
  private int unplaceableClasses;

  /** Distinct sets of usable offerings (indices into {@link #offerings}); classes share them. */
  private final List<BitSet> groups = new ArrayList<>();
  /** Offerings left after pruning. */
  private final List<Kept> kept;
  /** Per group, indices into {@link #kept} of the offerings it may use. */
  private final int[][] keptOfGroup;

  private record Kept(CandidateOffering offering, double[] allocatable, BitSet groups) {
    double price() {
      return offering.price();
    }
  }

  LpRelaxation(List<DemandClass> classes, List<CandidateOffering> offerings) {
    this.offerings = offerings;
    Map<Resources, Map<BitSet, Long>> merged = new LinkedHashMap<>();
    for (DemandClass c : classes) {
      if (c.podCount() > 0 && !c.requests().isZero()) {
        merged.computeIfAbsent(c.requests(), r -> new LinkedHashMap<>()).merge(c.candidates(), (long) c.podCount(), Long::sum);
      }
    }
    int resourceCount = 0;
    for (Resources r : merged.keySet()) {
      resourceCount = Math.max(resourceCount, r.dimensions());
    }
    double[] total = new double[resourceCount];
    merged.forEach(
        (r, byCandidates) -> {
          long pods = byCandidates.values().stream().mapToLong(Long::longValue).sum();
          for (int i = 0; i < r.dimensions(); i++) {
            total[i] += (double) r.milli(i) * pods;
          }
        });
    this.dims = IntStream.range(0, resourceCount).filter(r -> total[r] > 0).toArray();
    this.scale = Arrays.stream(dims).mapToDouble(r -> total[r]).toArray();

    // Fit is decided per distinct allocatable, so 50,000 pod shapes do not each sweep every offering.
    Map<Resources, Integer> allocatableIds = new HashMap<>();
    List<Resources> distinctAllocatable = new ArrayList<>();
    int[] allocatableOf = new int[offerings.size()];
    for (int o = 0; o < offerings.size(); o++) {
      Resources allocatable = offerings.get(o).allocatable();
      allocatableOf[o] =
          allocatableIds.computeIfAbsent(
              allocatable,
              a -> {
                distinctAllocatable.add(a);
                return distinctAllocatable.size() - 1;
              });
    }
    record UsableKey(BitSet candidates, BitSet fits) {}
    Map<UsableKey, BitSet> usableByKey = new HashMap<>();
    Map<BitSet, Integer> groupIndex = new HashMap<>();
    merged.forEach(
        (r, byCandidates) -> {
          BitSet fits = new BitSet(distinctAllocatable.size());
          for (int a = 0; a < distinctAllocatable.size(); a++) {
            if (r.fits(distinctAllocatable.get(a))) {
              fits.set(a);
            }
          }
          byCandidates.forEach(
              (candidates, pods) -> {
                BitSet usable =
                    usableByKey.computeIfAbsent(
                        new UsableKey(candidates, fits),
                        key -> {
                          BitSet u = new BitSet();
                          for (int o = candidates.nextSetBit(0); o >= 0 && o < offerings.size(); o = candidates.nextSetBit(o + 1)) {
                            if (offerings.get(o).maxCount() > 0 && fits.get(allocatableOf[o])) {
                              u.set(o);
                            }
                          }
                          return u;
                        });
                if (usable.isEmpty()) {
                  unplaceableClasses++;
                  return;
                }
                requests.add(r);
                perPod.add(scaled(r));
                podCounts.add(pods);
                groupOf.add(
                    groupIndex.computeIfAbsent(
                        usable,
                        u -> {
                          groups.add(u);
                          return groups.size() - 1;
                        }));
              });
        });
    this.kept = prune();
    this.keptOfGroup = new int[groups.size()][];
    for (int g = 0; g < groups.size(); g++) {
      int group = g;
      keptOfGroup[g] = IntStream.range(0, kept.size()).filter(k -> kept.get(k).groups.get(group)).toArray();
    }
  }

  private double[] scaled(Resources r) {
    double[] s = new double[dims.length];
    for (int i = 0; i < dims.length; i++) {
      s[i] = Math.max(0, r.milli(dims[i])) / scale[i];
    }
    return s;
  }

  /** Drops offerings no class uses and offerings dominated by a cheaper, larger, unbounded one. */
  private List<Kept> prune() {
    BitSet[] groupsOf = new BitSet[offerings.size()];
    for (int g = 0; g < groups.size(); g++) {
      BitSet usable = groups.get(g);
      for (int o = usable.nextSetBit(0); o >= 0; o = usable.nextSetBit(o + 1)) {
        if (groupsOf[o] == null) {
          groupsOf[o] = new BitSet(groups.size());
        }
        groupsOf[o].set(g);
      }
    }
    double[][] allocatable = new double[offerings.size()][];
    Integer[] order =
        IntStream.range(0, offerings.size()).filter(o -> groupsOf[o] != null).boxed().toArray(Integer[]::new);
    for (int o : order) {
      allocatable[o] = scaled(offerings.get(o).allocatable());
    }
    // Cheapest first; at equal price unbounded first (only they dominate), then larger first.
    Arrays.sort(
        order,
        Comparator.<Integer>comparingDouble(o -> offerings.get(o).price())
            .thenComparing(o -> offerings.get(o).bounded())
            .thenComparing(o -> -Arrays.stream(allocatable[o]).sum()));
    List<Kept> result = new ArrayList<>();
    for (int o : order) {
      CandidateOffering offering = offerings.get(o);
      boolean dominated = false;
      for (Kept k : result) {
        if (!k.offering.bounded()
            && k.price() <= offering.price()
            && atLeast(k.allocatable, allocatable[o])
            && contains(k.groups, groupsOf[o])) {
          dominated = true;
          break;
        }
      }
      if (!dominated) {
        result.add(new Kept(offering, allocatable[o], groupsOf[o]));
      }
    }
    return result;
  }

  private static boolean atLeast(double[] a, double[] b) {
    for (int i = 0; i < a.length; i++) {
      if (a[i] < b[i]) {
        return false;
      }
    }
    return true;
  }

  private static boolean contains(BitSet superset, BitSet subset) {
    for (int g = subset.nextSetBit(0); g >= 0; g = subset.nextSetBit(g + 1)) {
      if (!superset.get(g)) {
        return false;
      }
    }
    return true;
  }

  LowerBound solve() {
    if (requests.isEmpty()) {
      return new LowerBound(0, 0, 0, 0, unplaceableClasses, 0, true);
    }
    double simple = 0;
    for (int i = 0; i < dims.length; i++) {
      simple = Math.max(simple, certify(singleResourcePrices(i)));
    }
    ColumnGeneration lp = new ColumnGeneration(lpClasses());
    double certified = lp.run();
    return new LowerBound(
        Math.max(certified, simple), certified, simple, requests.size(), unplaceableClasses, kept.size(), lp.solved);
  }

  /** Prices charging everything to resource {@code i}: w_o = price_o / alloc_o,i. */
  private double[][] singleResourcePrices(int i) {
    double[][] w = new double[kept.size()][dims.length];
    for (int k = 0; k < kept.size(); k++) {
      Kept o = kept.get(k);
      if (!o.offering.bounded() && o.allocatable[i] > 0) {
        w[k][i] = o.price() / o.allocatable[i];
      }
    }
    return w;
  }

  /**
   * The dual objective of the repaired price vectors {@code w} (modified in place), less the
   * rounding margin: a valid lower bound whatever {@code w} holds.
   */
  double certify(double[][] w) {
    double total = 0;
    double magnitude = 0;
    for (int k = 0; k < kept.size(); k++) {
      Kept o = kept.get(k);
      double spent = 0;
      for (int i = 0; i < dims.length; i++) {
        if (!(w[k][i] > 0) || Double.isInfinite(w[k][i])) {
          w[k][i] = 0;
        }
        spent += o.allocatable[i] * w[k][i];
      }
      if (o.offering.bounded()) {
        double excess = Math.max(0, spent - o.price()) * o.offering.maxCount();
        total -= excess;
        magnitude += excess;
      } else if (spent > o.price()) {
        double factor = o.price() / spent;
        for (int i = 0; i < dims.length; i++) {
          w[k][i] *= factor;
        }
      }
    }
    for (int c = 0; c < perPod.size(); c++) {
      double least = Double.POSITIVE_INFINITY;
      for (int k : keptOfGroup[groupOf.get(c)]) {
        least = Math.min(least, dot(perPod.get(c), w[k]));
      }
      double charge = least * podCounts.get(c);
      total += charge;
      magnitude += charge;
    }
    return Math.max(0, total - ROUNDING_MARGIN * magnitude);
  }

  private static double dot(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  /** A class as the LP sees it: a group of usable offerings and a scaled total demand. */
  private record LpClass(int group, double[] demand) {}

  /**
   * The classes the LP is solved on: the exact classes when there are at most {@link
   * #MAX_LP_CLASSES}, else classes of one group merged by the bucket of their requests in every
   * resource, buckets doubling in width until few enough remain (or one per group is left).
   */
  private List<LpClass> lpClasses() {
    for (double step = 0; ; step = step == 0 ? 0.5 : step * 2) {
      Map<List<Long>, LpClass> byKey = new LinkedHashMap<>();
      for (int c = 0; c < perPod.size(); c++) {
        List<Long> key = new ArrayList<>(dims.length + 1);
        key.add((long) groupOf.get(c));
        if (step == 0) {
          key.add((long) c);
        } else if (step < 64) {
          for (int dim : dims) {
            long milli = requests.get(c).milli(dim);
            key.add(milli <= 0 ? Long.MIN_VALUE : (long) Math.floor(Math.log(milli) / Math.log(2) / step));
          }
        }
        double[] demand = byKey.computeIfAbsent(key, k -> new LpClass((int) (long) k.get(0), new double[dims.length])).demand();
        for (int i = 0; i < dims.length; i++) {
          demand[i] += perPod.get(c)[i] * podCounts.get(c);
        }
      }
      if (byKey.size() <= MAX_LP_CLASSES || step >= 64) {
        return new ArrayList<>(byKey.values());
      }
    }
  }

  /** Above this many classes the LP is solved on merged classes (the certificate stays exact). */
  static final int MAX_LP_CLASSES = 40;

  /** Pairs each class starts with: its cheapest offerings if it were alone. */
  private static final int INITIAL_PAIRS_PER_CLASS = 8;

  /** Column-generation rounds; the best certified value over all rounds is the result. */
  private static final int ROUNDS = 12;

  /** Relative slack below which a left-out pair does not count as violated. */
  private static final double VIOLATION_TOLERANCE = 1e-6;

  /**
   * Finds prices w with the LP by constraint generation on the dual. The dual is solved with ojAlgo
   * on a few promising offerings and (class, offering) pairs; u_c is then the least {@code demand_c .
   * w_o} over c's pairs in the model. Offerings outside the model borrow a scaled price vector (see
   * {@link #borrowPrices}). Pairs whose inequality {@code demand_c . w_o >= u_c} fails, and offerings
   * no borrowed vector serves, enter the next round. Every round's w is certified against the full
   * problem and the best value is kept, so a round the solver gets wrong costs tightness, never
   * validity.
   */
  private final class ColumnGeneration {
    final List<LpClass> classes;
    final boolean[][] inModel;
    final boolean[] modelled = new boolean[kept.size()];
    boolean solved;

    ColumnGeneration(List<LpClass> classes) {
      this.classes = classes;
      this.inModel = new boolean[classes.size()][kept.size()];
      for (int c = 0; c < classes.size(); c++) {
        double[] demand = classes.get(c).demand();
        Integer[] byCost = Arrays.stream(keptOfGroup[classes.get(c).group()]).boxed().toArray(Integer[]::new);
        Arrays.sort(byCost, Comparator.comparingDouble(k -> singleClassCost(demand, kept.get(k))));
        for (int n = 0; n < Math.min(INITIAL_PAIRS_PER_CLASS, byCost.length); n++) {
          add(c, byCost[n]);
        }
      }
    }

    private void add(int c, int k) {
      inModel[c][k] = true;
      modelled[k] = true;
    }

    double run() {
      double best = 0;
      for (int round = 0; round < ROUNDS; round++) {
        double[][] w = solveRestrictedDual();
        if (w == null) {
          break;
        }
        solved = true;
        double[] u = new double[classes.size()];
        for (int c = 0; c < u.length; c++) {
          u[c] = Double.POSITIVE_INFINITY;
          for (int k = 0; k < kept.size(); k++) {
            if (inModel[c][k]) {
              u[c] = Math.min(u[c], dot(classes.get(c).demand(), w[k]));
            }
          }
        }
        boolean added = false;
        for (int k = 0; k < kept.size(); k++) {
          if (modelled[k]) {
            added |= addViolatedPairs(k, w[k], u);
          } else if (!borrowPrices(k, u, w)) {
            added |= enter(k, u);
          }
        }
        double value = certify(w);
        best = Math.max(best, value);
        if (!added) {
          break;
        }
      }
      return best;
    }

    private boolean addViolatedPairs(int k, double[] w, double[] u) {
      boolean added = false;
      for (int c = 0; c < u.length; c++) {
        if (!inModel[c][k] && usable(c, k) && dot(classes.get(c).demand(), w) < u[c] * (1 - VIOLATION_TOLERANCE)) {
          add(c, k);
          added = true;
        }
      }
      return added;
    }

    /**
     * Brings offering k into the model for the classes it could serve alone for at most their current
     * charge u, and at least for the one it serves best relative to u.
     */
    private boolean enter(int k, double[] u) {
      int best = -1;
      double bestRatio = Double.POSITIVE_INFINITY;
      for (int c = 0; c < u.length; c++) {
        if (usable(c, k)) {
          double ratio = singleClassCost(classes.get(c).demand(), kept.get(k)) / Math.max(u[c], Double.MIN_NORMAL);
          if (ratio <= 1) {
            add(c, k);
          }
          if (best < 0 || ratio < bestRatio) {
            best = c;
            bestRatio = ratio;
          }
        }
      }
      if (best < 0) {
        return false;
      }
      add(best, k);
      return true;
    }

    private boolean usable(int c, int k) {
      return kept.get(k).groups.get(classes.get(c).group());
    }

    /**
     * Sets w[k] of an offering outside the model to the price vector, among scaled copies of the
     * modelled offerings' prices and of the demand directions of the classes able to use k, that
     * charges those classes the most relative to u; returns whether it charges each at least its u.
     */
    private boolean borrowPrices(int k, double[] u, double[][] w) {
      Kept o = kept.get(k);
      double bestCoverage = -1;
      double[] best = null;
      List<double[]> directions = new ArrayList<>();
      for (int j = 0; j < kept.size(); j++) {
        if (modelled[j]) {
          directions.add(w[j]);
        }
      }
      for (int c = 0; c < u.length; c++) {
        if (usable(c, k)) {
          directions.add(classes.get(c).demand());
        }
      }
      for (double[] direction : directions) {
        double spent = dot(o.allocatable, direction);
        if (!(spent > 0)) {
          continue;
        }
        double factor = o.offering.bounded() ? Math.min(1, o.price() / spent) : o.price() / spent;
        double coverage = Double.POSITIVE_INFINITY;
        for (int c = 0; c < u.length; c++) {
          if (usable(c, k) && u[c] > 0) {
            coverage = Math.min(coverage, dot(classes.get(c).demand(), direction) * factor / u[c]);
          }
        }
        if (coverage > bestCoverage) {
          bestCoverage = coverage;
          best = direction.clone();
          for (int i = 0; i < dims.length; i++) {
            best[i] *= factor;
          }
        }
      }
      if (best != null) {
        w[k] = best;
      }
      return bestCoverage >= 1 - VIOLATION_TOLERANCE;
    }

    /**
     * Solves the dual LP restricted to the offerings and pairs in the model (a relaxation of the
     * dual: its w may violate left-out pairs, which the next round adds) and returns its w (zero
     * outside the model), or null when ojAlgo finds no optimum.
     */
    private double[][] solveRestrictedDual() {
      ExpressionsBasedModel model = new ExpressionsBasedModel();
      Variable[] u = new Variable[classes.size()];
      for (int c = 0; c < u.length; c++) {
        u[c] = model.newVariable("u" + c).weight(1);
      }
      Variable[][] w = new Variable[kept.size()][];
      for (int k = 0; k < kept.size(); k++) {
        if (!modelled[k]) {
          continue;
        }
        Kept o = kept.get(k);
        w[k] = new Variable[dims.length];
        Expression budget = model.newExpression("price" + k).upper(o.price());
        for (int i = 0; i < dims.length; i++) {
          if (o.allocatable[i] > 0) {
            w[k][i] = model.newVariable("w" + k + "_" + i).lower(0);
            budget.set(w[k][i], o.allocatable[i]);
          }
        }
        if (o.offering.bounded()) {
          budget.set(model.newVariable("v" + k).lower(0).weight(-(double) o.offering.maxCount()), -1);
        }
        for (int c = 0; c < u.length; c++) {
          if (inModel[c][k]) {
            double[] demand = classes.get(c).demand();
            Expression pair = model.newExpression("u" + c + "_" + k).upper(0);
            pair.set(u[c], 1);
            for (int i = 0; i < dims.length; i++) {
              if (demand[i] > 0 && w[k][i] != null) {
                pair.set(w[k][i], -demand[i]);
              }
            }
          }
        }
      }
      Optimisation.Result result = model.maximise();
      if (!result.getState().isOptimal()) {
        return null;
      }
      double[][] prices = new double[kept.size()][dims.length];
      for (int k = 0; k < kept.size(); k++) {
        for (int i = 0; w[k] != null && i < dims.length; i++) {
          if (w[k][i] != null) {
            prices[k][i] = result.doubleValue(model.indexOf(w[k][i]));
          }
        }
      }
      return prices;
    }
  }

  /** What the class alone would pay on this offering: price x its most constraining resource. */
  private static double singleClassCost(double[] demand, Kept o) {
    double nodes = 0;
    for (int i = 0; i < demand.length; i++) {
      if (demand[i] > 0) {
        nodes = Math.max(nodes, demand[i] / o.allocatable[i]);
      }
    }
    return nodes * o.price();
  }
}
