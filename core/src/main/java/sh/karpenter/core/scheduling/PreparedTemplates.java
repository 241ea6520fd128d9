package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.wellknown.Labels;

/**
 * The part of a scheduling pass that depends only on the NodePools' templates, their instance types
 * and the DaemonSet pods: the templates in the order NodePools are tried (weight, then name), each
 * prepared as a {@link TemplateIndex}, the labels a new NodeClaim may leave undefined, the DaemonSet
 * pods as the pass sees them, and what each capacity reservation reports.
 *
 * <p>A pass builds one, or takes it from a {@link SchedulerCache} when an earlier pass had the same
 * templates and DaemonSet pods. Everything here is either immutable or, in the {@link TemplateIndex}
 * lookup tables, filled lazily with values that depend only on the instance types; no pass state is
 * kept, so passes sharing it get the results they would get alone. It is not safe for concurrent
 * passes (the lazily filled tables are plain maps and arrays).
 */
final class PreparedTemplates {
  /** The input's templates and DaemonSet pods this was prepared from, compared by identity. */
  private final List<NodeClaimTemplate> sourceTemplates;
  private final List<Pod> sourceDaemonSetPods;
  final int dimensions;
  /** Well-known labels plus every label an instance type defines: a new NodeClaim resolves them at launch. */
  final Set<String> allowUndefined;
  /** One pod per DaemonSet (preferences ignored); read only by a pass. */
  final List<SchedulingPod> daemons;
  /** The templates in the order NodePools are tried; each one's ordinal is its position. */
  final List<TemplateIndex> templates;
  /** Whether some template has a PreferNoSchedule taint (pods then relax by tolerating them). */
  final boolean preferNoScheduleTaintsExist;
  /** Per reservation ID, the least capacity any offering reports for it (see {@link ReservationManager}). */
  final Map<String, Integer> reservationCapacity;

  private PreparedTemplates(List<NodeClaimTemplate> templates, List<Pod> daemonSetPods, int dimensions) {
    this.sourceTemplates = templates;
    this.sourceDaemonSetPods = daemonSetPods;
    this.dimensions = dimensions;
    this.allowUndefined = allowUndefined(templates);
    List<SchedulingPod> daemonPods = new ArrayList<>(daemonSetPods.size());
    for (Pod daemon : daemonSetPods) {
      daemonPods.add(new SchedulingPod(daemon, dimensions, daemonPods.size(), true));
    }
    this.daemons = List.copyOf(daemonPods);
    List<NodeClaimTemplate> ordered = new ArrayList<>(templates);
    ordered.sort(
        Comparator.comparingInt((NodeClaimTemplate t) -> -t.weight())
            .thenComparing(NodeClaimTemplate::nodePoolName, Comparator.reverseOrder()));
    List<TemplateIndex> indices = new ArrayList<>(ordered.size());
    boolean preferNoSchedule = false;
    for (NodeClaimTemplate template : ordered) {
      TemplateIndex index = new TemplateIndex(template, indices.size(), dimensions, daemons, allowUndefined);
      indices.add(index);
      preferNoSchedule |= index.hasPreferNoScheduleTaint;
    }
    this.templates = List.copyOf(indices);
    this.preferNoScheduleTaintsExist = preferNoSchedule;
    this.reservationCapacity = Map.copyOf(reservationCapacity(this.templates));
  }

  /** Prepares the templates and DaemonSet pods of {@code input} for passes over {@code dimensions} resources. */
  static PreparedTemplates of(SchedulingInput input, int dimensions) {
    return new PreparedTemplates(input.templates(), input.daemonSetPods(), dimensions);
  }

  /**
   * Whether a pass over {@code input} with {@code dimensions} resources may use this: the same
   * templates and DaemonSet pods (the same objects, in the same order) and the same resource count.
   * The allowed-undefined labels follow from the templates' instance types, so they match too.
   */
  boolean matches(SchedulingInput input, int dimensions) {
    return this.dimensions == dimensions
        && sameElements(sourceTemplates, input.templates())
        && sameElements(sourceDaemonSetPods, input.daemonSetPods());
  }

  private static boolean sameElements(List<?> a, List<?> b) {
    if (a == b) {
      return true;
    }
    if (a.size() != b.size()) {
      return false;
    }
    for (int i = 0; i < a.size(); i++) {
      if (a.get(i) != b.get(i)) {
        return false;
      }
    }
    return true;
  }

  private static Set<String> allowUndefined(List<NodeClaimTemplate> templates) {
    Set<String> keys = new HashSet<>(Labels.WELL_KNOWN);
    // NodePools usually share their instance types: each type's keys once
    Set<InstanceType> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    for (NodeClaimTemplate template : templates) {
      for (InstanceType type : template.instanceTypes()) {
        if (seen.add(type)) {
          type.requirements().addKeysTo(keys);
        }
      }
    }
    return Set.copyOf(keys);
  }

  private static Map<String, Integer> reservationCapacity(List<TemplateIndex> templates) {
    Map<String, Integer> reported = new HashMap<>();
    for (TemplateIndex template : templates) {
      if (!template.hasReservedOfferings()) {
        continue;
      }
      for (InstanceType type : template.types) {
        for (Offering offering : type.offerings()) {
          if (offering.isReserved() && offering.reservationId() != null) {
            reported.merge(offering.reservationId(), Math.max(0, offering.reservationCapacity()), Math::min);
          }
        }
      }
    }
    return reported;
  }
}
