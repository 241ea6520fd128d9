package sh.karpenter.core.cost;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.IntStream;
import org.ojalgo.optimisation.Expression;
import org.ojalgo.optimisation.ExpressionsBasedModel;
import org.ojalgo.optimisation.Optimisation;
import org.ojalgo.optimisation.Variable;
import org.ojalgo.optimisation.linear.LinearSolver;
import sh.karpenter.core.lp.BoundedSimplex;
import sh.karpenter.core.lp.LinearModels;
import sh.karpenter.core.resources.Resources;

/**
 * Computes a {@link LowerBound}: reduces the fractional-fleet LP, solves it with ojAlgo, reads
 * resource prices from the solution's multipliers and turns them into a certified bound.
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
 * hint: it is clipped to {@code >= 0}, scaled per unbounded offering onto its price constraint (down
 * when over the price; up when under it, which only raises what classes are charged), and u and v
 * are then recomputed from it exactly ({@code u_c} = the least {@code podCount_c *
 * requests_c . w_o} over c's offerings, {@code v_o} = the excess of {@code alloc_o . w_o} over the
 * price). The resulting objective is valid whatever the solver's tolerances did. What is left is
 * round-off in that final evaluation (sums of products of non-negative doubles, relative error far
 * below 1e-12), which {@link #ROUNDING_MARGIN} covers with a wide margin.
 *
 * <p><b>Aggregated request shapes.</b> Because only w comes from the solver, the LP may be solved
 * on a smaller model than the one certified. Beyond {@link BoundBudget#maxLpClasses()} classes (with
 * thousands of distinct request shapes the exact LP takes minutes), classes of one candidate set
 * are aggregated into buckets of similar shape ({@link #aggregate}), and each class's requests are
 * <em>rounded down</em> onto its bucket: a class of {@code n_c} pods of requests {@code s_c} in
 * bucket b of shape {@code t_b} becomes {@code n_c * lambda_c} units of {@code t_b}, with {@code
 * lambda_c = min_r s_cr / t_br} (so {@code lambda_c t_b <= s_c}), and its remainder {@code rho_c =
 * n_c (s_c - lambda_c t_b) >= 0} goes, resource by resource, to single-resource remainder classes
 * (one per candidate set and resource). A bucket may use every offering any of its members may
 * use, a remainder class every offering any class of its candidate set may use.
 *
 * <p><i>The aggregated LP is a relaxation, so its optimum is still at most the optimum plan's
 * cost.</i> Take any feasible exact solution (x, y). Route bucket b to offering o in the share
 * {@code sum_c n_c lambda_c y_co / sum_c n_c lambda_c} of its members, and each remainder class in
 * the share {@code sum_c rho_cr y_co / sum_c rho_cr} of its contributors. Then offering o receives
 * {@code sum_c y_co (n_c lambda_c t_b + rho_c) = sum_c y_co n_c s_c}, exactly what the exact
 * solution put there, every share goes to an offering its class may use (a member's offerings are
 * among its bucket's), and the shares sum to 1: the same x is feasible at the same cost. Dropping
 * remainder crumbs only removes demand, which relaxes further.
 *
 * <p><i>The certificate is at least the aggregated optimum.</i> The certificate charges every exact
 * class at its exact requests on its own offerings: {@code min_{o in U(c)} n_c s_c . w_o >= n_c
 * lambda_c min_{o in U(b)} t_b . w_o + sum_r rho_cr min_{o in U(owner)} w_or}, since a sum of
 * non-negative terms is at least the sum of their minima and U(c) is a subset of both sets. Summed
 * over the exact classes, that is the aggregated dual objective of the same w; so an optimal
 * aggregated w certifies at least the aggregated LP's optimum and, as any w, at most the exact
 * optimum. So each round on aggregated classes is certified cheaply on them ({@link
 * #certify(double[][], List)}), and only the best round's prices on the (possibly 100,000) exact
 * classes, once. The LP is solved by column generation ({@link ColumnGeneration}) within the {@link
 * BoundBudget}'s pair, step and time limits; when the budget allows no LP at all, the per-resource
 * bound is the answer.
 *
 * <p><b>Work.</b> Every phase charges its steps to a {@link WorkMeter} before it runs: the
 * reductions below, the per-resource bound, the aggregation, each round (its model, the solver, the
 * pricing of every pair and the certificate). Running out in the LP rounds keeps the best round so
 * far; running out before the LP keeps the per-resource bound; running out before that (the
 * reductions, the per-resource bound itself) throws {@link WorkMeter.OverBudget} for {@link
 * LowerBound} to fall back to {@link AnyOfferingBound}.
 *
 * <p><b>Fit cuts.</b> When the LP runs on the exact classes it also gets, for a class c and an
 * offering o of which one node holds only a few whole pods of c ({@link #FIT_CUT_MAX_PODS}) and fewer
 * than the capacity rows alone allow, the row {@code podCount_c * y_co <= fit_co * x_o}: no node of
 * o can hold more than fit_co pods of c, so every integral plan satisfies it, while without it the
 * LP packs fractional pods into small nodes (1.3 pods of 1.5 cpu into a 2-cpu node). The certificate
 * then also charges a price per pod of c on o, paid for out of o's price fit_co times; why that is
 * still a valid bound is in {@link #certify(double[][], double[][], int[][])}. The rows count
 * against {@link BoundBudget#maxLpPairs()}; the aggregated LP gets none.
 *
 * <p><b>Reductions</b>, each exact (the reduced LP has the same optimum):
 *
 * <ul>
 *   <li>classes with the same requests, candidates and one-per-node group (or none) merge; only
 *       requested resources are modelled;
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
  private final BoundBudget budget;
  private final WorkMeter meter;
  /** Resource indices some class requests. */
  private final int[] dims;
  /** Total demand per modelled resource: the unit of the scaled figures. */
  private final double[] scale;

  // Placeable classes, merged: per-pod scaled requests, pod count, offering group.
  private final List<Resources> requests = new ArrayList<>();
  private final List<double[]> perPod = new ArrayList<>();
  private final List<Long> podCounts = new ArrayList<>();
  /** Per class, whether at most one of its pods fits any node ({@link DemandClass#onePerNode()}). */
  private final List<Boolean> onePerNode = new ArrayList<>();
  private final List<Integer> groupOf = new ArrayList<>();
  /** Per class, the index of its candidate set (before fit): classes with equal ones may be pooled. */
  private final List<Integer> constraintOf = new ArrayList<>();
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

  /**
   * Reduces the LP (merging, fit, pruning), charging {@code meter} for it.
   *
   * @throws WorkMeter.OverBudget when the reductions alone exceed the budget
   */
  LpRelaxation(List<DemandClass> classes, List<CandidateOffering> offerings, WorkMeter meter) {
    this.offerings = offerings;
    this.meter = meter;
    this.budget = meter.budget();
    meter.charge((long) classes.size() + offerings.size());
    // Classes merge only within one one-per-node group (or among uncapped classes): merging two
    // groups would forbid their pods to share a node, which plans may do.
    record MergeKey(BitSet candidates, Object onePerNode) {
      // equals and hashCode written out, as Taint's
      @Override
      public boolean equals(Object o) {
        return o instanceof MergeKey k && candidates.equals(k.candidates) && Objects.equals(onePerNode, k.onePerNode);
      }

      @Override
      public int hashCode() {
        return 31 * candidates.hashCode() + Objects.hashCode(onePerNode);
      }
    }
    Map<Resources, Map<MergeKey, Long>> merged = new LinkedHashMap<>();
    for (DemandClass c : classes) {
      if (c.podCount() > 0 && !c.requests().isZero()) {
        merged
            .computeIfAbsent(c.requests(), r -> new LinkedHashMap<>())
            .merge(new MergeKey(c.candidates(), c.onePerNode()), (long) c.podCount(), Long::sum);
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
    record UsableKey(BitSet candidates, BitSet fits) {
      // equals and hashCode written out, as Taint's
      @Override
      public boolean equals(Object o) {
        return o instanceof UsableKey k && candidates.equals(k.candidates) && fits.equals(k.fits);
      }

      @Override
      public int hashCode() {
        return 31 * candidates.hashCode() + fits.hashCode();
      }
    }
    meter.charge((long) merged.size() * distinctAllocatable.size());
    Map<UsableKey, BitSet> usableByKey = new HashMap<>();
    Map<BitSet, Integer> groupIndex = new HashMap<>();
    Map<BitSet, Integer> constraintIndex = new HashMap<>();
    merged.forEach(
        (r, byCandidates) -> {
          BitSet fits = new BitSet(distinctAllocatable.size());
          for (int a = 0; a < distinctAllocatable.size(); a++) {
            if (r.fits(distinctAllocatable.get(a))) {
              fits.set(a);
            }
          }
          byCandidates.forEach(
              (mergeKey, pods) -> {
                BitSet candidates = mergeKey.candidates();
                BitSet usable =
                    usableByKey.computeIfAbsent(
                        new UsableKey(candidates, fits),
                        key -> {
                          meter.charge(candidates.cardinality() + candidates.length() / 64 + 1);
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
                onePerNode.add(mergeKey.onePerNode() != null);
                constraintOf.add(constraintIndex.computeIfAbsent(candidates, k -> constraintIndex.size()));
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
    meter.charge((long) groups.size() * kept.size());
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
      meter.charge(usable.cardinality() + 1);
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
    double[] price = new double[offerings.size()];
    boolean[] bounded = new boolean[offerings.size()];
    double[] smaller = new double[offerings.size()];
    for (int o : order) {
      allocatable[o] = scaled(offerings.get(o).allocatable());
      price[o] = offerings.get(o).price();
      bounded[o] = offerings.get(o).bounded();
      smaller[o] = -Arrays.stream(allocatable[o]).sum();
    }
    // Cheapest first; at equal price unbounded first (only they dominate), then larger first. The
    // keys are worked out once per offering, not per comparison.
    Arrays.sort(
        order,
        (a, b) -> {
          int byPrice = Double.compare(price[a], price[b]);
          if (byPrice != 0) {
            return byPrice;
          }
          int byBounded = Boolean.compare(bounded[a], bounded[b]);
          return byBounded != 0 ? byBounded : Double.compare(smaller[a], smaller[b]);
        });
    meter.charge((long) order.length * (64 - Long.numberOfLeadingZeros(order.length + 1L)));
    List<Kept> result = new ArrayList<>();
    long groupWords = groups.size() / 64 + 1;
    // Offerings of one type in other zones or capacity types often have the same allocatable and
    // usable groups: once one of them is dominated, or kept unbounded, the unbounded offering that
    // did it (taken earlier, so no dearer) dominates the later ones too, known without the scan.
    Set<Shape> covered = new HashSet<>();
    for (int o : order) {
      CandidateOffering offering = offerings.get(o);
      Shape shape = new Shape(allocatable[o], groupsOf[o]);
      if (covered.contains(shape)) {
        continue;
      }
      meter.charge(result.size() * (dims.length + groupWords));
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
      if (dominated || !offering.bounded()) {
        covered.add(shape);
      }
    }
    return result;
  }

  /** An offering's scaled allocatable and usable groups, compared by value. */
  private record Shape(double[] allocatable, BitSet groups) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Shape that && Arrays.equals(allocatable, that.allocatable) && groups.equals(that.groups);
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(allocatable) + groups.hashCode();
    }
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

  /**
   * The bound: the per-resource bound, then the LP on the exact or aggregated classes within the
   * budget, certified.
   *
   * @throws WorkMeter.OverBudget when even the per-resource bound exceeds the budget
   */
  LowerBound solve() {
    Instant deadline = meter.deadline();
    if (requests.isEmpty()) {
      return new LowerBound(0, 0, 0, 0, unplaceableClasses, 0, true, LowerBound.Method.LP, 0, "");
    }
    double simple = simpleBound();
    Aggregation aggregation;
    ColumnGeneration lp;
    try {
      aggregation = aggregate();
      if (aggregation == null) {
        return perResource(
            simple,
            "LP skipped: even aggregated, the classes exceed the budget of " + budget.maxLpClasses() + " LP classes");
      }
      if (budget.expired(deadline)) {
        return perResource(simple, "LP skipped: time limit of " + budget.timeLimit() + " reached");
      }
      lp = new ColumnGeneration(aggregation.classes(), aggregation.aggregated() ? null : fitCuts(), deadline);
    } catch (WorkMeter.OverBudget e) {
      return perResource(simple, "LP skipped at " + e.limit() + " (" + requests.size() + " classes)");
    }
    double certified = lp.run();
    List<String> notes = new ArrayList<>();
    if (aggregation.aggregated()) {
      notes.add("request shapes aggregated to the budget of " + budget.maxLpClasses() + " LP classes");
      if (lp.bestPrices != null) {
        // Each round was certified on the aggregated classes; the exact classes certify at least as much.
        try {
          meter.charge(exactCertificationSteps());
          certified = Math.max(certified, certify(lp.bestPrices));
        } catch (WorkMeter.OverBudget e) {
          notes.add("certified on the aggregated classes only, at " + e.limit());
        }
      }
    }
    if (!lp.stopReason.isEmpty()) {
      notes.add(lp.stopReason);
    }
    boolean lpWins = lp.solved && certified >= simple * (1 - LP_PREFERENCE_TOLERANCE);
    LowerBound.Method method =
        !lpWins ? LowerBound.Method.PER_RESOURCE : aggregation.aggregated() ? LowerBound.Method.AGGREGATED_LP : LowerBound.Method.LP;
    if (!lp.solved && lp.stopReason.isEmpty()) {
      notes.add("LP solver found no optimum");
    } else if (lp.solved && !lpWins) {
      notes.add("LP came out lower");
    }
    return new LowerBound(
        Math.max(certified, simple),
        certified,
        simple,
        requests.size(),
        unplaceableClasses,
        kept.size(),
        lp.solved,
        method,
        aggregation.classes().size(),
        String.join("; ", notes));
  }

  /** Relative shortfall below the simple bound at which the LP still counts as the bound used. */
  private static final double LP_PREFERENCE_TOLERANCE = 1e-6;

  private LowerBound perResource(double simple, String why) {
    return new LowerBound(simple, 0, simple, requests.size(), unplaceableClasses, kept.size(), false, LowerBound.Method.PER_RESOURCE, 0, why);
  }

  /**
   * The per-resource bound: for the best resource i, the certificate of the prices charging
   * everything to i ({@code w_o = price_o / alloc_oi} on unbounded offerings, 0 on bounded ones,
   * which then have no excess). Such a w charges a class {@code podCount_c * s_ci} times the least
   * {@code w_oi} among its offerings, so the least is taken once per offering group rather than
   * once per class.
   *
   * @throws WorkMeter.OverBudget when the budget does not allow it
   */
  private double simpleBound() {
    long keptPairs = 0;
    for (int[] keptIndices : keptOfGroup) {
      keptPairs += keptIndices.length;
    }
    meter.charge(dims.length * (keptPairs + perPod.size()));
    double best = 0;
    for (int i = 0; i < dims.length; i++) {
      double[] least = new double[groups.size()];
      for (int g = 0; g < groups.size(); g++) {
        least[g] = Double.POSITIVE_INFINITY;
        for (int k : keptOfGroup[g]) {
          Kept o = kept.get(k);
          least[g] = Math.min(least[g], !o.offering.bounded() && o.allocatable[i] > 0 ? o.price() / o.allocatable[i] : 0);
        }
      }
      double total = 0;
      for (int c = 0; c < perPod.size(); c++) {
        total += least[groupOf.get(c)] * perPod.get(c)[i] * podCounts.get(c);
      }
      best = Math.max(best, Math.max(0, total - ROUNDING_MARGIN * total));
    }
    return best;
  }

  /** Steps of one {@link #certify(double[][])} over the exact classes. */
  private long exactCertificationSteps() {
    long steps = (long) kept.size() * dims.length;
    for (int c = 0; c < perPod.size(); c++) {
      steps += (long) keptOfGroup[groupOf.get(c)].length * dims.length;
    }
    return steps;
  }

  /**
   * The dual objective of the repaired price vectors {@code w} (modified in place), less the
   * rounding margin: a valid lower bound whatever {@code w} holds.
   */
  double certify(double[][] w) {
    return certify(w, null, null);
  }

  /**
   * {@link #certify(double[][])} with fit cuts: {@code zeta[c][k]} is the multiplier of the cut row
   * {@code y_ck - fit_ck / podCount_c * x_k <= 0} of exact class c on kept offering k (see {@link
   * #fitCuts}), read as a price of {@code z_ck = zeta_ck / podCount_c} per pod. Only pairs with
   * {@code fit[c][k] > 0} (a real fit, whole pods) may carry one; both arrays may be null (no cuts).
   * {@code w} and {@code zeta} are repaired in place like {@code w} alone.
   *
   * <p><i>Why it stays valid.</i> With the cuts the primal gains the rows {@code n_c y_co <= fit_co
   * x_o} (pods of c on o at most fit_co per node of o; every integral plan satisfies them, since
   * fit_co is at most how many whole pods of c fit one node of o alone, and at most 1 for a
   * one-per-node class, no two pods of which any plan puts on one node), and the dual becomes
   *
   * <pre>
   *   maximise   sum_c u_c - sum_{o bounded} maxCount_o * v_o
   *   subject to u_c <= n_c (s_c . w_o + z_co)                  for every class c and offering o it may use
   *              alloc_o . w_o + sum_c fit_co z_co - v_o <= price_o   for every offering o
   *              w, v, z >= 0   (z_co = 0 where there is no cut)
   * </pre>
   *
   * (the y_co column gives the first row, the x_o column the second). The repair keeps every
   * (w, z, v, u) it produces dual feasible: negative or non-finite z are zeroed like w, an unbounded
   * offering's w_o and z_.o are scaled together onto its price, a bounded one's v_o takes the excess
   * of the whole left-hand side, and u_c is the least {@code n_c (s_c . w_o + z_co)}. So by weak
   * duality the value is at most the optimum of the LP with cuts, which is at most the optimum
   * plan's cost. Pruned offerings stay covered: an offering o' dominated by a kept unbounded k (at
   * most its price, at most its allocatable in every requested resource, usable by a subset of k's
   * classes) takes w_o' = w_k and z_co' = z_ck; fit_co' <= fit_ck because fit is monotone in
   * allocatable, so {@code alloc_o' . w_k + sum_c fit_co' z_ck <= price_k <= price_o'}, and class
   * c's row for o' reads as its row for k. The aggregated LP gets no cuts (its classes are not
   * classes of whole pods), which is the old certificate with z = 0.
   */
  double certify(double[][] w, double[][] zeta, int[][] fit) {
    double[][] z = null;
    if (zeta != null) {
      z = new double[perPod.size()][];
      for (int c = 0; c < perPod.size(); c++) {
        z[c] = new double[kept.size()];
        for (int k = 0; k < kept.size(); k++) {
          double perPodPrice = zeta[c][k] / podCounts.get(c);
          z[c][k] = fit[c][k] > 0 && perPodPrice > 0 && !Double.isInfinite(perPodPrice) ? perPodPrice : 0;
        }
      }
    }
    double[] sum = repair(w, z, fit);
    for (int c = 0; c < perPod.size(); c++) {
      double least = Double.POSITIVE_INFINITY;
      for (int k : keptOfGroup[groupOf.get(c)]) {
        least = Math.min(least, dot(perPod.get(c), w[k]) + (z != null ? z[c][k] : 0));
      }
      double charge = least * podCounts.get(c);
      sum[0] += charge;
      sum[1] += charge;
    }
    return Math.max(0, sum[0] - ROUNDING_MARGIN * sum[1]);
  }

  /**
   * The dual objective of the repaired {@code w} (modified in place) for the LP classes, less the
   * rounding margin: each LP class is charged the least {@code demand . w_o} among its offerings.
   * For aggregated classes this is a valid bound too (the aggregated LP is a relaxation of the exact
   * one, see the class comment) and at most {@link #certify(double[][])} of the same w.
   */
  private double certify(double[][] w, List<LpClass> classes) {
    double[] sum = repair(w, null, null);
    for (LpClass c : classes) {
      double least = Double.POSITIVE_INFINITY;
      for (int k : c.keptIndices()) {
        least = Math.min(least, dot(c.demand(), w[k]));
      }
      sum[0] += least;
      sum[1] += least;
    }
    return Math.max(0, sum[0] - ROUNDING_MARGIN * sum[1]);
  }

  /**
   * Repairs {@code w} and the per-pod cut prices {@code z} (both may be changed; z and fit may be
   * null) onto the price rows, as {@link #certify(double[][], double[][], int[][])} describes, and
   * returns the bounded offerings' part of the objective and of its magnitude: {@code {-excess,
   * excess}}.
   */
  private double[] repair(double[][] w, double[][] z, int[][] fit) {
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
      if (z != null) {
        for (int c = 0; c < perPod.size(); c++) {
          spent += fit[c][k] * z[c][k];
        }
      }
      if (o.offering.bounded()) {
        double excess = Math.max(0, spent - o.price()) * o.offering.maxCount();
        total -= excess;
        magnitude += excess;
      } else if (spent > 0 && spent != o.price()) {
        // Down to the price if over it; up to it if under, which only raises what classes are charged.
        double factor = o.price() / spent;
        for (int i = 0; i < dims.length; i++) {
          w[k][i] *= factor;
        }
        if (z != null) {
          for (int c = 0; c < perPod.size(); c++) {
            z[c][k] *= factor;
          }
        }
      }
    }
    return new double[] {total, magnitude};
  }

  private static double dot(double[] a, double[] b) {
    double s = 0;
    for (int i = 0; i < a.length; i++) {
      s += a[i] * b[i];
    }
    return s;
  }

  /**
   * A class as the LP sees it: a scaled total demand and the offerings it may use (indices into
   * {@link #kept}, as a set and as a list).
   */
  private record LpClass(BitSet usable, int[] keptIndices, double[] demand) {}

  /** The classes the LP is solved on, and whether they are aggregated rather than exact. */
  private record Aggregation(List<LpClass> classes, boolean aggregated) {}

  /**
   * The classes the LP is solved on: the exact classes when there are at most {@link
   * BoundBudget#maxLpClasses()}, else aggregated ones (see the class comment): buckets of classes
   * with the same candidate set (the owner), each of which may use every offering any of its
   * members may use, plus per owner one remainder class per resource, which may use every offering
   * any class of the owner may use. Each owner's classes start as one bucket; the bucket losing the
   * most to aggregation is split at the pod-weighted median of its widest-spread coordinate (the log
   * of a resource's share of a pod's demand, or, when its members fit different offerings, the log
   * of a resource's request) until the budget is used. Null when even one bucket per candidate set
   * does not fit the budget.
   */
  private Aggregation aggregate() {
    int max = budget.maxLpClasses();
    if (perPod.size() <= max) {
      List<LpClass> exact = new ArrayList<>(perPod.size());
      for (int c = 0; c < perPod.size(); c++) {
        double[] demand = perPod.get(c).clone();
        for (int i = 0; i < demand.length; i++) {
          demand[i] *= podCounts.get(c);
        }
        exact.add(lpClass(usableKept(List.of(groupOf.get(c))), demand));
      }
      return new Aggregation(exact, false);
    }
    Map<Integer, List<Integer>> membersOf = new LinkedHashMap<>();
    for (int c = 0; c < perPod.size(); c++) {
      membersOf.computeIfAbsent(constraintOf.get(c), o -> new ArrayList<>()).add(c);
    }
    // An owner takes at least one bucket and one remainder class per resource.
    int bucketBudget = max - membersOf.size() * dims.length;
    if (bucketBudget < membersOf.size()) {
      return null;
    }
    PriorityQueue<Bucket> splittable = new PriorityQueue<>(Comparator.comparingDouble((Bucket b) -> -b.loss));
    List<Bucket> done = new ArrayList<>();
    membersOf.values().forEach(members -> splittable.add(new Bucket(members)));
    while (!splittable.isEmpty() && splittable.size() + done.size() < bucketBudget) {
      Bucket worst = splittable.poll();
      List<Bucket> halves = worst.loss > 0 ? worst.split() : null;
      if (halves == null) {
        done.add(worst);
      } else {
        splittable.addAll(halves);
      }
    }
    done.addAll(splittable);
    done.sort(Comparator.comparingInt((Bucket b) -> b.members.getFirst()));
    Map<Integer, double[]> remainders = new LinkedHashMap<>();
    Map<Integer, Set<Integer>> groupsOfOwner = new HashMap<>();
    List<LpClass> classes = new ArrayList<>();
    for (Bucket bucket : done) {
      int owner = constraintOf.get(bucket.members.getFirst());
      double[] remainder = remainders.computeIfAbsent(owner, o -> new double[dims.length]);
      for (int i = 0; i < dims.length; i++) {
        remainder[i] += bucket.remainder[i];
      }
      groupsOfOwner.computeIfAbsent(owner, o -> new TreeSet<>()).addAll(bucket.groups);
      if (bucket.units > 0) {
        double[] demand = bucket.shape.clone();
        for (int i = 0; i < dims.length; i++) {
          demand[i] *= bucket.units;
        }
        classes.add(lpClass(usableKept(bucket.groups), demand));
      }
    }
    remainders.forEach(
        (owner, remainder) -> {
          BitSet usable = usableKept(groupsOfOwner.get(owner));
          for (int i = 0; i < dims.length; i++) {
            // Crumbs are left out: dropping demand only relaxes further.
            if (remainder[i] > REMAINDER_CRUMB) {
              double[] demand = new double[dims.length];
              demand[i] = remainder[i];
              classes.add(lpClass(usable, demand));
            }
          }
        });
    return new Aggregation(classes, true);
  }

  /**
   * Fit cuts are only added where a node of the offering holds at most this many whole pods of the
   * class: there rounding down loses up to a 1/(fit + 1) share of the node, which the plain LP hands
   * out as fractional pods; with more pods per node the loss is small and the rows only cost time.
   */
  static final int FIT_CUT_MAX_PODS = 16;

  /**
   * Per exact class and kept offering it may use, the number of whole pods of the class that fit
   * one node of the offering alone ({@code fit_co}: the least {@code floor(allocatable_r /
   * requests_r)} over the requested resources, from the exact milli-values), where that cut binds:
   * when it is at most {@link #FIT_CUT_MAX_PODS} and below the fractional count the capacity rows
   * already allow. A {@link DemandClass#onePerNode() one-per-node} class fits at most 1 on every
   * offering, new or existing: no plan puts two of its pods on one node, so 1 is a valid fit like
   * any smaller whole count (and still monotone in allocatable, as pruning needs). 0 elsewhere (no
   * cut). Only for exact classes (see {@link #certify(double[][], double[][], int[][])}); the
   * aggregated LP, whose buckets may mix groups, gets no cuts and so no caps.
   */
  private int[][] fitCuts() {
    meter.charge((long) perPod.size() * kept.size() * (dims.length + 1));
    int[][] fit = new int[perPod.size()][kept.size()];
    for (int c = 0; c < perPod.size(); c++) {
      Resources r = requests.get(c);
      double[] s = perPod.get(c);
      for (int k : keptOfGroup[groupOf.get(c)]) {
        Kept o = kept.get(k);
        long whole = Long.MAX_VALUE;
        for (int i = 0; i < r.dimensions(); i++) {
          if (r.milli(i) > 0) {
            whole = Math.min(whole, Math.max(0, o.offering.allocatable().milli(i)) / r.milli(i));
          }
        }
        if (onePerNode.get(c)) {
          whole = Math.min(whole, 1); // no two pods of the class share a node, whatever its size
        }
        double fractional = Double.POSITIVE_INFINITY;
        for (int i = 0; i < dims.length; i++) {
          if (s[i] > 0) {
            fractional = Math.min(fractional, o.allocatable[i] / s[i]);
          }
        }
        if (whole >= 1 && whole <= FIT_CUT_MAX_PODS && whole < fractional * (1 - CUT_MIN_GAIN)) {
          fit[c][k] = (int) whole;
        }
      }
    }
    return fit;
  }

  /** A fit cut must take at least this share off the fractional pods per node to be added. */
  private static final double CUT_MIN_GAIN = 1e-6;

  /** Remainders this small (in units of the total demand of their resource) are dropped, not pooled. */
  private static final double REMAINDER_CRUMB = 1e-9;

  private LpClass lpClass(BitSet usable, double[] demand) {
    return new LpClass(usable, usable.stream().toArray(), demand);
  }

  /** The kept offerings any of the groups may use. */
  private BitSet usableKept(Collection<Integer> groupIndices) {
    BitSet usable = new BitSet(kept.size());
    for (int g : groupIndices) {
      for (int k : keptOfGroup[g]) {
        usable.set(k);
      }
    }
    return usable;
  }

  /** Steps charged per member and coordinate of a bucket: its maps, sets and boxed sorts cost more than a dot product. */
  private static final long BUCKET_STEPS = 5;

  /**
   * Steps charged per (pair, row) of a restricted LP before ojAlgo solves it: a deterministic
   * stand-in for the solver's time, which grows with the model's columns times its rows.
   */
  private static final long SOLVE_STEPS = 8;

  /**
   * Exact classes of one candidate set rounded down onto their pod-weighted mean shape: {@code
   * units} pods of {@code shape}, and the {@code remainder} per resource. {@code loss} estimates
   * what the aggregation gives away: the remainder, plus, when the members fit different offerings,
   * the demand of the members outside the largest group (in units of the total demand).
   */
  private final class Bucket {
    final List<Integer> members;
    final Set<Integer> groups = new TreeSet<>();
    final double[] shape = new double[dims.length];
    final double[] remainder = new double[dims.length];
    double units;
    double remainderLoss;
    double fitLoss;
    double loss;

    Bucket(List<Integer> members) {
      meter.charge(BUCKET_STEPS * members.size() * (2L * dims.length + 2));
      this.members = members;
      long pods = 0;
      Map<Integer, Double> demandOfGroup = new HashMap<>();
      double demand = 0;
      for (int c : members) {
        pods += podCounts.get(c);
        groups.add(groupOf.get(c));
        double classDemand = 0;
        for (int i = 0; i < dims.length; i++) {
          shape[i] += perPod.get(c)[i] * podCounts.get(c);
          classDemand += perPod.get(c)[i] * podCounts.get(c);
        }
        demand += classDemand;
        demandOfGroup.merge(groupOf.get(c), classDemand, Double::sum);
      }
      for (int i = 0; i < dims.length; i++) {
        shape[i] /= pods;
      }
      for (int c : members) {
        double[] s = perPod.get(c);
        double lambda = Double.POSITIVE_INFINITY;
        for (int i = 0; i < dims.length; i++) {
          if (shape[i] > 0) {
            lambda = Math.min(lambda, s[i] / shape[i]);
          }
        }
        units += lambda * podCounts.get(c);
        for (int i = 0; i < dims.length; i++) {
          remainder[i] += Math.max(0, s[i] - lambda * shape[i]) * podCounts.get(c);
        }
      }
      remainderLoss = Arrays.stream(remainder).sum();
      fitLoss = demand - demandOfGroup.values().stream().mapToDouble(Double::doubleValue).max().orElse(0);
      loss = remainderLoss + fitLoss;
    }

    /**
     * The two halves of this bucket split at the pod-weighted median of its widest-spread
     * coordinate: a resource's log share of the pod's demand when rounding loses more than fit, else
     * a resource's log request. Null when no coordinate separates the members.
     */
    List<Bucket> split() {
      meter.charge(BUCKET_STEPS * members.size() * (dims.length * 2L + 64 - Long.numberOfLeadingZeros(members.size() + 1L)));
      boolean byRequest = fitLoss > remainderLoss;
      double[][] coordinate = new double[members.size()][dims.length];
      for (int m = 0; m < members.size(); m++) {
        double[] s = perPod.get(members.get(m));
        double norm = byRequest ? 1 : Arrays.stream(s).sum();
        for (int i = 0; i < dims.length; i++) {
          coordinate[m][i] = s[i] > 0 ? Math.log(s[i] / norm) : Double.NEGATIVE_INFINITY;
        }
      }
      int widest = -1;
      double widestSpread = 0;
      for (int i = 0; i < dims.length; i++) {
        double low = Double.POSITIVE_INFINITY;
        double high = Double.NEGATIVE_INFINITY;
        for (double[] x : coordinate) {
          low = Math.min(low, x[i]);
          high = Math.max(high, x[i]);
        }
        double spread = low == high ? 0 : high - low; // infinite when some members lack the resource
        if (spread > widestSpread) {
          widest = i;
          widestSpread = spread;
        }
      }
      if (widest < 0) {
        return null;
      }
      int dim = widest;
      Integer[] order = IntStream.range(0, members.size()).boxed().toArray(Integer[]::new);
      Arrays.sort(order, Comparator.comparingDouble(m -> coordinate[m][dim]));
      long total = members.stream().mapToLong(podCounts::get).sum();
      long before = 0;
      int cut = -1;
      double bestImbalance = Double.POSITIVE_INFINITY;
      for (int j = 1; j < order.length; j++) {
        before += podCounts.get(members.get(order[j - 1]));
        if (coordinate[order[j - 1]][dim] < coordinate[order[j]][dim]) {
          double imbalance = Math.abs(2.0 * before - total);
          if (imbalance < bestImbalance) {
            bestImbalance = imbalance;
            cut = j;
          }
        }
      }
      List<Integer> low = new ArrayList<>(cut);
      List<Integer> high = new ArrayList<>(order.length - cut);
      for (int j = 0; j < order.length; j++) {
        (j < cut ? low : high).add(members.get(order[j]));
      }
      low.sort(null);
      high.sort(null);
      return List.of(new Bucket(low), new Bucket(high));
    }
  }

  /**
   * A round's dual prices: {@code w[k][i]} per kept offering and resource, and {@code zeta[c][k]}
   * per LP class and kept offering, the multiplier of its fit cut row (0 without one).
   */
  private record Prices(double[][] w, double[][] zeta) {}

  /** Pairs each class starts with: its cheapest offerings if it were alone. */
  private static final int INITIAL_PAIRS_PER_CLASS = 8;

  /** Column-generation rounds at most; the best certified value over all rounds is the result. */
  private static final int ROUNDS = 12;

  /**
   * Largest restricted primal (rows x (columns + rows)) solved by {@link BoundedSimplex}'s dense
   * tableau, 32 MB of doubles; larger ones go to ojAlgo.
   */
  private static final long MAX_TABLEAU_ENTRIES = 4_000_000L;

  /** Right-hand side given to the restricted primal's zero rows, 1 to 2 times this, against degeneracy. */
  private static final double DEGENERACY_SLACK = 1e-7;

  /** Relative shortfall of the multipliers' dual value below the primal optimum that is accepted. */
  private static final double MULTIPLIER_TOLERANCE = 1e-6;

  /** Relative slack below which a left-out pair does not count as violated. */
  private static final double VIOLATION_TOLERANCE = 1e-6;

  /**
   * Finds prices w with the LP by constraint generation on the dual. The dual is solved (by {@link
   * BoundedSimplex}, ojAlgo as fallback) on a few promising offerings and (class, offering) pairs; u_c is then the least {@code demand_c .
   * w_o} over c's pairs in the model. Offerings outside the model borrow a scaled price vector (see
   * {@link #borrowPrices}). Pairs whose inequality {@code demand_c . w_o >= u_c} fails, and offerings
   * no borrowed vector serves, enter the next round. Every round's w is certified against the full
   * problem and the best value is kept, so a round the solver gets wrong costs tightness, never
   * validity.
   */
  private final class ColumnGeneration {
    final List<LpClass> classes;
    /** Fit per (exact class, kept offering) where a fit cut applies, else 0; null on aggregated classes. */
    final int[][] cutFit;
    final Instant deadline;
    final boolean[][] inModel;
    final boolean[] modelled = new boolean[kept.size()];
    int pairs;
    boolean solved;
    /** Rounds solved. */
    int rounds;
    /** Which budget limit ended the rounds early, or empty. */
    String stopReason = "";
    /** On aggregated classes, the repaired prices of the best certified round (null before one). */
    double[][] bestPrices;
    private double bestValue;
    /** Whether the last round added pairs or offerings to the model. */
    private boolean grew;
    /** The offerings' and pairs' columns basic at the last round's optimum: priced first in the next. */
    private final boolean[] basicOffering = new boolean[kept.size()];
    private final boolean[][] basicPair;

    ColumnGeneration(List<LpClass> classes, int[][] cutFit, Instant deadline) {
      meter.charge((long) classes.size() * kept.size() * (64 - Long.numberOfLeadingZeros(kept.size() + 1L)));
      this.classes = classes;
      this.cutFit = cutFit;
      this.deadline = deadline;
      this.inModel = new boolean[classes.size()][kept.size()];
      this.basicPair = new boolean[classes.size()][kept.size()];
      for (int c = 0; c < classes.size(); c++) {
        double[] demand = classes.get(c).demand();
        Integer[] byCost = Arrays.stream(classes.get(c).keptIndices()).boxed().toArray(Integer[]::new);
        Arrays.sort(byCost, Comparator.comparingDouble(k -> singleClassCost(demand, kept.get(k))));
        for (int n = 0; n < Math.min(INITIAL_PAIRS_PER_CLASS, byCost.length); n++) {
          add(c, byCost[n]);
        }
        addFeasibleStart(c, byCost);
      }
    }

    /**
     * Makes the first restricted LP feasible for class c whatever the other classes take: its
     * cheapest unbounded offering (which holds any amount of it), or, when it has none, every
     * bounded one (enough, since the pods were placed). Existing nodes' free capacity costs 0, so
     * the cheapest pairs alone can be bounded offerings too small for the class; the restricted
     * primal is then infeasible, its dual unbounded, and no round is certified.
     */
    private void addFeasibleStart(int c, Integer[] byCost) {
      for (int k : byCost) {
        if (!kept.get(k).offering.bounded()) {
          add(c, k);
          return;
        }
      }
      for (int k : byCost) {
        add(c, k);
      }
    }

    private void add(int c, int k) {
      if (!inModel[c][k]) {
        inModel[c][k] = true;
        modelled[k] = true;
        pairs++;
      }
    }

    double run() {
      double best = 0;
      for (int round = 0; round < ROUNDS; round++) {
        if (pairs > budget.maxLpPairs()) {
          stopReason = stoppedBy("the budget of " + budget.maxLpPairs() + " LP pairs");
          break;
        }
        if (round > 0 && budget.expired(deadline)) {
          stopReason = stoppedBy("the time limit of " + budget.timeLimit());
          break;
        }
        try {
          meter.charge(roundSteps());
          double value = round();
          if (value < 0) {
            break;
          }
          best = Math.max(best, value);
          if (!grew) {
            break;
          }
        } catch (WorkMeter.OverBudget e) {
          stopReason = stoppedBy(e.limit());
          break;
        }
      }
      return best;
    }

    /**
     * One round: solve the restricted LP, price the pairs and offerings outside it, certify. Returns
     * the certified value, or -1 when the solver found no optimum.
     */
    private double round() {
      double[][] cuts = cutCoefficients();
      meter.charge(solveSteps(cuts));
      Prices prices = solveRound(cuts);
      if (prices == null) {
        return -1;
      }
      double[][] w = prices.w();
      double[][] zeta = prices.zeta();
      solved = true;
      rounds++;
      double[] u = new double[classes.size()];
      for (int c = 0; c < u.length; c++) {
        u[c] = Double.POSITIVE_INFINITY;
        for (int k = 0; k < kept.size(); k++) {
          if (inModel[c][k]) {
            u[c] = Math.min(u[c], dot(classes.get(c).demand(), w[k]) + zeta[c][k]);
          }
        }
      }
      grew = false;
      for (int k = 0; k < kept.size(); k++) {
        if (modelled[k]) {
          grew |= addViolatedPairs(k, w[k], u);
        } else if (!borrowPrices(k, u, w)) {
          grew |= enter(k, u);
        }
      }
      if (cutFit != null) {
        return certify(w, zeta, cutFit);
      }
      double value = certify(w, classes);
      if (bestPrices == null || value > bestValue) {
        bestPrices = w;
        bestValue = value;
      }
      return value;
    }

    /** The steps charged for solving this round's restricted LP (see {@link #SOLVE_STEPS}). */
    private long solveSteps(double[][] cuts) {
      long rows = classes.size();
      for (boolean m : modelled) {
        rows += m ? dims.length : 0;
      }
      for (double[] row : cuts) {
        for (double cut : row) {
          rows += cut > 0 ? 1 : 0;
        }
      }
      return SOLVE_STEPS * (pairs + rows) * rows;
    }

    /**
     * The steps of one round besides the solver's own: the cut rows, the restricted model, pricing
     * every pair, borrowing prices for the offerings outside the model, and the certificate.
     */
    private long roundSteps() {
      long c = classes.size();
      long k = kept.size();
      long inside = 0;
      for (boolean m : modelled) {
        inside += m ? 1 : 0;
      }
      long certification = cutFit != null ? c * k * (dims.length + 2) : c * k * dims.length;
      return c * k + 2L * pairs * dims.length + 2 * c * k * dims.length + (k - inside) * (inside + c) * (c + 1) * dims.length + certification;
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

    private String stoppedBy(String limit) {
      return rounds == 0 ? "LP skipped at " + limit : "LP stopped after " + rounds + (rounds == 1 ? " round" : " rounds") + " at " + limit;
    }

    private boolean usable(int c, int k) {
      return classes.get(c).usable().get(k);
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
     * Prices w for this round: the multipliers of the restricted primal's capacity rows, from {@link
     * BoundedSimplex} or else from ojAlgo, when they reproduce the primal's optimum; else (ojAlgo's
     * presolve can leave rows without multipliers) the solution of the restricted dual. Null when no
     * solver finds an optimum.
     */
    private Prices solveRound(double[][] cuts) {
      double[] primalValue = new double[1];
      Prices own = solveRestrictedPrimalBySimplex(cuts, primalValue);
      if (own != null && reproduces(own, cuts, primalValue[0])) {
        return own;
      }
      Optimisation.Result[] primal = new Optimisation.Result[1];
      Prices prices = solveRestrictedPrimal(cuts, primal);
      if (prices != null && reproduces(prices, cuts, primal[0].getValue())) {
        return prices;
      }
      return primal[0] == null || primal[0].getState().isOptimal() ? solveRestrictedDual(cuts) : null;
    }

    /** Whether the multipliers' restricted dual value reaches the primal optimum they came with. */
    private boolean reproduces(Prices prices, double[][] cuts, double primalValue) {
      return restrictedDualValue(prices, cuts) >= primalValue * (1 - MULTIPLIER_TOLERANCE);
    }

    /**
     * The restricted primal solved by {@link BoundedSimplex}, which needs a program whose origin is
     * feasible: each class row {@code sum_k y_ck >= 1} becomes {@code sum_k y_ck <= 1} with a reward
     * M per unit routed, M far above what routing a whole class can cost, so that every optimum routes
     * every class. The capacity and cut rows' multipliers are then w and zeta, as with ojAlgo, and
     * the optimum's cost goes to {@code primalValue[0]}. Null (the round falls back to ojAlgo) when
     * the tableau would be large, the solve is not optimal, or a class is left partly unrouted at the
     * largest M tried; the bound does not depend on any of this, since every round is certified.
     * The columns basic at the optimum are kept and priced first in the next round.
     */
    private Prices solveRestrictedPrimalBySimplex(double[][] cuts, double[] primalValue) {
      int[] column = new int[kept.size()];
      int[][] pairColumn = new int[classes.size()][kept.size()];
      int columns = 0;
      int rows = classes.size();
      int[][] capacityRow = new int[kept.size()][dims.length];
      int[][] cutRow = new int[classes.size()][kept.size()];
      for (int k = 0; k < kept.size(); k++) {
        Arrays.fill(capacityRow[k], -1);
        if (!modelled[k]) {
          column[k] = -1;
          continue;
        }
        column[k] = columns++;
        for (int i = 0; i < dims.length; i++) {
          if (kept.get(k).allocatable[i] > 0) {
            capacityRow[k][i] = rows++;
          }
        }
      }
      for (int c = 0; c < classes.size(); c++) {
        for (int k = 0; k < kept.size(); k++) {
          pairColumn[c][k] = inModel[c][k] ? columns++ : -1;
          cutRow[c][k] = inModel[c][k] && cuts[c][k] > 0 ? rows++ : -1;
        }
      }
      if ((long) rows * (columns + rows) > MAX_TABLEAU_ENTRIES) {
        return null;
      }
      double[][] a = new double[rows][columns];
      // The capacity and cut rows have a right-hand side of 0, which makes the program very
      // degenerate (the simplex stalls); a tiny, deterministic slack on each removes that and only
      // moves the multipliers, which are certified anyway.
      double[] b = new double[rows];
      for (int row = classes.size(); row < rows; row++) {
        b[row] = DEGENERACY_SLACK * (1 + (row * 0.6180339887498949) % 1);
      }
      double[] upper = new double[columns];
      Arrays.fill(upper, Double.POSITIVE_INFINITY);
      double[] price = new double[columns];
      double reward = 0;
      for (int c = 0; c < classes.size(); c++) {
        b[c] = 1;
        double[] demand = classes.get(c).demand();
        double dearest = 0;
        for (int k = 0; k < kept.size(); k++) {
          if (pairColumn[c][k] < 0) {
            continue;
          }
          Kept o = kept.get(k);
          int y = pairColumn[c][k];
          a[c][y] = 1;
          double nodes = cuts[c][k] > 0 ? 1 / cuts[c][k] : 0;
          for (int i = 0; i < dims.length; i++) {
            if (demand[i] > 0 && capacityRow[k][i] >= 0) {
              a[capacityRow[k][i]][y] = demand[i];
              nodes = Math.max(nodes, demand[i] / o.allocatable[i]);
            }
          }
          if (cutRow[c][k] >= 0) {
            a[cutRow[c][k]][y] = 1;
            a[cutRow[c][k]][column[k]] = -cuts[c][k];
          }
          dearest = Math.max(dearest, nodes * o.price());
        }
        reward += dearest;
      }
      for (int k = 0; k < kept.size(); k++) {
        if (column[k] < 0) {
          continue;
        }
        Kept o = kept.get(k);
        price[column[k]] = o.price();
        if (o.offering.bounded()) {
          upper[column[k]] = o.offering.maxCount();
        }
        for (int i = 0; i < dims.length; i++) {
          if (capacityRow[k][i] >= 0) {
            a[capacityRow[k][i]][column[k]] = -o.allocatable[i];
          }
        }
      }
      boolean[] preferred = new boolean[columns];
      for (int k = 0; k < kept.size(); k++) {
        if (column[k] >= 0 && basicOffering[k]) {
          preferred[column[k]] = true;
        }
        for (int c = 0; c < classes.size(); c++) {
          if (pairColumn[c][k] >= 0 && basicPair[c][k]) {
            preferred[pairColumn[c][k]] = true;
          }
        }
      }
      // Routing every class by its dearest pair in the model costs at most `reward`, so a reward of
      // more than that per class routed makes leaving any class short a loss; raised if it is not.
      reward = 2 * reward + 1;
      for (int attempt = 0; attempt < 3; attempt++, reward *= 100) {
        double[] objective = new double[columns];
        for (int j = 0; j < columns; j++) {
          objective[j] = -price[j];
        }
        for (int[] classColumns : pairColumn) {
          for (int y : classColumns) {
            if (y >= 0) {
              objective[y] = reward;
            }
          }
        }
        BoundedSimplex.Solution solution = BoundedSimplex.maximise(objective, a, b, upper, preferred, 20 * (rows + columns) + 1000);
        if (!solution.optimal()) {
          return null;
        }
        if (!allRouted(solution.x(), pairColumn)) {
          continue;
        }
        for (int k = 0; k < kept.size(); k++) {
          basicOffering[k] = column[k] >= 0 && solution.basic()[column[k]];
          for (int c = 0; c < classes.size(); c++) {
            basicPair[c][k] = pairColumn[c][k] >= 0 && solution.basic()[pairColumn[c][k]];
          }
        }
        double cost = 0;
        for (int k = 0; k < kept.size(); k++) {
          if (column[k] >= 0) {
            cost += price[column[k]] * solution.x()[column[k]];
          }
        }
        double[][] w = new double[kept.size()][dims.length];
        for (int k = 0; k < kept.size(); k++) {
          for (int i = 0; i < dims.length; i++) {
            if (capacityRow[k][i] >= 0) {
              w[k][i] = solution.duals()[capacityRow[k][i]];
            }
          }
        }
        double[][] zeta = new double[classes.size()][kept.size()];
        for (int c = 0; c < classes.size(); c++) {
          for (int k = 0; k < kept.size(); k++) {
            if (cutRow[c][k] >= 0) {
              zeta[c][k] = solution.duals()[cutRow[c][k]];
            }
          }
        }
        primalValue[0] = cost;
        return new Prices(w, zeta);
      }
      return null;
    }

    /** Whether every class's shares sum to 1 (up to rounding). */
    private boolean allRouted(double[] x, int[][] pairColumn) {
      for (int[] classColumns : pairColumn) {
        double routed = 0;
        for (int y : classColumns) {
          routed += y >= 0 ? x[y] : 0;
        }
        if (routed < 1 - 1e-7) {
          return false;
        }
      }
      return true;
    }

    /**
     * This round's fit cut rows: per LP class and kept offering, the coefficient {@code fit_ck /
     * podCount_c} of x_k in the row {@code y_ck - fit_ck / podCount_c * x_k <= 0}, for pairs in the
     * model with a cut, while the rows and the pairs together stay within the budget's pair limit
     * (cuts are optional: leaving one out only loosens the bound); 0 where there is no row.
     */
    private double[][] cutCoefficients() {
      double[][] cuts = new double[classes.size()][kept.size()];
      if (cutFit == null) {
        return cuts;
      }
      int rows = 0;
      for (int c = 0; c < classes.size(); c++) {
        for (int k = 0; k < kept.size(); k++) {
          if (inModel[c][k] && cutFit[c][k] > 0 && pairs + rows < budget.maxLpPairs()) {
            cuts[c][k] = (double) cutFit[c][k] / podCounts.get(c);
            rows++;
          }
        }
      }
      return cuts;
    }

    /**
     * The restricted dual objective of the prices, repaired onto the price constraints (they are
     * not changed).
     */
    private double restrictedDualValue(Prices prices, double[][] cuts) {
      double[][] w = prices.w();
      double[][] zeta = prices.zeta();
      double total = 0;
      double[] scale = new double[kept.size()];
      for (int k = 0; k < kept.size(); k++) {
        if (!modelled[k]) {
          continue;
        }
        Kept o = kept.get(k);
        double spent = dot(o.allocatable, w[k]);
        for (int c = 0; c < classes.size(); c++) {
          spent += cuts[c][k] * zeta[c][k];
        }
        scale[k] = 1;
        if (o.offering.bounded()) {
          total -= Math.max(0, spent - o.price()) * o.offering.maxCount();
        } else if (spent > o.price()) {
          scale[k] = o.price() / spent;
        }
      }
      for (int c = 0; c < classes.size(); c++) {
        double least = Double.POSITIVE_INFINITY;
        for (int k = 0; k < kept.size(); k++) {
          if (inModel[c][k]) {
            least = Math.min(least, (dot(classes.get(c).demand(), w[k]) + zeta[c][k]) * scale[k]);
          }
        }
        total += least;
      }
      return total;
    }

    /**
     * Solves the primal LP restricted to the offerings and pairs in the model (its dual is the dual
     * LP restricted the same way: w may violate left-out pairs, which the next round adds) and
     * returns the multipliers of its capacity rows as w (zero outside the model), or null when ojAlgo
     * finds no optimum or reports no multipliers. The primal has a row per class and per modelled
     * offering and resource, far fewer than the dual's row per pair, which is what ojAlgo's dense
     * simplex pays for: on 40 classes it is about 20 times faster.
     */
    private Prices solveRestrictedPrimal(double[][] cuts, Optimisation.Result[] resultOut) {
      ExpressionsBasedModel model = LinearModels.newModel();
      configure(model);
      Expression[] routed = new Expression[classes.size()];
      for (int c = 0; c < classes.size(); c++) {
        routed[c] = model.newExpression("c" + c).lower(1);
      }
      boolean[][] hasRow = new boolean[kept.size()][dims.length];
      for (int k = 0; k < kept.size(); k++) {
        if (!modelled[k]) {
          continue;
        }
        Kept o = kept.get(k);
        Variable nodes = model.newVariable("x" + k).lower(0).weight(o.price());
        if (o.offering.bounded()) {
          nodes.upper(o.offering.maxCount());
        }
        Expression[] capacity = new Expression[dims.length];
        for (int i = 0; i < dims.length; i++) {
          if (o.allocatable[i] > 0) {
            capacity[i] = model.newExpression(capacityRow(k, i)).upper(0);
            capacity[i].set(nodes, -o.allocatable[i]);
            hasRow[k][i] = true;
          }
        }
        for (int c = 0; c < classes.size(); c++) {
          if (inModel[c][k]) {
            Variable share = model.newVariable("y" + c + "_" + k).lower(0);
            routed[c].set(share, 1);
            double[] demand = classes.get(c).demand();
            for (int i = 0; i < dims.length; i++) {
              // Without a row (k has none of resource i, which exact classes using k do not
              // request), the demand goes unchecked: that only relaxes.
              if (demand[i] > 0 && capacity[i] != null) {
                capacity[i].set(share, demand[i]);
              }
            }
            if (cuts[c][k] > 0) {
              Expression cut = model.newExpression(cutRow(c, k)).upper(0);
              cut.set(share, 1);
              cut.set(nodes, -cuts[c][k]);
            }
          }
        }
      }
      Optimisation.Result result = model.minimise();
      resultOut[0] = result;
      if (!result.getState().isOptimal()) {
        return null;
      }
      Map<String, Double> multipliers = new HashMap<>();
      for (var entry : result.getMatchedMultipliers()) {
        multipliers.merge(entry.getKey().first().getName(), entry.getValue().doubleValue(), Double::sum);
      }
      double[][] prices = new double[kept.size()][dims.length];
      for (int k = 0; k < kept.size(); k++) {
        for (int i = 0; i < dims.length; i++) {
          if (hasRow[k][i]) {
            // The multiplier of a capacity row is w up to ojAlgo's sign convention.
            prices[k][i] = Math.abs(multipliers.getOrDefault(capacityRow(k, i), 0.0));
          }
        }
      }
      double[][] zeta = new double[classes.size()][kept.size()];
      for (int c = 0; c < classes.size(); c++) {
        for (int k = 0; k < kept.size(); k++) {
          if (cuts[c][k] > 0) {
            zeta[c][k] = Math.abs(multipliers.getOrDefault(cutRow(c, k), 0.0));
          }
        }
      }
      return new Prices(prices, zeta);
    }

    private static String capacityRow(int k, int i) {
      return "r" + k + "_" + i;
    }

    private static String cutRow(int c, int k) {
      return "f" + c + "_" + k;
    }

    private static void configure(ExpressionsBasedModel model) {
      // The primal simplex is several times faster than ojAlgo's default on these models.
      model.options.linear(new LinearSolver.Configuration().primal());
    }

    /**
     * Solves the dual LP restricted to the offerings and pairs in the model (a relaxation of the
     * dual: its w may violate left-out pairs, which the next round adds) and returns its w (zero
     * outside the model), or null when ojAlgo finds no optimum.
     */
    private Prices solveRestrictedDual(double[][] cuts) {
      ExpressionsBasedModel model = LinearModels.newModel();
      configure(model);
      Variable[] u = new Variable[classes.size()];
      for (int c = 0; c < u.length; c++) {
        u[c] = model.newVariable("u" + c).weight(1);
      }
      Variable[][] w = new Variable[kept.size()][];
      Variable[][] zeta = new Variable[classes.size()][kept.size()];
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
            if (cuts[c][k] > 0) {
              zeta[c][k] = model.newVariable("z" + c + "_" + k).lower(0);
              pair.set(zeta[c][k], -1);
              budget.set(zeta[c][k], cuts[c][k]);
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
      double[][] cutPrices = new double[classes.size()][kept.size()];
      for (int c = 0; c < classes.size(); c++) {
        for (int k = 0; k < kept.size(); k++) {
          if (zeta[c][k] != null) {
            cutPrices[c][k] = result.doubleValue(model.indexOf(zeta[c][k]));
          }
        }
      }
      return new Prices(prices, cutPrices);
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
