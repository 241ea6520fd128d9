package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.requirements.Requirements;

/**
 * A NodeClaim being planned in this pass (upstream's scheduling {@code NodeClaim}): the requirements
 * its pods narrowed it to, the instance types still able to host them all (a bit set over the
 * template's types), the pods and their summed requests.
 */
final class InFlightNodeClaim {
  final TemplateIndex template;
  final String hostname;
  final int sequence;
  /** Frozen. */
  Requirements requirements;
  long[] options;
  /** The pods' summed requests (DaemonSet overhead is added when the claim is finalised). */
  final long[] requests;
  final List<SchedulingPod> pods = new ArrayList<>();
  final List<HostPort> hostPorts = new ArrayList<>();
  /** Per dimension, the largest allocatable among the options: a quick upper bound on room left. */
  long[] maxAllocatable;
  boolean minValuesRelaxed;
  /** What the claim counts against its NodePool's limits (its largest option's capacity), or null when unlimited. */
  long[] limitCharge;
  /** Index in the scheduler's fewest-pods-first order. */
  int position;

  InFlightNodeClaim(TemplateIndex template, String hostname, int sequence, Requirements requirements, long[] options) {
    this.template = template;
    this.hostname = hostname;
    this.sequence = sequence;
    this.requirements = requirements;
    this.options = options;
    this.requests = new long[template.dimensions];
    this.maxAllocatable = template.maxAllocatable(options);
  }

  /** False when no option can possibly take these requests on top of the current ones. */
  boolean mayFit(long[] podRequests) {
    for (int d = 0; d < podRequests.length; d++) {
      long need = podRequests[d];
      if (need > 0 && requests[d] + need > maxAllocatable[d]) {
        return false;
      }
    }
    return true;
  }

  void add(SchedulingPod pod, Requirements narrowed, long[] remainingOptions, boolean relaxedMinValues) {
    pods.add(pod);
    hostPorts.addAll(pod.hostPorts);
    for (int d = 0; d < requests.length; d++) {
      requests[d] += pod.requests[d];
    }
    requirements = narrowed;
    if (!Arrays.equals(options, remainingOptions)) {
      options = remainingOptions;
      maxAllocatable = template.maxAllocatable(remainingOptions);
    }
    minValuesRelaxed |= relaxedMinValues;
  }

  /** Fewest pods first, then oldest: upstream's order for trying in-flight claims. */
  boolean precedes(InFlightNodeClaim other) {
    return pods.size() < other.pods.size() || (pods.size() == other.pods.size() && sequence < other.sequence);
  }

  @Override
  public String toString() {
    return template + "/" + hostname + "(" + pods.size() + " pods)";
  }
}
