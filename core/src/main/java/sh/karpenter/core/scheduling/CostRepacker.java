package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Packs unconstrained pods onto instance types for cost: given pods that may go to any node of one
 * template, chooses nodes (an instance type each, and the pods it carries) whose summed price is low.
 * The scheduler's first-fit pass grows a NodeClaim until no option has room, which drifts onto the
 * largest and often dearest types; {@link Scheduler} re-plans such NodeClaims with this packer.
 *
 * <p>How: each pod shape is worth what its pods cost running alone (price of the cheapest type per
 * pod by dominant resource share). Nodes are then launched greedily: each step fills one node of
 * each short-listed type (the types whose fill is worth most per dollar, plus the cheapest type
 * holding everything left) in two ways, the shapes that type carries most efficiently first, or a
 * proportional slice of every shape topped up the same way, and launches the node with the lowest
 * price per worth carried, which rewards nodes where complementary shapes (cpu-heavy with
 * memory-heavy) share the bill. Pods of one shape form one class with a count, so a step costs
 * types x shapes, not types x pods.
 */
final class CostRepacker {
  /** Short-listed types per step, most efficient at the LP's resource prices first. */
  private static final int SHORTLIST = 12;

  /** A node to launch: an index into the types given and how many pods of each class it carries. */
  record Node(int type, int[] podsPerClass) {}

  /**
   * The outcome: the nodes, per class the indices of its pods (into the requests given), and the
   * summed price of the nodes' types.
   */
  record Packing(List<Node> nodes, List<int[]> classMembers, double price) {}

  private final long[][] classRequests;
  private final int[] remaining;
  private final List<int[]> classMembers;
  /** [type][dimension] what each type offers pods, restricted to the dimensions some pod requests. */
  private final long[][] capacity;
  private final double[] price;
  private final int[] dims;
  /** Per class, what one pod is worth: its cost running alone. */
  private double[] worth;

  /**
   * @param podRequests per pod, its requests by resource index
   * @param capacity per type, what it offers pods by resource index (allocatable minus DaemonSets)
   * @param price per type, its cheapest available offering's hourly price
   */
  private CostRepacker(List<long[]> podRequests, long[][] capacity, double[] price) {
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
    CostRepacker packer = new CostRepacker(podRequests, capacity, price);
    List<Integer> efficient = packer.undominatedTypes();
    if (efficient.isEmpty() || !packer.priceClasses(efficient)) {
      return null;
    }
    List<Node> nodes = packer.packGreedily(efficient);
    if (nodes == null) {
      return null;
    }
    double total = 0;
    for (Node node : nodes) {
      total += price[node.type()];
    }
    return new Packing(nodes, packer.classMembers, total);
  }

  /**
   * Usable types (priced, DaemonSets leaving room) no cheaper-or-equal type beats in every requested
   * dimension, cheapest first.
   */
  private List<Integer> undominatedTypes() {
    List<Integer> usable = new ArrayList<>();
    for (int t = 0; t < price.length; t++) {
      if (Double.isFinite(price[t]) && price[t] > 0 && Arrays.stream(capacity[t]).allMatch(v -> v >= 0)) {
        usable.add(t);
      }
    }
    usable.sort(Comparator.<Integer>comparingDouble(t -> price[t]).thenComparingInt(t -> t));
    List<Integer> kept = new ArrayList<>();
    for (int t : usable) {
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
    Map<Integer, Double> score = new java.util.HashMap<>();
    for (int t : types) {
      double carried = Math.max(fillNode(t, false, fill), fillNode(t, true, fill));
      score.put(t, carried <= 0 ? Double.MAX_VALUE : price[t] / carried);
    }
    List<Integer> sorted = new ArrayList<>(types);
    sorted.sort(Comparator.<Integer>comparingDouble(score::get).thenComparingDouble(t -> price[t]));
    return sorted.subList(0, Math.min(SHORTLIST, sorted.size()));
  }

  /**
   * Launches, one at a time, the candidate node that costs least per worth carried; the short list
   * is drawn again each time the pods left have halved, as the mix left changes.
   */
  private List<Node> packGreedily(List<Integer> efficient) {
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
      for (boolean proportional : new boolean[] {false, true}) {
        double carried = fillNode(t, proportional, fill);
        if (carried <= 0) {
          continue;
        }
        double score = price[t] / carried;
        if (score < bestScore) {
          bestScore = score;
          best = new Node(t, fill.clone());
        }
      }
    }
    return best;
  }

  /**
   * Fills one node of type t into {@code fill} (pods per class) and returns the worth carried: either
   * the classes t carries most efficiently first, each as many as fit, or first the largest equal
   * slice of every class's remaining pods that fits, then topped up the first way.
   */
  private double fillNode(int t, boolean proportional, int[] fill) {
    long[] room = capacity[t].clone();
    Arrays.fill(fill, 0);
    if (proportional) {
      double low = 0;
      double high = 1;
      for (int step = 0; step < 20; step++) {
        double mid = (low + high) / 2;
        if (sliceFits(mid, room)) {
          low = mid;
        } else {
          high = mid;
        }
      }
      for (int c = 0; c < remaining.length; c++) {
        fill[c] = (int) Math.floor(low * remaining[c]);
        for (int i = 0; i < room.length; i++) {
          room[i] -= fill[c] * classRequests[c][i];
        }
      }
    }
    Integer[] order = new Integer[remaining.length];
    double[] density = new double[remaining.length];
    for (int c = 0; c < order.length; c++) {
      order[c] = c;
      double share = dominantShare(classRequests[c], capacity[t]);
      density[c] = share == 0 ? 0 : worth[c] / share;
    }
    Arrays.sort(order, Comparator.<Integer>comparingDouble(c -> -density[c]).thenComparingInt(c -> c));
    double carried = 0;
    for (int c : order) {
      int count = Math.min(remaining[c] - fill[c], fitting(classRequests[c], room));
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

  private boolean sliceFits(double fraction, long[] room) {
    for (int i = 0; i < room.length; i++) {
      long used = 0;
      for (int c = 0; c < remaining.length; c++) {
        used += (long) Math.floor(fraction * remaining[c]) * classRequests[c][i];
      }
      if (used > room[i]) {
        return false;
      }
    }
    return true;
  }

  /** How many pods of these requests fit in the room. */
  private static int fitting(long[] requests, long[] room) {
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
