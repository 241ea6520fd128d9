package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.WeightedPodAffinityTerm;
import sh.karpenter.core.pod.WeightedRequirements;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Taints;
import sh.karpenter.core.topology.TopologyConstraints;
import sh.karpenter.core.volume.VolumeTopology;

/**
 * A pending pod as the scheduler sees it during a pass: its constraints in their current, possibly
 * relaxed form (upstream relaxes a deep copy of the pod; here the pod stays untouched and this holds
 * what is left), with the derived node requirements and requests as a plain vector.
 */
final class SchedulingPod {
  final Pod pod;
  /** Requests by resource index (milli-units), including {@code pods: 1}. */
  final long[] requests;
  final List<HostPort> hostPorts;
  final int order;

  List<Requirements> requiredTerms;
  /** Heaviest first. */
  List<WeightedRequirements> preferredNodeAffinity;
  /** Heaviest first. */
  List<WeightedPodAffinityTerm> preferredAffinity;
  /** Heaviest first. */
  List<WeightedPodAffinityTerm> preferredAntiAffinity;
  List<TopologySpreadConstraint> spread;
  boolean toleratesPreferNoSchedule;

  /** Node selector, first required term and heaviest preferred term (frozen). */
  Requirements requirements;
  /** Node selector and first required term (frozen): what topology domains are judged by. */
  Requirements strictRequirements;
  /** The pod's persistent volume claims per CSI driver, once resolved (for CSI volume limits); null before. */
  private Map<String, Set<String>> csiVolumes;
  /** Bumped on each relaxation, invalidating anything cached from the previous form. */
  int revision;

  SchedulingPod(Pod pod, int dimensions, int order, boolean ignorePreferences) {
    this.pod = pod;
    this.order = order;
    this.requests = vector(pod.requests(), dimensions);
    this.hostPorts = pod.hostPorts();
    this.requiredTerms = new ArrayList<>(pod.requiredNodeAffinityTerms());
    Comparator<WeightedRequirements> byNodeWeight = Comparator.comparingInt(w -> -w.weight());
    Comparator<WeightedPodAffinityTerm> byPodWeight = Comparator.comparingInt(w -> -w.weight());
    this.preferredNodeAffinity = new ArrayList<>(ignorePreferences ? List.of() : pod.preferredNodeAffinity());
    this.preferredNodeAffinity.sort(byNodeWeight);
    this.preferredAffinity = new ArrayList<>(ignorePreferences ? List.of() : pod.preferredPodAffinity());
    this.preferredAffinity.sort(byPodWeight);
    this.preferredAntiAffinity = new ArrayList<>(ignorePreferences ? List.of() : pod.preferredPodAntiAffinity());
    this.preferredAntiAffinity.sort(byPodWeight);
    this.spread = new ArrayList<>();
    for (TopologySpreadConstraint constraint : pod.topologySpreadConstraints()) {
      if (!ignorePreferences || constraint.whenUnsatisfiable() == TopologySpreadConstraint.WhenUnsatisfiable.DoNotSchedule) {
        spread.add(constraint);
      }
    }
    derive();
  }

  /** The pod's persistent volume claims per CSI driver, resolved once per pod. */
  Map<String, Set<String>> csiVolumes(VolumeTopology volumes) {
    if (csiVolumes == null) {
      csiVolumes = volumes.csiVolumes(pod);
    }
    return csiVolumes;
  }

  /** Whether one of the pod's host ports conflicts with one of {@code used}. */
  boolean hostPortsConflictWith(List<HostPort> used) {
    return HostPort.anyConflict(used, hostPorts);
  }

  static long[] vector(Resources resources, int dimensions) {
    long[] vector = new long[dimensions];
    for (int i = 0; i < dimensions; i++) {
      vector[i] = resources.milli(i);
    }
    return vector;
  }

  /** Recomputes the derived requirements after the constraints changed. */
  void derive() {
    Requirements strict = Requirements.fromLabels(pod.nodeSelector());
    if (!requiredTerms.isEmpty()) {
      strict.add(requiredTerms.get(0));
    }
    Requirements preferred = strict.copy();
    if (!preferredNodeAffinity.isEmpty()) {
      preferred.add(preferredNodeAffinity.get(0).requirements());
    }
    strictRequirements = strict.frozen();
    requirements = preferred.frozen();
    revision++;
  }

  /** Null when the pod tolerates the taints (PreferNoSchedule ones only once relaxed), else why not. */
  String untolerated(List<Taint> taints) {
    if (taints.isEmpty()) {
      return null;
    }
    return Taints.untolerated(taints, pod.tolerations(), toleratesPreferNoSchedule);
  }

  /** The pod's current topology constraints: preferred terms not yet relaxed count as required. */
  TopologyConstraints topologyConstraints() {
    List<PodAffinityTerm> affinity = new ArrayList<>(pod.requiredPodAffinity());
    for (WeightedPodAffinityTerm term : preferredAffinity) {
      affinity.add(term.term());
    }
    List<PodAffinityTerm> antiAffinity = new ArrayList<>(pod.requiredPodAntiAffinity());
    for (WeightedPodAffinityTerm term : preferredAntiAffinity) {
      antiAffinity.add(term.term());
    }
    List<Requirements> nodeTerms = new ArrayList<>();
    Requirements selector = Requirements.fromLabels(pod.nodeSelector());
    for (Requirements term : requiredTerms) {
      nodeTerms.add(selector.copy().add(term).frozen());
    }
    if (nodeTerms.isEmpty() && !selector.isEmpty()) {
      nodeTerms.add(selector.frozen());
    }
    return new TopologyConstraints(spread, affinity, antiAffinity, nodeTerms, pod.tolerations());
  }

  @Override
  public String toString() {
    return pod.key();
  }
}
