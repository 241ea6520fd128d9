package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.resources.ResourceNames;

/**
 * What each NodePool's limits still allow during one pass (upstream's {@code remainingResources}):
 * the limits less the NodePool's usage at the start, less what each NodeClaim planned from it counts.
 * Upstream's pessimistic accounting: a NodeClaim counts as one node of its largest instance-type
 * option, and a NodePool only launches types whose capacity fits what is left.
 */
final class NodePoolLimits {
  /** The resource name of the node-count limit. */
  static final String NODES = "nodes";

  private final int dimensions;
  private final int nodesDimension;
  /** Per template ordinal: what its limits still allow, or null when unlimited. */
  private final long[][] remaining;

  NodePoolLimits(List<TemplateIndex> templates, int dimensions) {
    this.dimensions = dimensions;
    this.nodesDimension = ResourceNames.index(NODES);
    this.remaining = new long[templates.size()][];
    for (TemplateIndex template : templates) {
      remaining[template.ordinal] = initial(template.template);
    }
  }

  private long[] initial(NodeClaimTemplate template) {
    if (template.limits() == null) {
      return null;
    }
    long[] left = new long[dimensions];
    Arrays.fill(left, Long.MAX_VALUE);
    for (Map.Entry<String, Long> limit : template.limits().toMilli().entrySet()) {
      int d = ResourceNames.index(limit.getKey());
      left[d] = limit.getValue() - template.usage().milli(d);
    }
    return left;
  }

  /**
   * The template's launchable types within what its limits still allow (a fresh mask), or null,
   * explaining into {@code why} when given, when the node limit is reached or no type is left.
   */
  long[] launchableTypes(TemplateIndex template, StringBuilder why) {
    long[] options = TypeMasks.copy(template.launchable);
    if (TypeMasks.isEmpty(options)) {
      UnschedulableReasons.append(why, "no instance type has an available offering compatible with the nodepool's requirements");
      return null;
    }
    long[] left = remaining[template.ordinal];
    if (left == null) {
      return options;
    }
    if (left[nodesDimension] != Long.MAX_VALUE && left[nodesDimension] < 1000) {
      UnschedulableReasons.append(why, "nodepool node limit reached");
      return null;
    }
    for (int t = TypeMasks.next(options, 0); t >= 0; t = TypeMasks.next(options, t + 1)) {
      for (int d = 0; d < dimensions; d++) {
        if (d != nodesDimension && template.capacity[d][t] > left[d]) {
          options[t >>> 6] &= ~(1L << t);
          break;
        }
      }
    }
    if (TypeMasks.isEmpty(options)) {
      UnschedulableReasons.append(why, "all instance types exceed the nodepool's remaining limits " + describe(left));
      return null;
    }
    return options;
  }

  /** Counts the new NodeClaim against its NodePool's limits: one node of its largest option. */
  void charge(InFlightNodeClaim claim) {
    long[] left = remaining[claim.template.ordinal];
    if (left == null) {
      return;
    }
    long[] largest = claim.template.maxCapacity(claim.options);
    claim.limitCharge = new long[dimensions];
    for (int d = 0; d < dimensions; d++) {
      if (left[d] != Long.MAX_VALUE) {
        claim.limitCharge[d] = d == nodesDimension ? 1000 : largest[d];
        left[d] -= claim.limitCharge[d];
      }
    }
  }

  /** Gives back what a dropped NodeClaim counted against its NodePool's limits. */
  void refund(InFlightNodeClaim claim) {
    long[] left = remaining[claim.template.ordinal];
    if (left != null && claim.limitCharge != null) {
      for (int d = 0; d < dimensions; d++) {
        if (left[d] != Long.MAX_VALUE) {
          left[d] += claim.limitCharge[d];
        }
      }
    }
  }

  /** A copy of what the template's limits still allow (null when unlimited), for {@link #restore}. */
  long[] save(TemplateIndex template) {
    long[] left = remaining[template.ordinal];
    return left == null ? null : left.clone();
  }

  /** Puts back what {@link #save} took. */
  void restore(TemplateIndex template, long[] saved) {
    if (saved != null) {
      System.arraycopy(saved, 0, remaining[template.ordinal], 0, saved.length);
    }
  }

  /**
   * What to add to a limits refusal when the pod would fit one of {@code fitting} (types of the
   * template) but for the limits: which resources every such type needs more of than the limits
   * leave, or, when the node limit is not what refused, that each exceeds them in some resource;
   * empty when the node limit refused.
   */
  String lacking(TemplateIndex template, long[] fitting) {
    long[] left = remaining[template.ordinal];
    List<String> lacking = new ArrayList<>();
    for (int d = 0; d < dimensions; d++) {
      if (d == nodesDimension || left[d] == Long.MAX_VALUE) {
        continue;
      }
      long least = Long.MAX_VALUE;
      for (int t = TypeMasks.next(fitting, 0); t >= 0; t = TypeMasks.next(fitting, t + 1)) {
        least = Math.min(least, template.capacity[d][t]);
      }
      if (least != Long.MAX_VALUE && least > left[d]) {
        lacking.add(ResourceNames.name(d) + " " + Quantity.format(ResourceNames.name(d), least));
      }
    }
    if (!lacking.isEmpty()) {
      return ": every instance type the pod fits has at least " + String.join(", ", lacking) + " (raise the nodepool's limits)";
    }
    if (left[nodesDimension] == Long.MAX_VALUE || left[nodesDimension] >= 1000) {
      return ": each instance type the pod fits exceeds them in some resource (raise the nodepool's limits)";
    }
    return "";
  }

  private static String describe(long[] left) {
    Map<String, String> shown = new TreeMap<>();
    for (int d = 0; d < left.length; d++) {
      if (left[d] != Long.MAX_VALUE) {
        shown.put(ResourceNames.name(d), Quantity.format(ResourceNames.name(d), Math.max(0, left[d])));
      }
    }
    return shown.toString().replace("=", ": ");
  }
}
