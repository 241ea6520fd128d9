package sh.karpenter.core.cost;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;

/**
 * A tiny placement problem (a few pods, a few offerings, maybe existing nodes) small enough to solve
 * exactly by enumerating every partition of the pods, used to check that the lower bound never
 * exceeds the optimum.
 */
record SmallInstance(List<Resources> pods, List<BitSet> podCandidates, List<CandidateOffering> offerings) {

  /** A random instance: 1-6 pods, 1-4 purchasable types and 0-2 existing nodes. */
  static SmallInstance random(Random random) {
    List<CandidateOffering> offerings = new ArrayList<>();
    int types = 1 + random.nextInt(4);
    for (int t = 0; t < types; t++) {
      offerings.add(
          CandidateOffering.purchasable(
              "type-" + t, (1 + random.nextInt(500)) / 100.0, vector(1 + random.nextInt(8), 1 + random.nextInt(8), 1 + random.nextInt(4))));
    }
    int existing = random.nextInt(3);
    for (int e = 0; e < existing; e++) {
      offerings.add(CandidateOffering.existingNode("node-" + e, vector(random.nextInt(5), random.nextInt(5), 1 + random.nextInt(3))));
    }
    int podCount = 1 + random.nextInt(6);
    List<Resources> pods = new ArrayList<>();
    List<BitSet> candidates = new ArrayList<>();
    for (int p = 0; p < podCount; p++) {
      Resources requests = vector(1 + random.nextInt(5), random.nextInt(5), 1);
      BitSet usable = new BitSet();
      for (int o = 0; o < offerings.size(); o++) {
        if (random.nextInt(4) != 0 && requests.fits(offerings.get(o).allocatable())) {
          usable.set(o);
        }
      }
      pods.add(requests);
      candidates.add(usable);
    }
    return new SmallInstance(pods, candidates, offerings);
  }

  /**
   * A random instance whose pods all accept every offering (only fit restricts them) and have
   * distinct, fractional requests: {@code podCount} classes of one candidate set, the case the
   * bound aggregates when the classes exceed its budget.
   */
  static SmallInstance randomShapes(Random random, int podCount) {
    SmallInstance base = random(random);
    List<Resources> pods = new ArrayList<>();
    List<BitSet> candidates = new ArrayList<>();
    BitSet all = new BitSet();
    all.set(0, base.offerings().size());
    for (int p = 0; p < podCount; p++) {
      pods.add(
          Resources.builder()
              .milli(ResourceNames.CPU, 100 + random.nextInt(4000))
              .milli(ResourceNames.MEMORY, (long) ((0.1 + random.nextDouble() * 5) * (1L << 30)) * 1000)
              .milli(ResourceNames.PODS, 1000)
              .build());
      candidates.add(all);
    }
    return new SmallInstance(pods, candidates, base.offerings());
  }

  /**
   * A random instance whose pods come in identical copies (same requests and candidates): 1-3
   * shapes of 1-3 pods each, at most 7 pods, so the bound sees classes of several pods, where fit
   * cuts ({@code pods of a class on an offering <= fit x nodes}) are not the one-pod case.
   */
  static SmallInstance randomCopies(Random random) {
    SmallInstance base = random(random);
    List<Resources> pods = new ArrayList<>();
    List<BitSet> candidates = new ArrayList<>();
    int shapes = Math.min(base.pods().size(), 1 + random.nextInt(3));
    for (int s = 0; s < shapes; s++) {
      int copies = 1 + random.nextInt(3);
      for (int c = 0; c < copies && pods.size() < 7; c++) {
        pods.add(base.pods().get(s));
        candidates.add(base.podCandidates().get(s));
      }
    }
    return new SmallInstance(pods, candidates, base.offerings());
  }

  /** cpu cores, memory GiB, pods. */
  static Resources vector(long cpu, long memoryGi, long pods) {
    return Resources.builder()
        .milli(ResourceNames.CPU, cpu * 1000)
        .milli(ResourceNames.MEMORY, memoryGi * (1L << 30) * 1000)
        .milli(ResourceNames.PODS, pods * 1000)
        .build();
  }

  /** One class per pod (the bound merges pods of equal requests and candidates itself). */
  List<DemandClass> classes() {
    List<DemandClass> classes = new ArrayList<>();
    for (int p = 0; p < pods.size(); p++) {
      classes.add(new DemandClass("pod-" + p, 1, pods.get(p), podCandidates.get(p)));
    }
    return classes;
  }

  /** The cheapest integral plan, or +infinity when the pods cannot all be placed. */
  double optimum() {
    return bestPartition(new int[pods.size()], 0, 0);
  }

  /** Enumerates partitions as restricted growth strings. */
  private double bestPartition(int[] block, int next, int blocks) {
    if (next == pods.size()) {
      return cheapestAssignment(block, blocks);
    }
    double best = Double.POSITIVE_INFINITY;
    for (int b = 0; b <= blocks; b++) {
      block[next] = b;
      best = Math.min(best, bestPartition(block, next + 1, Math.max(blocks, b + 1)));
    }
    return best;
  }

  /** Each block on one node: a new one of the cheapest usable type, or a distinct existing node. */
  private double cheapestAssignment(int[] block, int blocks) {
    double[][] cost = new double[blocks][offerings.size()];
    for (int b = 0; b < blocks; b++) {
      Resources demand = Resources.EMPTY;
      BitSet usable = null;
      for (int p = 0; p < pods.size(); p++) {
        if (block[p] == b) {
          demand = demand.plus(pods.get(p));
          if (usable == null) {
            usable = (BitSet) podCandidates.get(p).clone();
          } else {
            usable.and(podCandidates.get(p));
          }
        }
      }
      for (int o = 0; o < offerings.size(); o++) {
        boolean fits = usable.get(o) && demand.fits(offerings.get(o).allocatable());
        cost[b][o] = fits ? offerings.get(o).price() : Double.POSITIVE_INFINITY;
      }
    }
    return assign(cost, 0, new boolean[offerings.size()]);
  }

  private double assign(double[][] cost, int b, boolean[] usedExisting) {
    if (b == cost.length) {
      return 0;
    }
    double best = Double.POSITIVE_INFINITY;
    for (int o = 0; o < offerings.size(); o++) {
      boolean existing = offerings.get(o).bounded();
      if (cost[b][o] == Double.POSITIVE_INFINITY || (existing && usedExisting[o])) {
        continue;
      }
      usedExisting[o] = existing;
      best = Math.min(best, cost[b][o] + assign(cost, b + 1, usedExisting));
      usedExisting[o] = false;
    }
    return best;
  }
}
