package sh.karpenter.core.scheduling;

import sh.karpenter.core.pod.TopologySpreadConstraint;

/**
 * Upstream's preference relaxation (preferences.go): each call loosens one thing about a pod that
 * failed to schedule, in a fixed order, so the next attempt has more room.
 */
final class Preferences {
  private Preferences() {}

  /**
   * Relaxes one constraint of the pod, in upstream's order: drop the first required node-affinity
   * term (while more than one remains), the heaviest preferred pod-affinity term, the heaviest
   * preferred pod-anti-affinity term, the heaviest preferred node-affinity term, one ScheduleAnyway
   * spread constraint, and finally tolerate PreferNoSchedule taints (only when some NodePool has
   * one).
   *
   * @return what was relaxed, or null when nothing is left to relax
   */
  static String relax(SchedulingPod pod, boolean preferNoScheduleTaintsExist) {
    String relaxed = relaxOne(pod, preferNoScheduleTaintsExist);
    if (relaxed != null) {
      pod.derive();
    }
    return relaxed;
  }

  private static String relaxOne(SchedulingPod pod, boolean preferNoScheduleTaintsExist) {
    if (pod.requiredTerms.size() > 1) {
      return "removed required node affinity term " + pod.requiredTerms.remove(0);
    }
    if (!pod.preferredAffinity.isEmpty()) {
      return "removed preferred pod affinity term " + pod.preferredAffinity.remove(0).term().topologyKey();
    }
    if (!pod.preferredAntiAffinity.isEmpty()) {
      return "removed preferred pod anti-affinity term " + pod.preferredAntiAffinity.remove(0).term().topologyKey();
    }
    if (!pod.preferredNodeAffinity.isEmpty()) {
      return "removed preferred node affinity term " + pod.preferredNodeAffinity.remove(0).requirements();
    }
    for (int i = 0; i < pod.spread.size(); i++) {
      if (pod.spread.get(i).whenUnsatisfiable() == TopologySpreadConstraint.WhenUnsatisfiable.ScheduleAnyway) {
        return "removed ScheduleAnyway topology spread on " + pod.spread.remove(i).topologyKey();
      }
    }
    if (preferNoScheduleTaintsExist && !pod.toleratesPreferNoSchedule) {
      pod.toleratesPreferNoSchedule = true;
      return "tolerated PreferNoSchedule taints";
    }
    return null;
  }
}
