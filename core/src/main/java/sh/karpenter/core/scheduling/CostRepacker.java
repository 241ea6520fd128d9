package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.lp.BoundedSimplex;

/**
 * Packs unconstrained pods onto instance types for cost: given pods that may go to any node of one
 * template, chooses nodes (an instance type each, and the pods it carries) whose summed price is low.
 * The scheduler's first-fit pass grows a NodeClaim until no option has room, which drifts onto the
 * largest and often dearest types; {@link Scheduler} re-plans such NodeClaims with this packer.
 *
 * <p>How: pods of one shape form one class with a count. Two packings are built and the cheaper
 * kept. The greedy one values each pod at what it costs running alone (price of the cheapest type
 * per pod by dominant resource share) and launches, one at a time, the node of a short-listed type
 * with the lowest price per worth carried, which rewards nodes where complementary shapes
 * (cpu-heavy with memory-heavy) share the bill. The pattern one (up to {@link #MAX_PATTERN_CLASSES}
 * shapes) solves the cutting-stock LP over node patterns by column generation: its duals price the
 * classes, new patterns come from greedy and knapsack-LP fills of each type at those prices, its
 * counts are rounded down and launched, and the few pods left are packed greedily. A step costs
 * types x shapes, not types x pods.
 *
 * <p>The work is bounded: the packer counts its steps (a class looked at while filling a node, a
 * comparison while sorting, a type checked, an LP coefficient) against a budget proportional to the
 * input ({@link RepackBudget}), so a plan of the same input is the same on every run. Past the
 * budget it stops improving: a finished greedy packing is kept without the pattern one, and without
 * a finished greedy packing the caller keeps first fit's plan ({@link Packing#outOfBudget()}). The
 * greedy packing sorts each type's classes densest first once, as the classes' worth stays fixed
 * while it runs.
 */
final class CostRepacker {
  /** Short-listed types per step, most efficient at the LP's resource prices first. */
  private static final int SHORTLIST = 12;

  /** A node to launch: an index into the types given and how many pods of each class it carries. */
  record Node(int type, int[] podsPerClass) {}

  /**
   * The outcome: the nodes, per class the indices of its pods (into the requests given), and the
   * summed price of the nodes' types; {@code nodes} is null when no packing placing every pod was
   * finished. {@code outOfBudget} says the step budget ran out first, so a packing (or a cheaper one)
   * was not looked for to the end.
   */
  record Packing(List<Node> nodes, List<int[]> classMembers, double price, boolean outOfBudget, long steps) {}

  private final long[][] classRequests;
  private final int[] remaining;
  private final List<int[]> classMembers;
  /** [type][dimension] what each type offers pods, restricted to the dimensions some pod requests. */
  private final long[][] capacity;
  private final double[] price;
  private final int[] dims;
  /** Per class, what one pod is worth: its cost running alone. */
  private double[] worth;
  /** Dimension weightings of the weighted fill modes (see {@link #shareWeights()}). */
  private final double[][] shareWeights;
  /** The steps this packing may take. */
  private final RepackBudget budget;
  /** How many ways {@link #fillNode} may fill a node when pricing patterns. */
  private final int fillModes;
  /**
   * Per type, its classes densest first by dominant share ({@link #densestFirst} of modes 0 and 1),
   * kept while {@link #worth} does not change: during a greedy packing, and during a round of {@link
   * #solvePatterns} (cleared when the next round's duals change the worth); null otherwise.
   */
  private Map<Integer, int[]> dominantOrders;
  /**
   * Whether a reused order charges the budget what its sort would have: pattern rounds do, so that
   * their budget runs out where it did when every fill sorted; greedy packings never charged.
   */
  private boolean chargeReusedOrders;
  /**
   * Per type, each class's share of it as fill modes 0 and 1 take it, and as the other modes do
   * ({@link #sharesOf}), computed when first needed: shares do not depend on {@link #worth}, which
   * changes with every pattern round. Only pattern rounds use the other modes.
   */
  private final double[][] dominantShares;
  private final double[][][] otherShares;
  /** The order {@link #densestFirst} returned last, and its type: the start of the next sort. */
  private int[] lastOrder;
  private int lastOrderType = -1;

  /**
   * @param podRequests per pod, its requests by resource index
   * @param capacity per type, what it offers pods by resource index (allocatable minus DaemonSets)
   * @param price per type, its cheapest available offering's hourly price
   */
  private CostRepacker(List<long[]> podRequests, long[][] capacity, double[] price, long maxSteps) {
    this.budget = new RepackBudget(maxSteps);
    int dimensions = capacity.length == 0 ? 0 : capacity[0].length;
    long[] demand = new long[dimensions];
    Map<Shape, List<Integer>> byShape = new LinkedHashMap<>();
    for (int p = 0; p < podRequests.size(); p++) {
      long[] requests = podRequests.get(p);
      byShape.computeIfAbsent(new Shape(requests), s -> new ArrayList<>()).add(p);
      for (int d = 0; d < dimensions; d++) {
        demand[d] += requests[d];
      }
    }
    this.dims = java.util.stream.IntStream.range(0, dimensions).filter(d -> demand[d] > 0).toArray();
    this.classRequests = new long[byShape.size()][];
    this.remaining = new int[byShape.size()];
    this.classMembers = new ArrayList<>(byShape.size());
    int c = 0;
    for (Map.Entry<Shape, List<Integer>> entry : byShape.entrySet()) {
      classRequests[c] = restrict(entry.getKey().requests());
      remaining[c] = entry.getValue().size();
      classMembers.add(entry.getValue().stream().mapToInt(Integer::intValue).toArray());
      c++;
    }
    this.capacity = new long[capacity.length][];
    for (int t = 0; t < capacity.length; t++) {
      this.capacity[t] = restrict(capacity[t]);
    }
    this.price = price;
    this.shareWeights = shareWeights();
    this.fillModes = 3 + shareWeights.length;
    this.dominantShares = new double[capacity.length][];
    this.otherShares = new double[capacity.length][][];
  }

  /** Identical requests make one class. */
  private record Shape(long[] requests) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Shape s && Arrays.equals(requests, s.requests);
    }

    @Override
    public int hashCode() {
      return Arrays.hashCode(requests);
    }
  }

  private long[] restrict(long[] vector) {
    long[] restricted = new long[dims.length];
    for (int i = 0; i < dims.length; i++) {
      restricted[i] = vector[dims[i]];
    }
    return restricted;
  }

  /**
   * Packs the pods, or returns null when it cannot place them all (some pod fits no type) or the LP
   * gives no resource prices.
   *
   * @param podRequests per pod, its requests by resource index
   * @param capacity per type, what it offers pods by resource index; types that may not be used are
   *     left out by an infinite price
   * @param price per type, the hourly price of its cheapest available offering
   */
  static Packing pack(List<long[]> podRequests, long[][] capacity, double[] price) {
    return pack(podRequests, capacity, price, RepackBudget.forPods(podRequests.size()));
  }

  /** {@link #pack} within {@code maxSteps} steps. */
  static Packing pack(List<long[]> podRequests, long[][] capacity, double[] price, long maxSteps) {
    CostRepacker packer = new CostRepacker(podRequests, capacity, price, maxSteps);
    List<Node> best = null;
    boolean outOfBudget = false;
    try {
      List<Integer> efficient = packer.undominatedTypes();
      if (efficient.isEmpty() || !packer.priceClasses(efficient)) {
        return null;
      }
      int[] initial = packer.remaining.clone();
      best = packer.packGreedily(efficient);
      if (packer.classRequests.length <= MAX_PATTERN_CLASSES) {
        if (packer.budget.left() < PATTERN_MIN_ROUNDS * packer.pricingRoundSteps(efficient.size())) {
          outOfBudget = true; // the pattern LP would run out: the greedy packing is kept, as when it does
        } else {
          System.arraycopy(initial, 0, packer.remaining, 0, initial.length);
          List<Node> byPatterns = packer.packByPatterns(efficient);
          if (byPatterns != null && (best == null || packer.priceOf(byPatterns) < packer.priceOf(best))) {
            best = byPatterns;
          }
        }
      }
    } catch (RepackBudget.Exhausted e) {
      outOfBudget = true;
    }
    if (best == null && !outOfBudget) {
      return null;
    }
    return new Packing(best, packer.classMembers, best == null ? Double.POSITIVE_INFINITY : packer.priceOf(best), outOfBudget, packer.budget.steps());
  }

  /**
   * A price no packing of the pods onto the types goes below: the larger of the dearest "cheapest
   * type holding this pod alone" over the pods (some node must carry each pod; a type holds a pod
   * when it offers at least what the pod requests of each resource it requests) and, per requested
   * resource, the demand at the lowest price per unit any type offers (the nodes together must offer
   * the demand). It bounds any set of nodes whose types each hold their pods, not only the packings
   * {@link #pack} finds, which lets a caller skip packing when the pods are already placed at this
   * price: for a single pod the bound is the cheapest type holding it. Positive infinity when some
   * pod fits no priced type.
   *
   * @param podRequests per pod, its requests by resource index
   * @param capacity per type, what it offers pods by resource index
   * @param price per type, its hourly price (infinite for types that may not be used)
   */
  static double lowerBound(List<long[]> podRequests, long[][] capacity, double[] price) {
    int dimensions = capacity.length == 0 ? 0 : capacity[0].length;
    long[] demand = new long[dimensions];
    Set<Shape> shapes = new HashSet<>();
    double bound = 0;
    for (long[] requests : podRequests) {
      for (int d = 0; d < dimensions; d++) {
        demand[d] += requests[d];
      }
      if (!shapes.add(new Shape(requests))) {
        continue;
      }
      double cheapest = Double.POSITIVE_INFINITY;
      for (int t = 0; t < capacity.length; t++) {
        if (price[t] < cheapest && holds(capacity[t], requests)) {
          cheapest = price[t];
        }
      }
      bound = Math.max(bound, cheapest);
    }
    for (int d = 0; d < dimensions; d++) {
      if (demand[d] <= 0) {
        continue;
      }
      double perUnit = Double.POSITIVE_INFINITY;
      for (int t = 0; t < capacity.length; t++) {
        if (capacity[t][d] > 0 && Double.isFinite(price[t])) {
          perUnit = Math.min(perUnit, price[t] / capacity[t][d]);
        }
      }
      bound = Math.max(bound, demand[d] * perUnit);
    }
    return bound;
  }

  /** Whether a type offers at least the requests in every resource they request (others are not looked at). */
  private static boolean holds(long[] capacity, long[] requests) {
    for (int d = 0; d < requests.length; d++) {
      if (requests[d] > 0 && capacity[d] < requests[d]) {
        return false;
      }
    }
    return true;
  }

  private double priceOf(List<Node> nodes) {
    double total = 0;
    for (Node node : nodes) {
      total += price[node.type()];
    }
    return total;
  }

  /**
   * Pod shapes beyond which the pattern LP is not tried: an LP over more classes takes too long for
   * a scheduling pass (the same size as the lower bound's default LP class limit, {@code
   * cost.BoundBudget}, which this package must not depend on: the bound reads scheduling inputs).
   */
  private static final int MAX_PATTERN_CLASSES = 40;

  /**
   * Pricing rounds ({@link #pricingRoundSteps}) the steps left after the greedy packing must pay for
   * before the pattern LP starts; with fewer it is not started, and the packing is the greedy one,
   * out of budget, as when the LP starts and runs out. On the scenario runner's clusters
   * (constrained, cost and diverse mixes) and the 5,000-pod cluster of BENCHMARKS.md, every pattern
   * LP that finished had at least 57 rounds' steps left when it started (and took 1 to 43 rounds'
   * worth, medians 10 and 14), and every one that ran out had at most 16 left: mostly the re-plans
   * of a zone's pods of 40 shapes (20 million steps), where starting it cost a cold 5,000-pod plan a
   * sixth of its time and changed nothing.
   */
  private static final int PATTERN_MIN_ROUNDS = 20;

  /**
   * About the steps of one column-generation round: per type, each fill mode's densest-first sort and
   * fill, and the knapsack LP.
   */
  private long pricingRoundSteps(int types) {
    return types * (fillModes * (densestFirstSteps() + classScanSteps()) + LP_STEPS_PER_ENTRY * classScanSteps());
  }

  /** Times the pattern LP is solved again on the pods its rounded-down solution left. */
  private static final int PATTERN_ROUNDS = 4;

  /** Column-generation rounds per pattern LP. */
  private static final int PATTERN_ITERATIONS = 40;

  /** New patterns added per column-generation round, those worth most per dollar first. */
  private static final int PATTERNS_PER_ITERATION = 16;

  /**
   * Packs by the pattern LP (Gilmore and Gomory's cutting-stock relaxation): a pattern is one node
   * of a type and how many pods of each class it carries; the LP buys fractional numbers of
   * patterns covering every pod at least cost, and new patterns are priced from its duals (what a
   * pod of each class is worth at the optimum), filled greedily per type. The LP's pattern counts
   * are rounded down and launched, the LP is solved again on the pods left, and the last few pods
   * are packed greedily, valued at the LP's duals or at their cost alone, whichever packs cheaper.
   * Null when the LP fails or some pod cannot be placed.
   */
  private List<Node> packByPatterns(List<Integer> types) {
    double[] alone = worth.clone();
    List<Node> nodes = new ArrayList<>();
    double[] duals = null;
    for (int round = 0; round < PATTERN_ROUNDS && Arrays.stream(remaining).sum() > 0; round++) {
      PatternSolution solution = solvePatterns(types, alone);
      if (solution == null) {
        break;
      }
      duals = solution.duals();
      boolean launched = false;
      for (int p = 0; p < solution.patterns().size(); p++) {
        Node pattern = solution.patterns().get(p);
        for (long k = (long) Math.floor(solution.counts()[p] + 1e-7); k > 0; k--) {
          budget.charge(remaining.length);
          Node node = take(pattern);
          if (node == null) {
            break;
          }
          nodes.add(node);
          launched = true;
        }
      }
      if (!launched) {
        break;
      }
    }
    if (Arrays.stream(remaining).sum() > 0) {
      int[] left = remaining.clone();
      List<Node> rest = packGreedily(types);
      if (duals != null) {
        int[] afterAlone = remaining.clone();
        System.arraycopy(left, 0, remaining, 0, left.length);
        for (int c = 0; c < worth.length; c++) {
          worth[c] = duals[c] + 1e-3 * alone[c];
        }
        List<Node> byDuals = packGreedily(types);
        worth = alone;
        if (byDuals != null && (rest == null || priceOf(byDuals) < priceOf(rest))) {
          rest = byDuals;
        } else {
          System.arraycopy(afterAlone, 0, remaining, 0, left.length);
        }
      }
      if (rest == null) {
        return null;
      }
      nodes.addAll(rest);
    }
    return nodes;
  }

  /** A node carrying what is left of the pattern's pods (taken from {@link #remaining}), or null when none is. */
  private Node take(Node pattern) {
    int[] pods = new int[remaining.length];
    boolean any = false;
    for (int c = 0; c < pods.length; c++) {
      pods[c] = Math.min(pattern.podsPerClass()[c], remaining[c]);
      remaining[c] -= pods[c];
      any |= pods[c] > 0;
    }
    return any ? new Node(pattern.type(), pods) : null;
  }

  /** The pattern LP's patterns, their (fractional) counts, and the duals of its class rows. */
  private record PatternSolution(List<Node> patterns, double[] counts, double[] duals) {}

  /**
   * Solves the pattern LP over the pods left by column generation; null when the solve finds no
   * optimum. Starts from each type's greedy fills and, per class, a node of the type cheapest for it.
   */
  private PatternSolution solvePatterns(List<Integer> types, double[] alone) {
    return withDominantOrders(true, () -> solvePatternsWithOrders(types, alone));
  }

  private PatternSolution solvePatternsWithOrders(List<Integer> types, double[] alone) {
    List<Node> patterns = new ArrayList<>();
    Set<PatternKey> seen = new HashSet<>();
    int[] fill = new int[remaining.length];
    for (int t : types) {
      for (int mode = 0; mode < 3; mode++) {
        if (fillNode(t, mode, fill) > 0) {
          addPattern(patterns, seen, t, fill);
        }
      }
    }
    for (int c = 0; c < remaining.length; c++) {
      if (remaining[c] == 0) {
        continue;
      }
      budget.charge((long) types.size() * dims.length);
      int bestType = -1;
      double bestCost = Double.MAX_VALUE;
      for (int t : types) {
        int count = Math.min(remaining[c], fitting(classRequests[c], capacity[t]));
        if (count > 0 && price[t] / count < bestCost) {
          bestCost = price[t] / count;
          bestType = t;
        }
      }
      if (bestType < 0) {
        return null;
      }
      Arrays.fill(fill, 0);
      fill[c] = Math.min(remaining[c], fitting(classRequests[c], capacity[bestType]));
      addPattern(patterns, seen, bestType, fill);
    }
    double[] duals = null;
    // The last solve and the number of patterns it saw: when no round adds a pattern after it, its
    // multipliers are already the pattern counts (the LP is solved in its dual form).
    BoundedSimplex.Solution last = null;
    int lastPatterns = -1;
    try {
      for (int iteration = 0; iteration < PATTERN_ITERATIONS; iteration++) {
        last = solvePatternLp(patterns);
        lastPatterns = patterns.size();
        if (last == null) {
          return null;
        }
        duals = last.x();
        for (int c = 0; c < worth.length; c++) {
          worth[c] = duals[c];
        }
        dominantOrders.clear();
        List<Node> violated = new ArrayList<>();
        List<Double> gain = new ArrayList<>();
        for (int t : types) {
          for (int mode = 0; mode <= fillModes; mode++) {
            if (mode == fillModes && knapsackUpperBound(t) <= price[t] * (1 + 1e-6)) {
              continue;
            }
            double value = mode == fillModes ? fillByKnapsackLp(t, fill) : fillNode(t, mode, fill);
            if (value > price[t] * (1 + 1e-6) && !seen.contains(new PatternKey(t, fill))) {
              violated.add(new Node(t, fill.clone()));
              gain.add(value / price[t]);
            }
          }
        }
        if (violated.isEmpty()) {
          break;
        }
        Integer[] order = new Integer[violated.size()];
        for (int i = 0; i < order.length; i++) {
          order[i] = i;
        }
        Arrays.sort(order, Comparator.<Integer>comparingDouble(i -> -gain.get(i)).thenComparingInt(i -> i));
        for (int i = 0; i < Math.min(PATTERNS_PER_ITERATION, order.length); i++) {
          Node node = violated.get(order[i]);
          addPattern(patterns, seen, node.type(), node.podsPerClass());
        }
      }
    } finally {
      worth = alone;
    }
    if (lastPatterns != patterns.size()) {
      last = solvePatternLp(patterns);
    }
    return last == null ? null : new PatternSolution(patterns, last.duals(), duals);
  }

  /** A pattern's identity: its type and pods per class (compared by content; {@code pods} is not copied). */
  private record PatternKey(int type, int[] pods) {
    @Override
    public boolean equals(Object other) {
      return other instanceof PatternKey key && key.type == type && Arrays.equals(key.pods, pods);
    }

    @Override
    public int hashCode() {
      return 31 * type + Arrays.hashCode(pods);
    }
  }

  private static void addPattern(List<Node> patterns, Set<PatternKey> seen, int type, int[] pods) {
    int[] copy = pods.clone();
    if (seen.add(new PatternKey(type, copy))) {
      patterns.add(new Node(type, copy));
    }
  }

  /**
   * The pattern LP (min sum_p price_p x_p, sum_p a_pc x_p >= left_c, x >= 0) solved in its dual form,
   * max sum_c left_c z_c, sum_c a_pc z_c <= price_p per pattern, z >= 0: the solution's x are the
   * class duals z, its row multipliers the pattern counts. Null without an optimum.
   */
  private BoundedSimplex.Solution solvePatternLp(List<Node> patterns) {
    budget.charge(LP_STEPS_PER_ENTRY * patterns.size() * (long) remaining.length);
    double[] left = new double[remaining.length];
    for (int c = 0; c < left.length; c++) {
      left[c] = remaining[c];
    }
    double[][] rows = new double[patterns.size()][left.length];
    double[] prices = new double[patterns.size()];
    for (int p = 0; p < patterns.size(); p++) {
      Node pattern = patterns.get(p);
      prices[p] = price[pattern.type()];
      for (int c = 0; c < left.length; c++) {
        rows[p][c] = pattern.podsPerClass()[c];
      }
    }
    double[] free = new double[left.length];
    Arrays.fill(free, Double.POSITIVE_INFINITY);
    BoundedSimplex.Solution result = BoundedSimplex.maximise(left, rows, prices, free, pivotLimit(rows.length, left.length));
    return result.optimal() ? result : null;
  }

  /** Pivots a solve of the post-pass may take: far more than these programs need, a guard only. */
  private static int pivotLimit(int rows, int columns) {
    return 50 * (rows + columns) + 1000;
  }

  /**
   * Steps an LP solve is charged per coefficient of its matrix (rows x columns): a simplex solve takes
   * some pivots, each passing over the matrix.
   */
  private static final long LP_STEPS_PER_ENTRY = 20;

  /**
   * Usable types (priced, DaemonSets leaving room) no cheaper-or-equal type beats in every requested
   * dimension, cheapest first.
   */
  private List<Integer> undominatedTypes() {
    List<Integer> usable = new ArrayList<>();
    for (int t = 0; t < price.length; t++) {
      if (Double.isFinite(price[t]) && price[t] > 0 && ResourceVectors.isNonNegative(capacity[t])) {
        usable.add(t);
      }
    }
    // cheapest first, ties by index (plain keys: a stream per type and a chain of Comparator
    // combinators were most of this on a short run's cold JVM)
    usable.sort(
        (a, b) -> {
          int byPrice = Double.compare(price[a], price[b]);
          return byPrice != 0 ? byPrice : Integer.compare(a, b);
        });
    List<Integer> kept = new ArrayList<>();
    for (int t : usable) {
      budget.charge(1 + (long) kept.size() * dims.length);
      boolean dominated = false;
      for (int k : kept) {
        if (covers(capacity[k], capacity[t])) {
          dominated = true;
          break;
        }
      }
      if (!dominated) {
        kept.add(t);
      }
    }
    return kept;
  }

  private static boolean covers(long[] larger, long[] smaller) {
    for (int i = 0; i < larger.length; i++) {
      if (larger[i] < smaller[i]) {
        return false;
      }
    }
    return true;
  }

  /**
   * What each class's pods are worth: the least a pod of it costs running alone, packed by its
   * dominant resource on the type cheapest for it ({@code min_t price_t x max_r requests_r /
   * capacity_tr} over the types that hold one pod). False when some class fits no type.
   */
  private boolean priceClasses(List<Integer> types) {
    worth = new double[classRequests.length];
    for (int c = 0; c < classRequests.length; c++) {
      budget.charge((long) types.size() * dims.length);
      double cheapest = Double.MAX_VALUE;
      for (int t : types) {
        double share = dominantShare(classRequests[c], capacity[t]);
        if (share <= 1) {
          cheapest = Math.min(cheapest, price[t] * share);
        }
      }
      if (cheapest == Double.MAX_VALUE) {
        return false;
      }
      worth[c] = cheapest;
    }
    return true;
  }

  /** The largest fraction of the capacity the requests take in any dimension. */
  private static double dominantShare(long[] requests, long[] capacity) {
    double share = 0;
    for (int i = 0; i < requests.length; i++) {
      if (requests[i] > 0) {
        share = capacity[i] == 0 ? Double.MAX_VALUE : Math.max(share, (double) requests[i] / capacity[i]);
      }
    }
    return share;
  }

  /** The types whose best fill of one node from the pods left costs least per worth carried. */
  private List<Integer> shortlist(List<Integer> types, int[] fill) {
    Map<Integer, Double> score = new HashMap<>();
    for (int t : types) {
      double carried = Math.max(fillNode(t, 0, fill), fillNode(t, 1, fill));
      score.put(t, carried <= 0 ? Double.MAX_VALUE : price[t] / carried);
    }
    budget.charge(RepackBudget.sortSteps(types.size()));
    List<Integer> sorted = new ArrayList<>(types);
    sorted.sort(Comparator.<Integer>comparingDouble(score::get).thenComparingDouble(t -> price[t]));
    return sorted.subList(0, Math.min(SHORTLIST, sorted.size()));
  }

  /**
   * Launches, one at a time, the candidate node that costs least per worth carried; the short list
   * is drawn again each time the pods left have halved, as the mix left changes.
   */
  private List<Node> packGreedily(List<Integer> efficient) {
    // Worth stays fixed while packing greedily, so each type's densest-first order is sorted once.
    return withDominantOrders(false, () -> packGreedilyWithOrders(efficient));
  }

  /** Runs {@code work} with {@link #dominantOrders} kept (see {@link #chargeReusedOrders}). */
  private <T> T withDominantOrders(boolean chargeReuse, java.util.function.Supplier<T> work) {
    dominantOrders = new HashMap<>();
    chargeReusedOrders = chargeReuse;
    try {
      return work.get();
    } finally {
      dominantOrders = null;
    }
  }

  private List<Node> packGreedilyWithOrders(List<Integer> efficient) {
    List<Node> nodes = new ArrayList<>();
    int left = Arrays.stream(remaining).sum();
    int[] fill = new int[classRequests.length];
    List<Integer> shortlist = shortlist(efficient, fill);
    int leftAtShortlist = left;
    while (left > 0) {
      if (left <= leftAtShortlist / 2) {
        shortlist = shortlist(efficient, fill);
        leftAtShortlist = left;
      }
      List<Integer> candidates = new ArrayList<>(shortlist);
      int holdsAll = cheapestHoldingAll(efficient);
      if (holdsAll >= 0) {
        candidates.add(holdsAll);
      }
      Node best = bestNode(candidates, fill);
      if (best == null) {
        best = bestNode(cheapestFittingEachClass(efficient), fill);
        if (best == null) {
          return null;
        }
      }
      budget.charge(remaining.length);
      for (int c = 0; c < remaining.length; c++) {
        remaining[c] -= best.podsPerClass()[c];
        left -= best.podsPerClass()[c];
      }
      nodes.add(best);
    }
    return nodes;
  }

  /** The node with the lowest price per worth carried among the candidates, or null when none carries a pod. */
  private Node bestNode(List<Integer> candidates, int[] fill) {
    Node best = null;
    double bestScore = Double.MAX_VALUE;
    for (int t : candidates) {
      for (int mode = 0; mode < 2; mode++) {
        double carried = fillNode(t, mode, fill);
        if (carried <= 0) {
          continue;
        }
        double score = price[t] / carried;
        if (score < bestScore) {
          budget.charge(fill.length);
          bestScore = score;
          best = new Node(t, fill.clone());
        }
      }
    }
    return best;
  }

  /**
   * Fills one node of type t into {@code fill} (pods per class) and returns the worth carried. The
   * classes are taken densest first (worth per share of t), each as many as fit; the share is the
   * dominant one (mode 0), the summed one (mode 2) or a weighted sum ({@code mode - 3} indexes
   * {@link #shareWeights}); mode 1 first takes the largest equal slice of every class's remaining
   * pods that fits, then tops up like mode 0.
   */
  private double fillNode(int t, int mode, int[] fill) {
    long[] room = capacity[t].clone();
    Arrays.fill(fill, 0);
    if (mode == 1 && someSliceFits(room)) {
      budget.charge(SLICE_SEARCH_STEPS * classScanSteps());
      double low = 0;
      double high = 1;
      for (int step = 0; step < SLICE_SEARCH_STEPS; step++) {
        double mid = (low + high) / 2;
        if (sliceFits(mid, room)) {
          low = mid;
        } else {
          high = mid;
        }
      }
      for (int c = 0; c < remaining.length; c++) {
        fill[c] = (int) (low * remaining[c]); // >= 0, so the cast is the floor (see sliceFits)
        for (int i = 0; i < room.length; i++) {
          room[i] -= fill[c] * classRequests[c][i];
        }
      }
    }
    return topUpDensestFirst(t, mode, fill, room);
  }

  /**
   * Adds to {@code fill} as many more pods of each class as still fit in {@code room}, densest class
   * first (worth per share of type t, the share as {@link #fillNode}'s {@code mode} takes it; ties by
   * class index, so the result is deterministic); returns the worth {@code fill} carries.
   */
  private double topUpDensestFirst(int t, int mode, int[] fill, long[] room) {
    int[] order;
    if (mode <= 1 && dominantOrders != null) {
      order = dominantOrders.get(t);
      if (order == null) {
        order = densestFirst(t, mode);
        dominantOrders.put(t, order);
      } else if (chargeReusedOrders) {
        budget.charge(densestFirstSteps());
      }
    } else {
      order = densestFirst(t, mode);
    }
    budget.charge(classScanSteps());
    double carried = 0;
    for (int c : order) {
      int count = remaining[c] == fill[c] ? 0 : Math.min(remaining[c] - fill[c], fitting(classRequests[c], room));
      if (count > 0) {
        fill[c] += count;
        for (int i = 0; i < room.length; i++) {
          room[i] -= count * classRequests[c][i];
        }
      }
      carried += fill[c] * worth[c];
    }
    return carried;
  }

  /**
   * The classes, densest first for type t: worth per share of t, the share as {@link #fillNode}'s
   * {@code mode} takes it; ties by class index, so the order is deterministic. Consecutive calls for
   * one type (the fill modes of a pricing round, whose weightings differ a little from one mode to
   * the next) sort by insertion from the previous order, which is nearly sorted already; the result
   * is the same total order either way.
   */
  private int[] densestFirst(int t, int mode) {
    budget.charge(densestFirstSteps());
    double[] share = sharesOf(t, mode);
    double[] key = new double[remaining.length];
    for (int c = 0; c < key.length; c++) {
      key[c] = -(share[c] == 0 ? 0 : worth[c] / share[c]);
    }
    int[] order;
    if (lastOrderType == t && key.length <= INSERTION_SORT_CLASSES) {
      order = IndexSort.ascendingFrom(lastOrder, key);
    } else {
      order = IndexSort.ascending(key);
    }
    lastOrder = order;
    lastOrderType = t;
    return order;
  }

  /** Classes up to which {@link #densestFirst} sorts by insertion from the previous order. */
  private static final int INSERTION_SORT_CLASSES = 64;

  /**
   * Each class's share of type t as fill mode {@code mode} takes it (modes 0 and 1: the dominant
   * share), computed once per type and mode.
   */
  private double[] sharesOf(int t, int mode) {
    if (mode <= 1) {
      if (dominantShares[t] == null) {
        dominantShares[t] = new double[remaining.length];
        for (int c = 0; c < remaining.length; c++) {
          dominantShares[t][c] = dominantShare(classRequests[c], capacity[t]);
        }
      }
      return dominantShares[t];
    }
    if (otherShares[t] == null) {
      otherShares[t] = new double[fillModes - 2][];
    }
    double[] share = otherShares[t][mode - 2];
    if (share == null) {
      share = new double[remaining.length];
      for (int c = 0; c < share.length; c++) {
        share[c] = summedShare(classRequests[c], capacity[t], mode == 2 ? null : shareWeights[mode - 3]);
      }
      otherShares[t][mode - 2] = share;
    }
    return share;
  }

  private long densestFirstSteps() {
    return classScanSteps() + RepackBudget.sortSteps(remaining.length);
  }

  /** Steps of one pass over the classes, looking at each dimension of each. */
  private long classScanSteps() {
    return (long) remaining.length * (dims.length + 1);
  }

  /**
   * Fills one node of type t into {@code fill} from the knapsack LP (most worth in one node, pods
   * counted fractionally), rounded down and topped up densest first; returns the worth carried, or
   * 0 when the solve finds no optimum. With several binding resources this finds the mixes the greedy
   * fills miss, e.g. memory-heavy pods leaving just the room cpu-heavy ones need.
   */
  private double fillByKnapsackLp(int t, int[] fill) {
    budget.charge(LP_STEPS_PER_ENTRY * classScanSteps());
    Arrays.fill(fill, 0);
    double[] upper = new double[remaining.length];
    boolean any = false;
    for (int c = 0; c < upper.length; c++) {
      upper[c] = Math.min(remaining[c], fitting(classRequests[c], capacity[t]));
      any |= upper[c] > 0 && worth[c] > 0;
    }
    if (!any) {
      return 0;
    }
    double[][] shares = new double[dims.length][remaining.length];
    double[] ones = new double[dims.length];
    Arrays.fill(ones, 1);
    for (int i = 0; i < dims.length; i++) {
      for (int c = 0; c < upper.length; c++) {
        // a class asking for what t lacks has an upper bound of 0 already: no row entry (no 1/0)
        if (classRequests[c][i] > 0 && capacity[t][i] > 0) {
          shares[i][c] = (double) classRequests[c][i] / capacity[t][i];
        }
      }
    }
    BoundedSimplex.Solution result = BoundedSimplex.maximise(worth, shares, ones, upper, pivotLimit(dims.length, upper.length));
    if (!result.optimal()) {
      return 0;
    }
    long[] room = capacity[t].clone();
    for (int c = 0; c < upper.length; c++) {
      fill[c] = (int) Math.max(0, Math.floor(result.x()[c] + 1e-6));
      fill[c] = Math.min(fill[c], Math.min(remaining[c], fitting(classRequests[c], room)));
      for (int i = 0; i < room.length; i++) {
        room[i] -= fill[c] * classRequests[c][i];
      }
    }
    return topUpDensestFirst(t, 0, fill, room);
  }

  /**
   * An upper bound on the worth one node of type t can carry: for each resource alone, the
   * fractional knapsack (densest per unit of it first), and the least of those.
   */
  private double knapsackUpperBound(int t) {
    budget.charge(dims.length * (RepackBudget.sortSteps(remaining.length) + remaining.length));
    double bound = Double.MAX_VALUE;
    double[] key = new double[remaining.length];
    for (int i = 0; i < dims.length; i++) {
      for (int c = 0; c < key.length; c++) {
        key[c] = classRequests[c][i] == 0 ? Double.NEGATIVE_INFINITY : -worth[c] / classRequests[c][i];
      }
      int[] order = IndexSort.ascending(key);
      double room = capacity[t][i];
      double value = 0;
      for (int c : order) {
        int upper = Math.min(remaining[c], fitting(classRequests[c], capacity[t]));
        if (upper <= 0 || worth[c] <= 0) {
          continue;
        }
        if (classRequests[c][i] == 0) {
          value += upper * worth[c];
          continue;
        }
        double count = Math.min(upper, room / classRequests[c][i]);
        value += count * worth[c];
        room -= count * classRequests[c][i];
        if (room <= 0) {
          break;
        }
      }
      bound = Math.min(bound, value);
    }
    return bound;
  }

  /** The summed fractions of the capacity the requests take over all dimensions. */
  private static double summedShare(long[] requests, long[] capacity, double[] weights) {
    double share = 0;
    for (int i = 0; i < requests.length; i++) {
      if (requests[i] > 0) {
        if (capacity[i] == 0) {
          return Double.MAX_VALUE;
        }
        share += (weights == null ? 1 : weights[i]) * requests[i] / capacity[i];
      }
    }
    return share;
  }

  /**
   * Weightings of the dimensions for {@link #fillNode}'s weighted modes: each dimension alone and
   * each pair in steps of a tenth. Filling densest-first under the right weighting is the knapsack
   * LP's optimum (the weights are its multipliers), so the sweep finds near-best patterns.
   */
  private double[][] shareWeights() {
    List<double[]> weights = new ArrayList<>();
    for (int i = 0; i < dims.length; i++) {
      double[] unit = new double[dims.length];
      unit[i] = 1;
      weights.add(unit);
      for (int j = i + 1; j < dims.length; j++) {
        for (int step = 1; step < WEIGHT_STEPS; step++) {
          double[] pair = new double[dims.length];
          pair[i] = (double) step / WEIGHT_STEPS;
          pair[j] = 1 - pair[i];
          weights.add(pair);
        }
      }
    }
    return weights.toArray(new double[0][]);
  }

  private static final int WEIGHT_STEPS = 10;

  /** Bisection steps of {@link #fillNode}'s mode 1 (the equal slice of every class). */
  private static final int SLICE_SEARCH_STEPS = 20;

  /**
   * Whether the equal slice of mode 1 can hold any pod: the smallest fraction giving some class a
   * whole pod is 1 / (most pods left of a class); below it every class's slice is empty, and so is
   * the bisection's.
   */
  private boolean someSliceFits(long[] room) {
    budget.charge(classScanSteps());
    int most = 0;
    for (int left : remaining) {
      most = Math.max(most, left);
    }
    return most > 0 && sliceFits(1.0 / most, room);
  }

  /** Whether the slice {@code floor(fraction x pods left)} of every class fits in the room; stops at the first class that overfills it. */
  private boolean sliceFits(double fraction, long[] room) {
    long[] used = new long[room.length];
    for (int c = 0; c < remaining.length; c++) {
      // The product is >= 0, so the cast is its floor; Math.floor is not inlined by C1, with which a
      // short `plan` runs, and was a tenth of the post-pass there.
      long pods = (long) (fraction * remaining[c]);
      if (pods == 0) {
        continue;
      }
      for (int i = 0; i < room.length; i++) {
        used[i] += pods * classRequests[c][i];
        if (used[i] > room[i]) {
          return false;
        }
      }
    }
    return true;
  }

  /** How many pods of these requests fit in the room. */
  private static int fitting(long[] requests, long[] room) {
    if (!holds(room, requests)) {
      return 0; // not one pod: no need to divide
    }
    long count = Integer.MAX_VALUE;
    for (int i = 0; i < room.length; i++) {
      if (requests[i] > 0) {
        count = Math.min(count, room[i] / requests[i]);
      }
    }
    return (int) Math.max(0, count);
  }

  /** The cheapest type with room for every pod left, or -1. */
  private int cheapestHoldingAll(List<Integer> cheapestFirst) {
    budget.charge((long) (remaining.length + cheapestFirst.size()) * dims.length);
    long[] total = new long[dims.length];
    for (int c = 0; c < remaining.length; c++) {
      for (int i = 0; i < total.length; i++) {
        total[i] += remaining[c] * classRequests[c][i];
      }
    }
    for (int t : cheapestFirst) {
      if (covers(capacity[t], total)) {
        return t;
      }
    }
    return -1;
  }

  /** For each class with pods left, the cheapest type that holds one of its pods. */
  private List<Integer> cheapestFittingEachClass(List<Integer> cheapestFirst) {
    budget.charge((long) remaining.length * cheapestFirst.size() * dims.length);
    List<Integer> types = new ArrayList<>();
    for (int c = 0; c < remaining.length; c++) {
      if (remaining[c] == 0) {
        continue;
      }
      for (int t : cheapestFirst) {
        if (covers(capacity[t], classRequests[c])) {
          if (!types.contains(t)) {
            types.add(t);
          }
          break;
        }
      }
    }
    return types;
  }
}
