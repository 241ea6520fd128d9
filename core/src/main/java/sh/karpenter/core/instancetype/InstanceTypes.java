package sh.karpenter.core.instancetype;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;

/** Upstream's helpers over lists of instance types (pkg/cloudprovider/types.go). */
public final class InstanceTypes {
  private InstanceTypes() {}

  /** At most this many instance types are written into one NodeClaim. */
  public static final int MAX_INSTANCE_TYPES = 600;

  /** Order in which {@link #worstLaunchPrice} looks for a capacity type. */
  private static final List<String> LAUNCH_ORDER =
      List.of(Labels.CAPACITY_TYPE_RESERVED, Labels.CAPACITY_TYPE_SPOT, Labels.CAPACITY_TYPE_ON_DEMAND);

  /**
   * A new list sorted by the cheapest launchable offering compatible with {@code reqs} (types without
   * one last), then by name (upstream v1.15 {@code OrderByPrice}).
   */
  public static List<InstanceType> orderByPrice(List<InstanceType> types, Requirements reqs) {
    int n = types.size();
    double[] prices = new double[n];
    Integer[] order = new Integer[n];
    for (int i = 0; i < n; i++) {
      prices[i] = types.get(i).cheapestPrice(reqs);
      order[i] = i;
    }
    java.util.Arrays.sort(
        order,
        Comparator.<Integer>comparingDouble(i -> prices[i]).thenComparing(i -> types.get(i).name()));
    List<InstanceType> sorted = new ArrayList<>(n);
    for (Integer i : order) {
      sorted.add(types.get(i));
    }
    return sorted;
  }

  /** The types whose requirements intersect {@code reqs} and that have a compatible available offering. */
  public static List<InstanceType> compatible(List<InstanceType> types, Requirements reqs) {
    List<InstanceType> result = new ArrayList<>();
    for (InstanceType type : types) {
      if (type.requirements().intersects(reqs) && type.hasAvailableOffering(reqs)) {
        result.add(type);
      }
    }
    return result;
  }

  /**
   * Upstream's {@code SatisfiesMinValues}: walks {@code types} in order, collecting the distinct
   * values of each minValues key that the requirement on that key allows (v1.15), and reports how many leading types are needed to reach every
   * minValues, or the keys that never reach theirs.
   */
  public static MinValues satisfiesMinValues(List<InstanceType> types, Requirements reqs) {
    List<Requirement> withMinValues = new ArrayList<>();
    for (Requirement r : reqs) {
      if (r.minValues() != null) {
        withMinValues.add(r);
      }
    }
    if (withMinValues.isEmpty()) {
      return new MinValues(0, Map.of());
    }
    List<Set<String>> seen = new ArrayList<>();
    withMinValues.forEach(r -> seen.add(new HashSet<>()));
    for (int i = 0; i < types.size(); i++) {
      Requirements typeRequirements = types.get(i).requirements();
      boolean all = true;
      for (int k = 0; k < withMinValues.size(); k++) {
        Requirement r = withMinValues.get(k);
        Set<String> values = seen.get(k);
        // Only the values the requirement still allows count: a type may offer zones (say) that the
        // requirement, narrowed by the pods' volumes or topology, excludes, and the NodeClaim cannot get those.
        for (String value : typeRequirements.get(r.key()).valueList()) {
          if (r.has(value)) {
            values.add(value);
          }
        }
        all &= seen.get(k).size() >= r.minValues();
      }
      if (all) {
        return new MinValues(i + 1, Map.of());
      }
    }
    Map<String, Integer> unsatisfied = new LinkedHashMap<>();
    for (int k = 0; k < withMinValues.size(); k++) {
      if (seen.get(k).size() < withMinValues.get(k).minValues()) {
        unsatisfied.put(withMinValues.get(k).key(), seen.get(k).size());
      }
    }
    return new MinValues(types.size(), Collections.unmodifiableMap(unsatisfied));
  }

  /**
   * Upstream's {@code Truncate}: the {@code maxItems} cheapest types (by {@link #orderByPrice}); when
   * {@code reqs} has minValues the truncated list must still satisfy them, else null.
   */
  public static List<InstanceType> truncate(List<InstanceType> types, Requirements reqs, int maxItems) {
    List<InstanceType> ordered = orderByPrice(types, reqs);
    List<InstanceType> truncated = ordered.size() > maxItems ? List.copyOf(ordered.subList(0, maxItems)) : ordered;
    if (reqs.hasMinValues() && !satisfiesMinValues(truncated, reqs).satisfied()) {
      return null;
    }
    return truncated;
  }

  /**
   * Upstream's {@code WorstLaunchPrice} over launchable offerings (v1.15: a full reservation would
   * launch at another capacity type's price): the most expensive launchable offering compatible with
   * {@code reqs} of the first capacity type present in the order reserved, spot, on-demand; {@link
   * Double#MAX_VALUE} when there is none.
   */
  public static double worstLaunchPrice(List<Offering> offerings, Requirements reqs) {
    for (String capacityType : LAUNCH_ORDER) {
      double worst = -1;
      for (Offering o : offerings) {
        if (o.launchable() && capacityType.equals(o.capacityType()) && o.isCompatible(reqs)) {
          worst = Math.max(worst, o.price());
        }
      }
      if (worst >= 0) {
        return worst;
      }
    }
    return Double.MAX_VALUE;
  }

  /**
   * {@link #worstLaunchPrice} of {@code type} when it can be below {@code cap}, else {@link
   * Double#MAX_VALUE}: a type whose cheapest launchable offering is not below the cap is answered
   * without checking its offerings against {@code reqs} (its worst launch price is never lower).
   */
  public static double worstLaunchPriceBelow(InstanceType type, Requirements reqs, double cap) {
    return type.cheapestLaunchablePrice() >= cap ? Double.MAX_VALUE : worstLaunchPrice(type.offerings(), reqs);
  }

  /**
   * Outcome of {@link #satisfiesMinValues}.
   *
   * @param needed how many leading instance types reach every minValues (the list size when they do
   *     not; 0 when there are no minValues)
   * @param unsatisfied for each key whose minValues is not reached, the number of distinct values found
   */
  public record MinValues(int needed, Map<String, Integer> unsatisfied) {
    public boolean satisfied() {
      return unsatisfied.isEmpty();
    }

    /** "minValues requirement is not met for label(s) [key (found n)...]", or null when satisfied. */
    public String reason() {
      if (satisfied()) {
        return null;
      }
      List<String> parts = new ArrayList<>();
      unsatisfied.forEach((k, v) -> parts.add(k + " (" + v + " distinct values available)"));
      return "minValues requirement is not met for label(s) " + String.join(", ", parts);
    }
  }
}
