package sh.karpenter.core.scheduling;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * {@link CostRepacker} over one template's instance types, as the scheduler's cost post-pass uses it:
 * each allowed type offers its allocatable less the DaemonSet overhead of its group and costs its
 * cheapest offering under the template's requirements.
 *
 * <p>Two shortcuts leave the outcome as it would be without them. Packing is skipped when the packer's
 * {@link CostRepacker#lowerBound lower bound} shows no packing can cost less than the NodeClaims it
 * would replace (for a lone pod it never can). And packings are remembered per allowed types and pod
 * requests (in order), since {@link CostRepacker#pack} depends on nothing else: passes sharing the
 * template through a {@link SchedulerCache}, such as the simulations of one disruption decision, often
 * repack pods of the same shapes. At most {@link #REMEMBERED} packings are kept, least recently used
 * dropped first. Not safe for concurrent passes, like the rest of the {@link TemplateIndex}.
 */
final class TemplateRepacker {
  /** Packings remembered per template. */
  static final int REMEMBERED = 1024;

  private final TemplateIndex template;
  private final Map<Key, Plan> remembered =
      new LinkedHashMap<>(64, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Key, Plan> eldest) {
          return size() > REMEMBERED;
        }
      };

  TemplateRepacker(TemplateIndex template) {
    this.template = template;
  }

  /** The pods' requests over the allowed types: what a packing is a function of. */
  private record Key(long[] allowed, long[][] requests) {
    @Override
    public boolean equals(Object other) {
      return other instanceof Key k && Arrays.equals(allowed, k.allowed) && Arrays.deepEquals(requests, k.requests);
    }

    @Override
    public int hashCode() {
      return 31 * Arrays.hashCode(allowed) + Arrays.deepHashCode(requests);
    }
  }

  /** The packing problem's lower bound, and its packing once computed. */
  private static final class Plan {
    final double lowerBound;
    boolean packed;
    CostRepacker.Packing packing;

    Plan(double lowerBound) {
      this.lowerBound = lowerBound;
    }
  }

  /**
   * The packer's plan for pods with these requests on the allowed types, or null when it places not
   * every pod or when no plan could cost less than {@code before} (then the packer is not run).
   *
   * @param allowed the template's types a new NodeClaim may use now (not modified)
   * @param requests per pod, its requests by resource index (not modified)
   * @param before what the NodeClaims to be replaced cost per hour
   */
  CostRepacker.Packing pack(long[] allowed, List<long[]> requests, double before) {
    Key key = new Key(allowed.clone(), requests.stream().map(long[]::clone).toArray(long[][]::new));
    Plan plan = remembered.get(key);
    long[][] capacity = null;
    double[] price = null;
    if (plan == null) {
      capacity = capacity(allowed);
      price = price(allowed);
      plan = new Plan(CostRepacker.lowerBound(requests, capacity, price));
      remembered.put(key, plan);
    }
    if (plan.lowerBound >= before * (1 - 1e-10)) {
      return null;
    }
    if (!plan.packed) {
      if (capacity == null) {
        capacity = capacity(allowed);
        price = price(allowed);
      }
      plan.packing = CostRepacker.pack(requests, capacity, price);
      plan.packed = true;
    }
    return plan.packing;
  }

  /** How many packing problems are remembered. */
  int remembered() {
    return remembered.size();
  }

  /** Per type, what it offers pods: allocatable less its DaemonSet group's overhead (zero when not allowed). */
  private long[][] capacity(long[] allowed) {
    long[][] capacity = new long[template.size()][template.dimensions];
    for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
      long[] types = Bits.copy(group.types());
      Bits.andInto(types, allowed);
      for (int t = Bits.next(types, 0); t >= 0; t = Bits.next(types, t + 1)) {
        for (int d = 0; d < template.dimensions; d++) {
          capacity[t][d] = template.allocatable[d][t] - group.overhead()[d];
        }
      }
    }
    return capacity;
  }

  /** Per type, its cheapest offering's price under the template's requirements (infinite when not allowed or unpriced). */
  private double[] price(long[] allowed) {
    TemplateIndex.Pricing pricing = template.pricing(template.requirements);
    double[] price = new double[template.size()];
    Arrays.fill(price, Double.POSITIVE_INFINITY);
    for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
      long[] types = Bits.copy(group.types());
      Bits.andInto(types, allowed);
      for (int t = Bits.next(types, 0); t >= 0; t = Bits.next(types, t + 1)) {
        if (pricing.cheapest()[t] != null) {
          price[t] = pricing.price(t);
        }
      }
    }
    return price;
  }
}
