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
import sh.karpenter.core.taints.Taints;
import sh.karpenter.core.topology.Topology;

/**
 * An existing node during a pass: what is still available on it (allocatable minus bound pods,
 * minus the DaemonSet pods still to come, minus pods placed in this pass), its host ports, the
 * persistent volume claims attached per CSI driver (when the node has volume limits) and its labels
 * as requirements.
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

  /** A pass's slot for the node, starting from what is available on it before the pass. */
  NodeSlot(ExistingNode node, Basis basis) {
    this.node = node;
    this.requirements = basis.requirements();
    this.available = basis.available().clone();
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
          add(daemonRequests, daemon.requests);
        }
      }
      for (Pod bound : node.pods()) {
        long[] requests = SchedulingPod.vector(bound.requests(), dimensions);
        for (int d = 0; d < dimensions; d++) {
          available[d] -= requests[d];
        }
        if (bound.isOwnedByDaemonSet()) {
          add(daemonBound, requests);
        }
      }
      for (int d = 0; d < dimensions; d++) {
        available[d] -= Math.max(0, daemonRequests[d] - daemonBound[d]);
      }
      return new Basis(labels, available);
    }

    private static void add(long[] into, long[] values) {
      for (int d = 0; d < into.length; d++) {
        into[d] += values[d];
      }
    }
  }

  boolean hasRoomFor(long[] requests) {
    for (int d = 0; d < requests.length; d++) {
      if (requests[d] > 0 && requests[d] > available[d]) {
        return false;
      }
    }
    return true;
  }

  /** Whether the pod's claims ({@code csiVolumes}, per driver) fit the node's CSI volume limits alongside those in use. */
  boolean volumesFit(Map<String, Set<String>> csiVolumes) {
    for (Map.Entry<String, Set<String>> driver : csiVolumes.entrySet()) {
      Integer limit = node.volumeLimits().get(driver.getKey());
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

  void attach(Map<String, Set<String>> csiVolumes) {
    csiVolumes.forEach((driver, claims) -> volumesInUse.computeIfAbsent(driver, d -> new HashSet<>()).addAll(claims));
  }

  void add(SchedulingPod pod) {
    placed.add(pod.pod);
    hostPorts.addAll(pod.hostPorts);
    for (int d = 0; d < available.length; d++) {
      available[d] -= pod.requests[d];
    }
  }

  @Override
  public String toString() {
    return node.name();
  }
}
