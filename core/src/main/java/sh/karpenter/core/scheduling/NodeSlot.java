package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.taints.Taints;
import sh.karpenter.core.topology.Topology;
import sh.karpenter.core.volume.VolumeTopology;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * An existing node during a pass (upstream's scheduling {@code ExistingNode}): what is still
 * available on it (allocatable minus bound pods, minus the DaemonSet pods still to come, minus pods
 * placed in this pass), its host ports, the persistent volume claims attached per CSI driver (when
 * the node has volume limits) and its labels as requirements. It answers whether a pod fits
 * ({@link #canAdd}) and takes it ({@link #add}).
 */
final class NodeSlot {
  final ExistingNode node;
  /** Frozen. */
  final Requirements requirements;
  final long[] available;
  final List<HostPort> hostPorts = new ArrayList<>();
  final List<Pod> placed = new ArrayList<>();
  /** Distinct claims per CSI driver of the bound and placed pods; tracked only when the node has volume limits. */
  final Map<String, Set<String>> volumesInUse = new HashMap<>();
  /**
   * CSI volume limits by driver: its CSINode's, and for a driver the CSINode reports none for, its
   * instance type's (upstream v1.15 {@code AddFallbackLimit}); a driver in neither is unlimited.
   */
  private final Map<String, Integer> volumeLimits;
  private final Topology topology;
  private final VolumeTopology volumes;

  /**
   * A pass's slot for the node, starting from what is available on it before the pass, with the host
   * ports and CSI volumes of the pods bound to it.
   *
   * @param fallbackVolumeLimits the volume attachment limits of the node's instance type (empty when
   *     unknown), for the drivers its CSINode reports no limit for (not yet registered, say)
   */
  NodeSlot(ExistingNode node, Basis basis, Topology topology, VolumeTopology volumes, Map<String, Integer> fallbackVolumeLimits) {
    this.node = node;
    if (fallbackVolumeLimits.isEmpty()) {
      this.volumeLimits = node.volumeLimits();
    } else {
      Map<String, Integer> limits = new HashMap<>(fallbackVolumeLimits);
      limits.putAll(node.volumeLimits());
      this.volumeLimits = limits;
    }
    this.requirements = basis.requirements();
    this.available = basis.available().clone();
    this.topology = topology;
    this.volumes = volumes;
    for (Pod bound : node.pods()) {
      hostPorts.addAll(bound.hostPorts());
      if (!volumeLimits.isEmpty()) {
        attach(volumes.csiVolumes(bound));
      }
    }
  }

  /**
   * What a node offers before a pass places anything, which depends only on the node, the DaemonSet
   * pods and the resource dimensions (so a {@link SchedulerCache} keeps it across passes): its labels
   * as requirements, and its allocatable less its bound pods and the DaemonSet pods that would run
   * there but are not bound yet.
   *
   * @param requirements frozen
   * @param available by resource index; never modified (each slot takes a copy)
   */
  record Basis(Requirements requirements, long[] available) {
    static Basis of(ExistingNode node, List<SchedulingPod> daemons, int dimensions) {
      long[] available = SchedulingPod.vector(node.allocatable(), dimensions);
      long[] daemonRequests = new long[dimensions];
      long[] daemonBound = new long[dimensions];
      Requirements labels = Topology.nodeRequirements(node.name(), node.labels()).frozen();
      for (SchedulingPod daemon : daemons) {
        if (Taints.untolerated(node.taints(), daemon.pod.tolerations(), true) == null
            && labels.isCompatible(daemon.requirements, Set.of())) {
          ResourceVectors.add(daemonRequests, daemon.requests);
        }
      }
      for (Pod bound : node.pods()) {
        long[] requests = SchedulingPod.vector(bound.requests(), dimensions);
        for (int d = 0; d < dimensions; d++) {
          available[d] -= requests[d];
        }
        if (bound.isOwnedByDaemonSet()) {
          ResourceVectors.add(daemonBound, requests);
        }
      }
      for (int d = 0; d < dimensions; d++) {
        available[d] -= Math.max(0, daemonRequests[d] - daemonBound[d]);
      }
      return new Basis(labels, available);
    }
  }

  /**
   * Upstream's {@code ExistingNode.CanAdd}: the node's requirements narrowed by the pod, its volumes
   * and its topology when the pod fits (room, taints, CSI volume limits, host ports, requirements,
   * topology), else null. Changes nothing.
   */
  Requirements canAdd(SchedulingPod pod, List<Requirements> alternatives) {
    return canAdd(pod, alternatives, node.taints());
  }

  /** Whether the node is cordoned and the pod would fit it but for the cordon. */
  boolean wouldFitUncordoned(SchedulingPod pod, List<Requirements> alternatives) {
    if (!cordoned()) {
      return false;
    }
    List<Taint> uncordoned = new ArrayList<>(node.taints());
    uncordoned.removeIf(NodeSlot::isCordon);
    return canAdd(pod, alternatives, uncordoned) != null;
  }

  private Requirements canAdd(SchedulingPod pod, List<Requirements> alternatives, List<Taint> taints) {
    if (!hasRoomFor(pod.requests)
        || pod.untolerated(taints) != null
        || (!volumeLimits.isEmpty() && !volumesFit(pod.csiVolumes(volumes)))
        || pod.hostPortsConflictWith(hostPorts)) {
      return null;
    }
    Requirements narrowed = requirements;
    if (!pod.requirements.isEmpty()) {
      if (!narrowed.isCompatible(pod.requirements, Set.of())) {
        return null;
      }
      narrowed = narrowed.copy().add(pod.requirements);
    }
    for (Requirements volume : alternatives) {
      Requirements candidate = narrowed;
      if (!volume.isEmpty()) {
        if (!candidate.isCompatible(volume, Set.of())) {
          continue;
        }
        candidate = candidate.copy().add(volume);
      }
      Topology.Outcome outcome = topology.addRequirements(pod.pod, pod.strictRequirements, candidate, false);
      if (outcome.failed()) {
        continue;
      }
      if (outcome.requirements() != null) {
        if (!candidate.isCompatible(outcome.requirements(), Set.of())) {
          continue;
        }
        candidate = candidate.copy().add(outcome.requirements());
      }
      return candidate;
    }
    return null;
  }

  /** Upstream's {@code ExistingNode.Add}: places the pod here, narrowed to {@code requirements} (from {@link #canAdd}). */
  void add(SchedulingPod pod, Requirements requirements) {
    placed.add(pod.pod);
    hostPorts.addAll(pod.hostPorts);
    for (int d = 0; d < available.length; d++) {
      available[d] -= pod.requests[d];
    }
    if (!volumeLimits.isEmpty()) {
      attach(pod.csiVolumes(volumes));
    }
    topology.record(pod.pod, requirements, node.taints(), Set.of());
  }

  private boolean hasRoomFor(long[] requests) {
    for (int d = 0; d < requests.length; d++) {
      if (requests[d] > 0 && requests[d] > available[d]) {
        return false;
      }
    }
    return true;
  }

  /** Whether the pod's claims ({@code csiVolumes}, per driver) fit the node's CSI volume limits alongside those in use. */
  private boolean volumesFit(Map<String, Set<String>> csiVolumes) {
    for (Map.Entry<String, Set<String>> driver : csiVolumes.entrySet()) {
      Integer limit = volumeLimits.get(driver.getKey());
      if (limit == null) {
        continue;
      }
      Set<String> inUse = volumesInUse.getOrDefault(driver.getKey(), Set.of());
      int count = inUse.size();
      for (String claim : driver.getValue()) {
        if (!inUse.contains(claim)) {
          count++;
        }
      }
      if (count > limit) {
        return false;
      }
    }
    return true;
  }

  private void attach(Map<String, Set<String>> csiVolumes) {
    csiVolumes.forEach((driver, claims) -> volumesInUse.computeIfAbsent(driver, d -> new HashSet<>()).addAll(claims));
  }

  /** A cordoned node carries {@code node.kubernetes.io/unschedulable:NoSchedule} (see {@code TaintKeys}). */
  private boolean cordoned() {
    for (Taint taint : node.taints()) {
      if (isCordon(taint)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isCordon(Taint taint) {
    return taint.key().equals(TaintKeys.NODE_UNSCHEDULABLE) && taint.effect() == Taint.Effect.NoSchedule;
  }

  @Override
  public String toString() {
    return node.name();
  }
}
