package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.List;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirements;

/**
 * An existing node during a pass: what is still available on it (allocatable minus bound pods,
 * minus the DaemonSet pods still to come, minus pods placed in this pass), its host ports and its
 * labels as requirements.
 */
final class NodeSlot {
  final ExistingNode node;
  /** Frozen. */
  final Requirements requirements;
  final long[] available;
  final List<HostPort> hostPorts = new ArrayList<>();
  final List<Pod> placed = new ArrayList<>();

  NodeSlot(ExistingNode node, Requirements requirements, long[] available) {
    this.node = node;
    this.requirements = requirements;
    this.available = available;
  }

  boolean hasRoomFor(long[] requests) {
    for (int d = 0; d < requests.length; d++) {
      if (requests[d] > 0 && requests[d] > available[d]) {
        return false;
      }
    }
    return true;
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
