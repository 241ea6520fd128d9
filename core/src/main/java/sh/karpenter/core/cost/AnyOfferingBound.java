package sh.karpenter.core.cost;

import java.util.Collection;
import java.util.List;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;

/**
 * The bound of last resort, for when the {@link BoundBudget} runs out before the pods are grouped
 * into classes: one pass over the pods and one over the offerings, whatever the input.
 *
 * <p>For each resource r, let {@code p_r} be the least price per unit of r among the unbounded
 * offerings ({@code price_o / allocatable_or}), {@code D_r} the pods' total request of r and
 * {@code E_r} the capacity of r of the bounded offerings (existing nodes' free capacity, times
 * their count). The bound is the largest {@code p_r * max(0, D_r - E_r)}. It is the dual objective
 * (see {@link LpRelaxation}) of {@code w_o = p_r} on resource r for every offering, {@code v_o =
 * allocatable_or * p_r} for bounded ones and {@code u_c = demand_cr * p_r}: the price rows hold
 * because {@code p_r} is the least price per unit of r, and every class's rows hold whichever
 * offerings it may use, so no candidate set is needed. By weak duality it is at most the cost of
 * any plan placing the pods.
 */
final class AnyOfferingBound {
  private AnyOfferingBound() {}

  /** The bound for {@code pods} over {@code offerings}; {@code why} says which limit made it necessary. */
  static LowerBound of(Collection<Pod> pods, List<CandidateOffering> offerings, String why) {
    double[] demand = new double[0];
    for (Pod pod : pods) {
      demand = add(demand, pod.requests(), 1);
    }
    return of(demand, offerings, why);
  }

  /** The bound for the classes' pods over {@code offerings}. */
  static LowerBound ofClasses(Collection<DemandClass> classes, List<CandidateOffering> offerings, String why) {
    double[] demand = new double[0];
    for (DemandClass c : classes) {
      demand = add(demand, c.requests(), c.podCount());
    }
    return of(demand, offerings, why);
  }

  private static double[] add(double[] total, Resources requests, long count) {
    if (requests.dimensions() > total.length) {
      total = java.util.Arrays.copyOf(total, requests.dimensions());
    }
    for (int r = 0; r < requests.dimensions(); r++) {
      total[r] += (double) Math.max(0, requests.milli(r)) * count;
    }
    return total;
  }

  private static LowerBound of(double[] demand, List<CandidateOffering> offerings, String why) {
    double best = 0;
    for (int r = 0; r < demand.length; r++) {
      if (!(demand[r] > 0)) {
        continue;
      }
      double price = Double.POSITIVE_INFINITY;
      double existing = 0;
      for (CandidateOffering offering : offerings) {
        double allocatable = r < offering.allocatable().dimensions() ? Math.max(0, offering.allocatable().milli(r)) : 0;
        if (offering.bounded()) {
          existing += allocatable * offering.maxCount();
        } else if (allocatable > 0) {
          price = Math.min(price, offering.price() / allocatable);
        }
      }
      if (price != Double.POSITIVE_INFINITY && demand[r] > existing) {
        double value = price * (demand[r] - existing);
        best = Math.max(best, value - LpRelaxation.ROUNDING_MARGIN * price * (demand[r] + existing));
      }
    }
    best = Math.max(0, best);
    return new LowerBound(best, 0, best, 0, 0, offerings.size(), false, LowerBound.Method.PER_RESOURCE_ANY_OFFERING, 0, why);
  }
}
