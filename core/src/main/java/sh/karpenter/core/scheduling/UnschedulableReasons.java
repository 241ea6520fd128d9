package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.volume.VolumeTopology;

/**
 * Why a pod fits nowhere (docs/behaviour/scheduling.md): the pass places pods without building any
 * message, and for a pod it could not place reruns the NodePool attempts here with a {@code why}
 * buffer, which the checks of {@link InFlightNodeClaim} and {@link NodePoolLimits} fill through
 * {@link #append}. This class words the result: one reason per NodePool, cordoned nodes the pod
 * would fit first, a volume zone no offering has in place of the NodePool's reason, and limits,
 * missing room and DaemonSet host ports named so that a person can act on them.
 */
final class UnschedulableReasons {
  /** One attempt at a new NodeClaim of a NodePool for the pod, explaining a refusal into {@code why}. */
  interface NewNodeClaimAttempt {
    SchedulingPass.Outcome tryNewClaim(TemplateIndex template, SchedulingPod pod, List<Requirements> alternatives, StringBuilder why);
  }

  private final List<NodeSlot> nodes;
  private final List<TemplateIndex> templates;
  private final VolumeTopology volumes;

  UnschedulableReasons(List<NodeSlot> nodes, List<TemplateIndex> templates, VolumeTopology volumes) {
    this.nodes = nodes;
    this.templates = templates;
    this.volumes = volumes;
  }

  /** Appends the reason to {@code why} when explaining ({@code why} not null). */
  static void append(StringBuilder why, String reason) {
    if (why != null && reason != null) {
      why.append(reason);
    }
  }

  /**
   * Reruns the NodePool attempts, collecting why each refused the pod. A NodePool that cannot offer
   * the zone a volume of the pod is in (or may be provisioned in) is refused for that reason; cordoned
   * existing nodes the pod would fit but for the cordon come first.
   */
  String explain(SchedulingPod pod, List<Requirements> alternatives, NewNodeClaimAttempt attempt) {
    String cordoned = cordonedNodesThatWouldFit(pod, alternatives);
    String prefix = cordoned == null ? "" : cordoned + "; ";
    if (templates.isEmpty()) {
      return prefix + (nodes.isEmpty() ? "no NodePool can launch nodes" : "no existing node fits and no NodePool can launch nodes");
    }
    StringBuilder reasons = new StringBuilder(prefix);
    List<VolumeTopology.ZoneConstraint> volumeZones = volumes.zoneConstraints(pod.pod);
    boolean first = true;
    for (TemplateIndex template : templates) {
      StringBuilder why = new StringBuilder();
      SchedulingPass.Outcome outcome = attempt.tryNewClaim(template, pod, alternatives, why);
      if (outcome == SchedulingPass.Outcome.SCHEDULED) {
        return null; // unreachable: the same attempt just failed
      }
      String volumeZone = volumeZoneNotOffered(template, volumeZones);
      if (!first) {
        reasons.append("; ");
      }
      first = false;
      reasons.append("incompatible with nodepool \"").append(template).append("\": ").append(volumeZone != null ? volumeZone : why);
      if (outcome == SchedulingPass.Outcome.RESERVED_OFFERING_ERROR) {
        break;
      }
    }
    return reasons.toString();
  }

  /**
   * Names the first volume of the pod that is in (or can only be provisioned in) zones none of the
   * NodePool's available offerings is in, or null when there is none.
   */
  private static String volumeZoneNotOffered(TemplateIndex template, List<VolumeTopology.ZoneConstraint> volumeZones) {
    if (volumeZones.isEmpty()) {
      return null;
    }
    SortedSet<String> offered = new TreeSet<>();
    for (int t = TypeMasks.next(template.launchable, 0); t >= 0; t = TypeMasks.next(template.launchable, t + 1)) {
      for (Offering offering : template.types[t].offerings()) {
        if (offering.available() && offering.zone() != null && offering.isCompatible(template.requirements)) {
          offered.add(offering.zone());
        }
      }
    }
    for (VolumeTopology.ZoneConstraint volume : volumeZones) {
      if (Collections.disjoint(volume.zones(), offered)) {
        String zones = (volume.zones().size() == 1 ? "zone " : "zones ") + String.join(", ", volume.zones());
        String where = volume.bound() ? "is in " + zones : "can only be provisioned in " + zones + " (" + volume.source() + " allowedTopologies)";
        return "volume pvc \"" + volume.claim() + "\" " + where + ", which nodepool \"" + template + "\" does not offer (zones: "
            + (offered.isEmpty() ? "none" : String.join(", ", offered)) + ")";
      }
    }
    return null;
  }

  /**
   * {@code existing node "x" would fit the pod but is cordoned} for the cordoned nodes ({@code
   * node.kubernetes.io/unschedulable:NoSchedule}) the pod would fit without the cordon, or null.
   */
  private String cordonedNodesThatWouldFit(SchedulingPod pod, List<Requirements> alternatives) {
    List<String> names = new ArrayList<>();
    for (NodeSlot node : nodes) {
      if (node.wouldFitUncordoned(pod, alternatives)) {
        names.add("\"" + node.node.name() + "\"");
      }
    }
    if (names.isEmpty()) {
      return null;
    }
    return names.size() == 1
        ? "existing node " + names.getFirst() + " would fit the pod but is cordoned (spec.unschedulable)"
        : "existing nodes " + String.join(", ", names) + " would fit the pod but are cordoned (spec.unschedulable)";
  }

  /**
   * Rewrites a limits refusal in {@code why} so that it names what a person can act on: when the
   * pod would not fit the NodePool even without limits (too big for every instance type, say), that
   * reason comes first and the limits second, since raising them would not help; otherwise the
   * limits, and which resources every instance type the pod fits needs more of than they leave.
   *
   * @param unlimited a fresh NodeClaim of the NodePool over all its launchable types, to try the pod on
   */
  static void limits(StringBuilder why, InFlightNodeClaim unlimited, SchedulingPod pod, List<Requirements> alternatives, NodePoolLimits limits) {
    String limitsReason = why.toString();
    StringBuilder withoutLimits = new StringBuilder();
    InFlightNodeClaim.Placement placement = unlimited.canAdd(pod, alternatives, withoutLimits);
    why.setLength(0);
    if (placement == null) {
      why.append(withoutLimits).append("; also ").append(limitsReason);
      return;
    }
    why.append(limitsReason).append(limits.lacking(unlimited.template, placement.options()));
  }

  /**
   * Upstream's {@code volumeAttachmentLimitError}: {@code would exceed volume limit for all instance
   * type options}, naming the first CSI driver (by name) whose volumes alone no option can attach.
   *
   * @param counts per driver, the volumes the NodeClaim would have to attach
   */
  static String volumeLimitExceeded(TemplateIndex template, long[] options, Map<String, Integer> counts) {
    String reason = "would exceed volume limit for all instance type options";
    for (Map.Entry<String, Integer> driver : counts.entrySet()) {
      long[] supporting = template.supportingVolumes(driver.getKey(), driver.getValue());
      if (supporting != null && !TypeMasks.intersects(supporting, options)) {
        return reason + ": csi driver \"" + driver.getKey() + "\" needs " + driver.getValue() + " volumes, the largest limit is "
            + template.largestVolumeLimit(driver.getKey(), options);
      }
    }
    return reason;
  }

  /**
   * Tells apart which of requirements, offerings and fit left no instance type for the pod on the claim.
   *
   * @param options the claim's options the pod was filtered from
   */
  static String noInstanceType(
      InFlightNodeClaim claim, long[] options, SchedulingPod pod, Requirements requirements, List<String> changedKeys, long[] matching) {
    TemplateIndex template = claim.template;
    long[] candidates = TypeMasks.copy(options);
    if (matching != null && !TypeMasks.andInto(candidates, matching)) {
      List<String> parts = new ArrayList<>();
      for (String key : new TreeSet<>(changedKeys)) {
        if (requirements.has(key)) {
          parts.add(requirements.get(key).toString());
        }
      }
      return "no instance type with an available offering satisfies " + String.join(", ", parts);
    }
    String hostPorts = daemonSetHostPortConflict(template, candidates, pod);
    if (hostPorts != null) {
      return hostPorts;
    }
    long[] smallest = null;
    for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
      if (smallest == null || ResourceVectors.lessThan(group.overhead(), smallest)) {
        smallest = group.overhead();
      }
    }
    int dimensions = template.dimensions;
    long[] total = new long[dimensions];
    for (int d = 0; d < dimensions; d++) {
      total[d] = claim.requests[d] + pod.requests[d] + smallest[d];
    }
    long[] largest = template.maxAllocatable(candidates);
    StringBuilder s = new StringBuilder("no instance type has room for requests ").append(ResourceVectors.describe(pod.requests));
    if (!ResourceVectors.isZero(smallest)) {
      s.append(" plus daemonset overhead ").append(ResourceVectors.describe(smallest));
    }
    if (!claim.pods.isEmpty()) {
      s.append(" plus pods already planned ").append(ResourceVectors.describe(claim.requests));
    }
    List<String> exceeded = new ArrayList<>();
    for (int d = 0; d < dimensions; d++) {
      if (total[d] > largest[d]) {
        exceeded.add(ResourceNames.name(d) + " " + Quantity.format(ResourceNames.name(d), largest[d]));
      }
    }
    if (exceeded.isEmpty()) {
      return s.append(" (no single instance type has room in every dimension, or daemonset host ports conflict)").toString();
    }
    return s.append(" (largest allocatable: ").append(String.join(", ", exceeded)).append(')').toString();
  }

  /**
   * {@code host port 8080/TCP is already used by daemonset "ns/name", ...} when every DaemonSet group
   * of the candidate types has a DaemonSet pod binding one of the pod's host ports, else null.
   */
  private static String daemonSetHostPortConflict(TemplateIndex template, long[] candidates, SchedulingPod pod) {
    if (pod.hostPorts.isEmpty()) {
      return null;
    }
    Map<String, String> users = new TreeMap<>();
    for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
      if (!TypeMasks.intersects(group.types(), candidates)) {
        continue;
      }
      boolean conflict = false;
      for (Pod daemon : group.daemons()) {
        for (HostPort port : pod.hostPorts) {
          for (HostPort used : daemon.hostPorts()) {
            if (port.conflicts(used)) {
              conflict = true;
              users.putIfAbsent(describe(port), "daemonset \"" + daemon.namespace() + "/" + (daemon.ownerName() != null ? daemon.ownerName() : daemon.name()) + "\"");
            }
          }
        }
      }
      if (!conflict) {
        return null;
      }
    }
    if (users.isEmpty()) {
      return null;
    }
    List<String> parts = new ArrayList<>();
    users.forEach((port, user) -> parts.add(port + " is already used by " + user));
    return "host port " + String.join(", host port ", parts) + ", whose pod runs on every node this nodepool would launch for the pod";
  }

  /** {@code 8080/TCP}, or {@code 10.0.0.1:8080/TCP} when bound to one address. */
  private static String describe(HostPort port) {
    return (port.isUnspecified() ? "" : port.ip() + ":") + port.port() + "/" + port.protocol();
  }
}
