package sh.karpenter.core.scheduling;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.topology.Topology;
import sh.karpenter.core.volume.VolumeTopology;
import sh.karpenter.core.wellknown.Labels;

/**
 * A NodeClaim being planned in this pass (upstream's scheduling {@code NodeClaim}): the requirements
 * its pods narrowed it to, the instance types still able to host them all (a type mask over the
 * template's types), the pods and their summed requests. It answers whether a pod can join
 * ({@link #canAdd}: taints, host ports, requirements, topology, instance-type filtering, reserved
 * capacity) and takes it ({@link #add}).
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
  /**
   * Distinct claims per CSI driver of the pods, tracked only when some type of the template declares
   * volume attachment limits (else null).
   */
  private final Map<String, Set<String>> volumesInUse;

  private final Topology topology;
  private final ReservationManager reservations;
  private final Set<String> allowUndefined;
  private final SchedulerOptions policies;
  private final VolumeTopology volumes;
  private final ZonePinning zonePinning;
  /**
   * Set when the last {@link #canAdd} failed on a reserved-offering error somewhere
   * (docs/behaviour/scheduling.md#reserved-capacity): the pod then waits for the next pass.
   */
  private boolean reservedOfferingError;
  /**
   * Set when the last {@link #canAdd} failed because a topology constraint on this key left the pod
   * no domain here (null otherwise); see {@link InFlightNodeClaims.Scan#ruleOut}.
   */
  private String topologyFailureKey;

  /**
   * Where a pod can go on a NodeClaim: the narrowed requirements and the options left, and the
   * reservations the NodeClaim holds once the pod joins (null when its NodePool has no reserved
   * capacity).
   */
  record Placement(Requirements requirements, long[] options, boolean relaxedMinValues, Set<String> reservations) {
    Placement(Requirements requirements, long[] options, boolean relaxedMinValues) {
      this(requirements, options, relaxedMinValues, null);
    }
  }

  /**
   * @param requirements frozen: the template's, pinned to {@code hostname}
   * @param options the template's types the NodeClaim may launch as (owned by the claim from now on)
   * @param allowUndefined labels the NodeClaim may leave undefined when matched against pod requirements
   * @param policies the pass's minValues policy and reserved-offering mode
   * @param volumes the cluster's volumes, to count each pod's CSI volumes against the types' attachment limits
   * @param zonePinning decides the zone when a pod with zonal anti-affinity joins
   */
  InFlightNodeClaim(
      TemplateIndex template,
      String hostname,
      int sequence,
      Requirements requirements,
      long[] options,
      Topology topology,
      ReservationManager reservations,
      Set<String> allowUndefined,
      SchedulerOptions policies,
      VolumeTopology volumes,
      ZonePinning zonePinning) {
    this.template = template;
    this.hostname = hostname;
    this.sequence = sequence;
    this.requirements = requirements;
    this.options = options;
    this.requests = new long[template.dimensions];
    this.maxAllocatable = template.maxAllocatable(options);
    this.topology = topology;
    this.reservations = reservations;
    this.allowUndefined = allowUndefined;
    this.policies = policies;
    this.volumes = volumes;
    this.zonePinning = zonePinning;
    this.volumesInUse = template.hasVolumeLimits() ? new HashMap<>() : null;
  }

  /** Whether the last {@link #canAdd} that failed ran into a reserved-offering error. */
  boolean reservedOfferingError() {
    return reservedOfferingError;
  }

  /** The key of the topology constraint the last {@link #canAdd} failed on, or null. */
  String topologyFailureKey() {
    return topologyFailureKey;
  }

  /**
   * Upstream's {@code NodeClaim.CanAdd}: taints, the CSI volume attachment limits of the options
   * (v1.15), host ports, requirement compatibility (undefined well-known labels allowed), then for each
   * volume alternative the topology requirements, the instance-type filter and reserved capacity.
   * Returns null when the pod cannot join; {@code why}, when given, collects the reason. Changes
   * nothing but the reserved-offering-error flag.
   */
  Placement canAdd(SchedulingPod pod, List<Requirements> alternatives, StringBuilder why) {
    reservedOfferingError = false;
    topologyFailureKey = null;
    String untolerated = pod.untolerated(template.template.taints());
    if (untolerated != null) {
      return fail(why, untolerated);
    }
    long[] candidates = options;
    if (volumesInUse != null && !pod.pod.persistentVolumeClaims().isEmpty()) {
      candidates = optionsAttaching(pod, why);
      if (candidates == null) {
        return null;
      }
    }
    if (why == null && !mayFit(pod.requests)) {
      return null;
    }
    if (pod.hostPortsConflictWith(hostPorts)) {
      return fail(why, "host ports " + pod.hostPorts + " conflict with pods already on the node");
    }
    Requirements narrowed = requirements;
    List<String> changedKeys = new ArrayList<>(4);
    if (!pod.requirements.isEmpty()) {
      if (why != null) {
        String incompatible = narrowed.compatibility(pod.requirements, allowUndefined);
        if (incompatible != null) {
          return fail(why, incompatible);
        }
      } else if (!narrowed.isCompatible(pod.requirements, allowUndefined)) {
        return null;
      }
      narrowed = narrowed.copy().add(pod.requirements);
      pod.requirements.addKeysTo(changedKeys);
    }
    String lastError = null;
    for (Requirements volume : alternatives) {
      int keysBefore = changedKeys.size();
      StringBuilder attempt = why == null ? null : new StringBuilder();
      Placement placement = tryVolumeAlternative(pod, narrowed, volume, changedKeys, candidates, attempt);
      if (placement != null) {
        return placement;
      }
      lastError = attempt == null || attempt.isEmpty() ? null : attempt.toString();
      truncate(changedKeys, keysBefore);
    }
    return fail(why, lastError == null ? "no instance type fits" : lastError);
  }

  /**
   * Upstream's {@code tryVolumeAlternative}: the pod on the NodeClaim under one alternative of its
   * volumes' topology: the volume requirements, then the topology-derived ones (last, since they may
   * collapse a domain), the instance-type filter over {@code candidates}, the zone decided now for zonal
   * anti-affinity ({@link ZonePinning}, not upstream) and reserved capacity. Returns
   * null when the alternative leaves the pod no place, explaining into {@code why} when given.
   *
   * @param narrowed the NodeClaim's requirements with the pod's
   * @param changedKeys grows by the keys the alternative changes (the caller truncates it after a failure)
   */
  private Placement tryVolumeAlternative(
      SchedulingPod pod, Requirements narrowed, Requirements volume, List<String> changedKeys, long[] candidates, StringBuilder why) {
    Requirements candidate = narrowed;
    if (!volume.isEmpty()) {
      if (!candidate.isCompatible(volume, allowUndefined)) {
        return fail(why, why == null ? null : "volume requirements " + volume + " conflict with " + candidate);
      }
      candidate = candidate.copy().add(volume);
      volume.addKeysTo(changedKeys);
    }
    Topology.Outcome outcome = topology.addRequirements(pod.pod, pod.strictRequirements, candidate, why != null);
    if (outcome.failed()) {
      topologyFailureKey = outcome.failedKey();
      return fail(why, outcome.error());
    }
    if (outcome.requirements() != null) {
      if (!candidate.isCompatible(outcome.requirements(), allowUndefined)) {
        return fail(why, why == null ? null : "topology requirements " + outcome.requirements() + " conflict with " + candidate);
      }
      candidate = candidate.copy().add(outcome.requirements());
      outcome.requirements().addKeysTo(changedKeys);
    }
    Placement placement = filter(pod, candidate, changedKeys, candidates, why);
    if (placement != null && outcome.requirements() != null) {
      placement = zonePinning.pin(this, pod, placement);
    }
    if (placement != null && template.hasReservedOfferings()) {
      placement = reserve(placement, why);
    }
    return placement;
  }

  /**
   * Upstream's {@code NodeClaim.Add}: the pod joins, the NodeClaim narrows to the placement (from
   * {@link #canAdd}) and holds its reservations, and the topology counts the pod here.
   */
  void add(SchedulingPod pod, Placement placement) {
    join(pod, placement);
    if (placement.reservations() != null) {
      reservations.hold(hostname, placement.reservations());
    }
    topology.record(pod.pod, requirements, template.template.taints(), allowUndefined);
  }

  /**
   * A pod the cost post-pass moved here joins: as {@link #add}, but no topology term selects such a
   * pod (so the topology need not count it again) and its NodePool has no reserved capacity.
   */
  void addRepacked(SchedulingPod pod, Placement placement) {
    join(pod, placement);
  }

  private void join(SchedulingPod pod, Placement placement) {
    pods.add(pod);
    hostPorts.addAll(pod.hostPorts);
    for (int d = 0; d < requests.length; d++) {
      requests[d] += pod.requests[d];
    }
    requirements = placement.requirements();
    if (!Arrays.equals(options, placement.options())) {
      options = placement.options();
      maxAllocatable = template.maxAllocatable(options);
    }
    minValuesRelaxed |= placement.relaxedMinValues();
    if (volumesInUse != null) {
      pod.csiVolumes(volumes).forEach((driver, claims) -> volumesInUse.computeIfAbsent(driver, d -> new HashSet<>()).addAll(claims));
    }
  }

  /**
   * The options that can attach the CSI volumes of the NodeClaim's pods and this pod together (upstream
   * v1.15 {@code filterInstanceTypesByVolumeAttachmentLimits}, each claim counted once), or null,
   * explaining into {@code why}, when none can.
   */
  private long[] optionsAttaching(SchedulingPod pod, StringBuilder why) {
    long[] result = options;
    Map<String, Integer> counts = why == null ? null : new TreeMap<>();
    for (Map.Entry<String, Set<String>> driver : pod.csiVolumes(volumes).entrySet()) {
      Set<String> inUse = volumesInUse.getOrDefault(driver.getKey(), Set.of());
      int count = inUse.size();
      for (String claim : driver.getValue()) {
        if (!inUse.contains(claim)) {
          count++;
        }
      }
      if (counts != null) {
        counts.put(driver.getKey(), count);
      }
      long[] supporting = template.supportingVolumes(driver.getKey(), count);
      if (supporting != null) {
        if (result == options) {
          result = TypeMasks.copy(options);
        }
        TypeMasks.andInto(result, supporting);
      }
    }
    if (TypeMasks.isEmpty(result)) {
      UnschedulableReasons.append(why, why == null ? null : UnschedulableReasons.volumeLimitExceeded(template, options, counts));
      return null;
    }
    return result;
  }

  /** False when no option can possibly take these requests on top of the current ones. */
  private boolean mayFit(long[] podRequests) {
    for (int d = 0; d < podRequests.length; d++) {
      long need = podRequests[d];
      if (need > 0 && requests[d] + need > maxAllocatable[d]) {
        return false;
      }
    }
    return true;
  }

  /**
   * Upstream's {@code filterInstanceTypesByRequirements}: for each DaemonSet group without a host
   * port conflict, the options whose requirements match, that have a compatible available offering
   * and whose allocatable holds the claim's pods, this pod and the group's DaemonSets; then minValues.
   * Returns null when nothing is left, explaining why into {@code why} when given.
   *
   * @param changedKeys the keys of {@code narrowed} the pod changed (only these can rule types out)
   * @param candidates the options to filter ({@link #options}, or fewer when volume limits rule some out)
   */
  Placement filter(SchedulingPod pod, Requirements narrowed, List<String> changedKeys, long[] candidates, StringBuilder why) {
    long[] matching = changedKeys.isEmpty() ? null : template.compatibleWith(narrowed, changedKeys);
    long[] result = null;
    long[] total = new long[template.dimensions];
    for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
      if (pod.hostPortsConflictWith(group.hostPorts())) {
        continue;
      }
      long[] mask = TypeMasks.copy(candidates);
      if (!TypeMasks.andInto(mask, group.types()) || (matching != null && !TypeMasks.andInto(mask, matching))) {
        continue;
      }
      for (int d = 0; d < total.length; d++) {
        total[d] = requests[d] + pod.requests[d] + group.overhead()[d];
      }
      if (!template.narrowToFit(mask, total) || TypeMasks.isEmpty(mask)) {
        continue;
      }
      if (result == null) {
        result = mask;
      } else {
        TypeMasks.orInto(result, mask);
      }
    }
    if (result == null) {
      return fail(why, why == null ? null : UnschedulableReasons.noInstanceType(this, candidates, pod, narrowed, changedKeys, matching));
    }
    boolean relaxed = false;
    if (narrowed.hasMinValues()) {
      InstanceTypes.MinValues minValues = InstanceTypes.satisfiesMinValues(template.typesIn(result), narrowed);
      if (!minValues.satisfied()) {
        if (policies.minValuesPolicy() == SchedulerOptions.MinValuesPolicy.Strict) {
          return fail(why, minValues.reason());
        }
        narrowed = narrowed.copy();
        for (Map.Entry<String, Integer> unmet : minValues.unsatisfied().entrySet()) {
          narrowed.put(narrowed.get(unmet.getKey()).withMinValues(unmet.getValue()));
        }
        relaxed = true;
      }
    }
    return new Placement(narrowed.frozen(), result, relaxed);
  }

  /**
   * Upstream's {@code offeringsToReserve} (docs/behaviour/scheduling.md#reserved-capacity): the
   * reservations the NodeClaim would hold with the pod, one unit of each reservation it could
   * launch into that still has a unit left (or that it holds already). In Strict mode it fails
   * with a reserved-offering error when reserved capacity is compatible but all held by other
   * NodeClaims of the pass, when the pod would take away every reservation the NodeClaim holds,
   * or when only full reservations would be left to launch into; in Fallback mode only the last
   * fails, as a plain error.
   */
  private Placement reserve(Placement placement, StringBuilder why) {
    Requirements narrowed = placement.requirements();
    Set<String> compatible = new TreeSet<>();
    long[] withReserved = TypeMasks.copy(placement.options());
    TypeMasks.andInto(withReserved, template.reservedTypes);
    for (int t = TypeMasks.next(withReserved, 0); t >= 0; t = TypeMasks.next(withReserved, t + 1)) {
      for (Offering offering : template.types[t].offerings()) {
        if (reservations.reservable(offering) && offering.isCompatible(narrowed)) {
          compatible.add(offering.reservationId());
        }
      }
    }
    Set<String> reservable = new TreeSet<>();
    for (String id : compatible) {
      if (reservations.canReserve(hostname, id)) {
        reservable.add(id);
      }
    }
    boolean strict = policies.reservedOfferingMode() == SchedulerOptions.ReservedOfferingMode.Strict;
    if (reservable.isEmpty()) {
      if (strict && !compatible.isEmpty()) {
        return reservedOfferingFailure(why, "one or more instance types with compatible reserved offerings are available, but could not be reserved");
      }
      if (strict && !reservations.heldBy(hostname).isEmpty()) {
        return reservedOfferingFailure(why, "satisfying updated nodeclaim constraints would remove all compatible reserved offering options");
      }
      long[] unreserved = template.offeringMask(narrowed.copy().add(Requirement.notIn(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED)));
      if (!TypeMasks.intersects(unreserved, placement.options())) {
        String reason = "every compatible offering is reserved capacity whose reservations are full";
        return strict ? reservedOfferingFailure(why, reason) : fail(why, reason);
      }
    }
    return new Placement(narrowed, placement.options(), placement.relaxedMinValues(), reservable);
  }

  private Placement reservedOfferingFailure(StringBuilder why, String reason) {
    reservedOfferingError = true;
    return fail(why, reason);
  }

  private static Placement fail(StringBuilder why, String reason) {
    UnschedulableReasons.append(why, reason);
    return null;
  }

  private static void truncate(List<String> list, int size) {
    while (list.size() > size) {
      list.remove(list.size() - 1);
    }
  }

  /**
   * The requirements to launch with (upstream's {@code FinalizeScheduling}): the narrowed ones
   * without the hostname placeholder and simulation-only labels; with reserved capacity, pinned to
   * the reservations the NodeClaim holds, so that the pass never over-commits one, or kept off
   * reserved capacity when it holds none (docs/behaviour/scheduling.md#reserved-capacity). A copy.
   */
  Requirements launchRequirements() {
    Requirements launch = requirements.copy();
    launch.remove(Labels.HOSTNAME);
    for (String key : Labels.SIMULATION_ONLY) {
      launch.remove(key);
    }
    if (template.hasReservedOfferings()) {
      Set<String> held = reservations.heldBy(hostname);
      if (!held.isEmpty()) {
        launch.add(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED));
        launch.put(Requirement.of(Labels.RESERVATION_ID, Operator.In, held));
      } else {
        // Other capacity types remain: see reserve.
        launch.add(Requirement.notIn(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED));
      }
    }
    return launch;
  }

  /**
   * The smallest DaemonSet overhead still possible on the NodeClaim (upstream's {@code
   * addDaemonRequests}): of the DaemonSet groups of its options without a host port conflict with its
   * pods, the least by {@link ResourceVectors#lessThan}; null when none is left.
   */
  long[] smallestDaemonOverhead() {
    long[] overhead = null;
    for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
      if (TypeMasks.intersects(group.types(), options)
          && !HostPort.anyConflict(hostPorts, group.hostPorts())
          && (overhead == null || ResourceVectors.lessThan(group.overhead(), overhead))) {
        overhead = group.overhead();
      }
    }
    return overhead;
  }

  @Override
  public String toString() {
    return template + "/" + hostname + "(" + pods.size() + " pods)";
  }
}
