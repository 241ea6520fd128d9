package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.topology.Topology;
import sh.karpenter.core.topology.TopologyGroup;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;

/**
 * Decides a NodeClaim's zone as soon as a pod with zonal pod anti-affinity joins it
 * (docs/behaviour/scheduling.md#zonal-anti-affinity-in-one-batch). Upstream leaves the zone open
 * until the cloud provider launches the NodeClaim, so the anti-affinity term blocks every zone the
 * NodeClaim might land in and each further replica waits for another batch. Here the placement is
 * narrowed to one of the zones the term still allows, which is then the only zone the topology
 * records, so the other replicas take the other zones in the same pass.
 *
 * <p>Of the allowed zones where some of the NodeClaim's remaining instance types has an available
 * offering (and the pod still fits, minValues still holds), the one chosen is: least wanted by the
 * pending pods the term keeps out of it (each weighs one over the number of allowed zones it may use,
 * so a pod restricted to one zone keeps that zone free), then the cheapest offering, then the most
 * instance types left, then the first by name. The placement is kept open, as upstream, when no
 * pending pod the terms keep out may use any of the zones (deciding now would help no one and only
 * take the choice away from the pods that may still join), or when no single zone works.
 */
final class ZonePinning {
  /** The topology keys that name a zone, which offerings carry and a NodeClaim may leave open (a list: pinned in this order). */
  static final List<String> ZONE_KEYS = List.of(Labels.ZONE, AwsLabels.TOPOLOGY_ZONE_ID);

  private static final double EPSILON = 1e-9;

  private final Topology topology;
  private final List<SchedulingPod> pods;
  private final boolean[] placed;
  /** Per group of a zonal anti-affinity term, the pending pods it selects (filled as groups come up). */
  private final Map<TopologyGroup, List<SchedulingPod>> selectedByGroup = new IdentityHashMap<>();

  /**
   * @param pods the pass's pending pods, by order
   * @param placed per pod (by order), whether the pass has placed it (a live view)
   */
  ZonePinning(Topology topology, List<SchedulingPod> pods, boolean[] placed) {
    this.topology = topology;
    this.pods = pods;
    this.placed = placed;
  }

  /**
   * The placement narrowed to one zone for each zone key on which the pod has a required pod
   * anti-affinity term that the placement leaves with more than one zone; the placement itself when
   * there is none. Preferred terms never pin (they are relaxed instead, as upstream).
   *
   * @param claim the NodeClaim the pod would join
   */
  InFlightNodeClaim.Placement pin(InFlightNodeClaim claim, SchedulingPod pod, InFlightNodeClaim.Placement placement) {
    if (!hasZonalTerm(pod)) {
      return placement; // e.g. hostname anti-affinity: no term identities to look up on every join
    }
    List<TopologyGroup> groups = topology.requiredAntiAffinityGroups(pod.pod);
    if (groups.isEmpty()) {
      return placement;
    }
    InFlightNodeClaim.Placement result = placement;
    for (String key : ZONE_KEYS) {
      List<TopologyGroup> terms = new ArrayList<>(1);
      for (TopologyGroup group : groups) {
        if (key.equals(group.key())) {
          terms.add(group);
        }
      }
      if (terms.isEmpty() || !claim.template.isOfferingKey(key) || !result.requirements().has(key)) {
        continue;
      }
      Requirement zones = result.requirements().get(key);
      if (zones.complement() || zones.size() < 2) {
        continue;
      }
      InFlightNodeClaim.Placement pinned = choose(claim, pod, result, key, zones.valueList(), terms);
      if (pinned != null) {
        result = pinned;
      }
    }
    return result;
  }

  /** Whether some required pod anti-affinity term of the pod is on a zone key. */
  private static boolean hasZonalTerm(SchedulingPod pod) {
    for (PodAffinityTerm term : pod.pod.requiredPodAntiAffinity()) {
      if (ZONE_KEYS.contains(term.topologyKey())) {
        return true;
      }
    }
    return false;
  }

  private InFlightNodeClaim.Placement choose(
      InFlightNodeClaim claim, SchedulingPod pod, InFlightNodeClaim.Placement placement, String key, List<String> zones, List<TopologyGroup> terms) {
    double[] demand = demand(pod, key, zones, terms);
    if (Arrays.stream(demand).sum() == 0) {
      return null; // no pending pod the terms keep out could use these zones: deciding now helps none
    }
    InFlightNodeClaim.Placement best = null;
    double bestDemand = 0;
    double bestPrice = 0;
    int bestOptions = 0;
    for (int z = 0; z < zones.size(); z++) { // zones are in name order, so ties go to the first
      Requirements narrowed = placement.requirements().copy().add(Requirement.in(key, zones.get(z)));
      InFlightNodeClaim.Placement candidate = claim.filter(pod, narrowed, List.of(key), placement.options(), null);
      if (candidate == null) {
        continue;
      }
      double price = SchedulingPass.cheapestPrice(candidate.options(), claim.template.pricing(candidate.requirements()));
      int options = TypeMasks.cardinality(candidate.options());
      if (best == null || better(demand[z] - bestDemand, price - bestPrice, options - bestOptions)) {
        best = new InFlightNodeClaim.Placement(
            candidate.requirements(), candidate.options(), candidate.relaxedMinValues() || placement.relaxedMinValues(), placement.reservations());
        bestDemand = demand[z];
        bestPrice = price;
        bestOptions = options;
      }
    }
    return best;
  }

  /**
   * Per zone, how much the pending pods not placed yet that the terms would keep out of it need it:
   * each such pod adds one over the number of the zones its own requirements allow.
   */
  private double[] demand(SchedulingPod pod, String key, List<String> zones, List<TopologyGroup> terms) {
    double[] demand = new double[zones.size()];
    boolean[] allows = new boolean[zones.size()];
    Set<SchedulingPod> counted = terms.size() > 1 ? Collections.newSetFromMap(new IdentityHashMap<>()) : null;
    for (TopologyGroup term : terms) {
      for (SchedulingPod other : selected(term)) {
        if (other == pod || placed[other.order] || (counted != null && !counted.add(other))) {
          continue;
        }
        Requirement own = other.strictRequirements.has(key) ? other.strictRequirements.get(key) : null;
        int allowed = 0;
        for (int z = 0; z < zones.size(); z++) {
          allows[z] = own == null || own.has(zones.get(z));
          if (allows[z]) {
            allowed++;
          }
        }
        for (int z = 0; z < zones.size() && allowed > 0; z++) {
          if (allows[z]) {
            demand[z] += 1.0 / allowed;
          }
        }
      }
    }
    return demand;
  }

  /** The pending pods the group selects, in order (selection never changes during the pass). */
  private List<SchedulingPod> selected(TopologyGroup group) {
    return selectedByGroup.computeIfAbsent(group, g -> {
      List<SchedulingPod> selected = new ArrayList<>();
      for (SchedulingPod other : pods) {
        if (g.selects(other.pod.namespace(), other.pod.labels())) {
          selected.add(other);
        }
      }
      return selected;
    });
  }

  /** Less demand, then a lower price, then more options (demand and price compared with a tolerance). */
  private static boolean better(double demandDelta, double priceDelta, int optionsDelta) {
    if (Math.abs(demandDelta) > EPSILON) {
      return demandDelta < 0;
    }
    if (Math.abs(priceDelta) > EPSILON) {
      return priceDelta < 0;
    }
    return optionsDelta > 0;
  }
}
