package sh.karpenter.core.cost;

import java.util.ArrayList;
import java.util.BitSet;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.BiPredicate;
import java.util.function.Function;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.resources.Resources;

/**
 * A proven lower bound on the hourly cost of any plan that places a set of pods: no placement onto
 * the given offerings, however clever, can cost less than {@link #perHour()}. {@code karpenter plan}
 * reports it next to the plan's cost so the gap between the two is an honest measure of how much a
 * better scheduler could still save.
 *
 * <p>The bound is the value of the fractional-fleet LP relaxation
 * (docs/behaviour/cost-lower-bound.md#fractional-fleet-lp): pods are grouped into {@link
 * DemandClass compatibility classes}; a plan buys {@code x_o >= 0} nodes of each {@link
 * CandidateOffering offering} and routes a share {@code y_co >= 0} of each class to it, with {@code
 * sum_o y_co = 1} per class and {@code sum_c y_co * demand_cr <= allocatable_or * x_o} per offering
 * and resource; existing nodes enter with price 0 and {@code x_o <= 1}. A class holds pods of
 * identical requests, so routing its pods whole is such a proportional split: every integral plan
 * is a solution of this LP, and its optimum is at most the optimum plan's cost. See {@link
 * LpRelaxation} for how the value is certified against solver round-off.
 *
 * @param perHour the bound, USD per hour: the larger of the certified LP and simple bounds
 * @param lpPerHour the certified value of the LP relaxation (0 when the LP was skipped or the solver
 *     gave no answer)
 * @param simplePerHour the single-resource bound: for the best resource r, the sum over classes of
 *     their demand of r times the cheapest price per unit of r among their candidates (with {@link
 *     Method#PER_RESOURCE_ANY_OFFERING}: among all offerings, see {@link AnyOfferingBound})
 * @param classes classes that contributed (after merging classes with the same requests and
 *     candidates); 0 when the budget ran out before classes were compared with offerings
 * @param unplaceableClasses classes with no candidate able to hold them; their pods are left out of
 *     the bound, since no plan places them
 * @param offerings candidate offerings left after pruning dominated ones
 * @param lpSolved whether the LP solver reported an optimal solution in at least one round
 * @param method which bound {@link #perHour()} is
 * @param lpClasses classes the LP was solved on: {@link #classes()} unless aggregated, 0 when skipped
 * @param detail why the LP was aggregated, stopped early or skipped (which {@link BoundBudget} limit),
 *     or empty when it ran to the end on the exact classes
 */
public record LowerBound(
    double perHour,
    double lpPerHour,
    double simplePerHour,
    int classes,
    int unplaceableClasses,
    int offerings,
    boolean lpSolved,
    Method method,
    int lpClasses,
    String detail) {

  /** Which bound a {@link LowerBound} reports. */
  public enum Method {
    /** The LP relaxation over the exact classes. */
    LP("LP relaxation"),
    /** The LP relaxation solved on aggregated request shapes (rounded down), certified on the exact classes. */
    AGGREGATED_LP("LP relaxation over aggregated request shapes"),
    /** The per-resource bound: the LP was skipped, failed, or came out lower. */
    PER_RESOURCE("per-resource bound"),
    /**
     * The per-resource bound over every offering, less existing nodes' free capacity: the budget ran
     * out before pods could be compared with offerings (see {@link AnyOfferingBound}).
     */
    PER_RESOURCE_ANY_OFFERING("per-resource bound over every offering");

    private final String label;

    Method(String label) {
      this.label = label;
    }

    /** For people: {@code LP relaxation}, {@code per-resource bound}, ... */
    public String label() {
      return label;
    }
  }

  /**
   * One line for reports such as {@code karpenter plan}: the method, the classes it saw, and why
   * the LP was cut short if it was, e.g. {@code per-resource bound (LP skipped: 120 constraint
   * groups exceed the budget of 40 LP classes)}.
   */
  public String describe() {
    StringBuilder line = new StringBuilder(method.label());
    if (method == Method.PER_RESOURCE_ANY_OFFERING) {
      return line.append(" (").append(detail).append(')').toString();
    }
    line.append(" (").append(classes).append(classes == 1 ? " class" : " classes");
    if (method == Method.AGGREGATED_LP) {
      line.append(" solved as ").append(lpClasses);
    }
    if (!detail.isEmpty()) {
      line.append("; ").append(detail);
    }
    return line.append(')').toString();
  }

  /** The bound under the {@link BoundBudget#DEFAULT default budget}. */
  public static LowerBound compute(List<DemandClass> classes, List<CandidateOffering> offerings) {
    return compute(classes, offerings, BoundBudget.DEFAULT);
  }

  /**
   * The bound for pods already grouped into classes over a list of offerings.
   *
   * @param classes compatibility classes; their candidate indices refer to {@code offerings}
   * @param offerings everything a plan may use: new nodes per instance type, zone and capacity type
   *     (price after DaemonSet overhead taken off the allocatable) and existing nodes' free capacity
   * @param budget how much work the LP may take before the bound settles for less
   */
  public static LowerBound compute(List<DemandClass> classes, List<CandidateOffering> offerings, BoundBudget budget) {
    return compute(classes, offerings, new WorkMeter(budget));
  }

  /** {@link #compute(List, List, BoundBudget)} charging a meter that may already have counted work. */
  static LowerBound compute(List<DemandClass> classes, List<CandidateOffering> offerings, WorkMeter meter) {
    try {
      return new LpRelaxation(classes, offerings, meter).solve();
    } catch (WorkMeter.OverBudget e) {
      return AnyOfferingBound.ofClasses(
          classes,
          offerings,
          "LP skipped: " + e.limit() + " ran out comparing " + String.format("%,d", classes.size()) + " classes with "
              + String.format("%,d", offerings.size()) + " offerings");
    }
  }

  /**
   * The bound for pods, grouping them into classes first. Pods with the same {@code constraintKey}
   * must be interchangeable for {@code mayUse}: it is asked once per key, so the key must capture
   * everything {@code mayUse} looks at (node selector and affinity, tolerations, volume zones ...).
   * Resource fit is checked here: a pod may only use an offering whose allocatable holds its
   * requests.
   *
   * @param mayUse whether a pod may run on {@code offerings.get(index)}: labels, requirements, taints
   */
  public static LowerBound forPods(
      Collection<Pod> pods,
      Function<Pod, ?> constraintKey,
      List<CandidateOffering> offerings,
      BiPredicate<Pod, Integer> mayUse) {
    return forPods(pods, constraintKey, offerings, mayUse, BoundBudget.DEFAULT);
  }

  /** {@link #forPods(Collection, Function, List, BiPredicate)} under a budget. */
  public static LowerBound forPods(
      Collection<Pod> pods,
      Function<Pod, ?> constraintKey,
      List<CandidateOffering> offerings,
      BiPredicate<Pod, Integer> mayUse,
      BoundBudget budget) {
    return forPods(pods, constraintKey, offerings, mayUse, new WorkMeter(budget));
  }

  /** {@link #forPods(Collection, Function, List, BiPredicate, BoundBudget)} charging a meter that may already have counted work. */
  static LowerBound forPods(
      Collection<Pod> pods,
      Function<Pod, ?> constraintKey,
      List<CandidateOffering> offerings,
      BiPredicate<Pod, Integer> mayUse,
      WorkMeter meter) {
    return forPods(pods, constraintKey, pod -> null, offerings, mayUse, meter);
  }

  /**
   * {@link #forPods(Collection, Function, List, BiPredicate, BoundBudget)} where {@code onePerNode}
   * gives each pod its {@link DemandClass#onePerNode() group} (null for none): pods of one non-null
   * group must never share a node in any plan, and only pods of one group share a class.
   */
  static LowerBound forPods(
      Collection<Pod> pods,
      Function<Pod, ?> constraintKey,
      Function<Pod, ?> onePerNode,
      List<CandidateOffering> offerings,
      BiPredicate<Pod, Integer> mayUse,
      WorkMeter meter) {
    List<DemandClass> classes;
    try {
      classes = classesOf(pods, constraintKey, onePerNode, offerings, mayUse, meter);
    } catch (WorkMeter.OverBudget e) {
      return AnyOfferingBound.of(
          pods, offerings, "LP skipped: " + e.limit() + " ran out grouping " + String.format("%,d", pods.size()) + " pods into classes");
    }
    return compute(classes, offerings, meter);
  }

  /**
   * Steps charged per question to {@code mayUse}: it intersects requirements and checks taints,
   * some five times the work of a fit or dot product.
   */
  static final int MAY_USE_STEPS = 5;

  /** Steps charged per pod for finding its class: its constraint key and requests are hashed. */
  static final int POD_STEPS = 10;

  /**
   * Groups pods into compatibility classes, one per distinct (constraint key, requests, one-per-node group); {@code
   * mayUse} is asked once per constraint key and offering, each key charged to {@code meter}.
   *
   * @throws WorkMeter.OverBudget when the budget does not allow asking about every key
   */
  static List<DemandClass> classesOf(
      Collection<Pod> pods,
      Function<Pod, ?> constraintKey,
      Function<Pod, ?> onePerNode,
      List<CandidateOffering> offerings,
      BiPredicate<Pod, Integer> mayUse,
      WorkMeter meter) {
    record Shape(Object key, Resources requests, Object onePerNode) {
      // equals and hashCode written out, as Taint's
      @Override
      public boolean equals(Object o) {
        return o instanceof Shape s && Objects.equals(key, s.key) && requests.equals(s.requests) && Objects.equals(onePerNode, s.onePerNode);
      }

      @Override
      public int hashCode() {
        return (31 * Objects.hashCode(key) + requests.hashCode()) * 31 + Objects.hashCode(onePerNode);
      }
    }
    meter.charge((long) POD_STEPS * pods.size());
    Map<Object, BitSet> candidatesByKey = new HashMap<>();
    Map<Shape, Aggregate> byShape = new LinkedHashMap<>();
    for (Pod pod : pods) {
      Object key = constraintKey.apply(pod);
      byShape
          .computeIfAbsent(
              new Shape(key, pod.requests(), onePerNode.apply(pod)),
              shape ->
                  new Aggregate(
                      pod.key(),
                      candidatesByKey.computeIfAbsent(
                          key,
                          k -> {
                            meter.charge((long) offerings.size() * MAY_USE_STEPS);
                            return candidatesOf(pod, offerings, mayUse);
                          })))
          .pods++;
    }
    List<DemandClass> classes = new ArrayList<>(byShape.size());
    byShape.forEach(
        (shape, aggregate) ->
            classes.add(
                new DemandClass(
                    aggregate.pods > 1 ? aggregate.firstPod + " and " + (aggregate.pods - 1) + " like it" : aggregate.firstPod,
                    aggregate.pods,
                    shape.requests(),
                    aggregate.candidates,
                    shape.onePerNode())));
    return classes;
  }

  private static BitSet candidatesOf(
      Pod pod, List<CandidateOffering> offerings, BiPredicate<Pod, Integer> mayUse) {
    BitSet candidates = new BitSet(offerings.size());
    for (int i = 0; i < offerings.size(); i++) {
      if (mayUse.test(pod, i)) {
        candidates.set(i);
      }
    }
    return candidates;
  }

  private static final class Aggregate {
    final String firstPod;
    final BitSet candidates;
    int pods;

    Aggregate(String firstPod, BitSet candidates) {
      this.firstPod = firstPod;
      this.candidates = candidates;
    }
  }
}
