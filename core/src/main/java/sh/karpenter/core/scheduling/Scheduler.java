package sh.karpenter.core.scheduling;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.HostPort;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.WeightedPodAffinityTerm;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.topology.Topology;
import sh.karpenter.core.topology.TopologyDomains;
import sh.karpenter.core.volume.VolumeTopology;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * Karpenter's provisioning scheduler (upstream pkg/controllers/provisioning/scheduling): places
 * pending pods on existing nodes, on NodeClaims planned earlier in the same pass, or on new
 * NodeClaims from the NodePools in weight order, relaxing preferences one step at a time for pods
 * that do not fit, and explains every pod it cannot place.
 *
 * <p>The semantics are upstream's (pod order, where a pod is tried and in which order, requirement
 * compatibility, topology, limits, DaemonSet overhead, minValues, the 600-type cap). The data
 * structures are not: instance-type options are bit sets over each template's catalogue, and "types
 * fitting these requests" or "types matching this requirement" are cached bit sets, so trying a pod
 * on a NodeClaim costs a few word-wise ANDs rather than a walk over every instance type.
 *
 * <p>Each {@link #solve()} runs an independent pass; the scheduler holds no state between passes.
 * Given a {@link SchedulerCache}, passes over the same NodePools share the per-template preparation
 * (instance-type matrices, lookup tables) and each existing node's set-up, never pass state, so the
 * results are the same.
 */
public final class Scheduler {
  /** Upstream's {@code MaxInstanceTypes}: the options a NodeClaim keeps, cheapest first. */
  public static final int MAX_INSTANCE_TYPES = InstanceTypes.MAX_INSTANCE_TYPES;

  private final SchedulingInput input;
  private final SchedulerCache cache;

  public Scheduler(SchedulingInput input) {
    this(input, null);
  }

  /**
   * A scheduler whose passes take the prepared templates from {@code cache} (and leave theirs there)
   * when the input's NodePools and DaemonSet pods are the ones it holds.
   *
   * @param cache shared by passes over the same NodePools, one thread at a time; null for none
   */
  public Scheduler(SchedulingInput input, SchedulerCache cache) {
    this.input = input;
    this.cache = cache;
  }

  /** The taint of a cordoned node. */
  private static boolean isCordon(Taint taint) {
    return taint.key().equals(TaintKeys.NODE_UNSCHEDULABLE) && taint.effect() == Taint.Effect.NoSchedule;
  }

  /** Runs one scheduling pass over the input. */
  public SchedulingResult solve() {
    ResourceNames.index(Pass.NODES); // interned before counting: limits have a "nodes" dimension
    int dimensions = ResourceNames.count();
    PreparedTemplates prepared = cache == null ? PreparedTemplates.of(input, dimensions) : cache.prepare(input, dimensions);
    return new Pass(input, prepared, cache).run();
  }

  /** The mutable state of one pass. */
  private static final class Pass {
    private static final String NODES = "nodes";
    private final SchedulingInput input;
    private final int nodesDimension;
    private final int dimensions;
    private final Set<String> allowUndefined;
    private final VolumeTopology volumes;
    private final List<SchedulingPod> pods = new ArrayList<>();
    private final String[] errors;
    private final boolean[] placed;
    private final List<TemplateIndex> templates = new ArrayList<>();
    /** Per template: what its limits still allow, or null when unlimited. */
    private final long[][] remainingLimits;
    private final List<NodeSlot> nodes = new ArrayList<>();
    /** Planned NodeClaims in fewest-pods-first order (each knows its position). */
    private final List<InFlightNodeClaim> claims = new ArrayList<>();
    private final Map<String, InFlightNodeClaim> claimsByHostname = new java.util.HashMap<>();
    private final Topology topology;
    private final boolean preferNoScheduleTaintsExist;
    private final ReservationManager reservations;
    /**
     * Set when the last NodeClaim attempt failed on a reserved-offering error
     * (docs/behaviour/scheduling.md#reserved-capacity).
     */
    private boolean reservedOfferingError;
    /** Per pod (by order): its last attempt ended in a reserved-offering error, so it is deferred. */
    private final boolean[] deferred;
    private int nextHostname = 1;

    Pass(SchedulingInput input, PreparedTemplates prepared, SchedulerCache cache) {
      this.input = input;
      this.nodesDimension = ResourceNames.index(NODES);
      this.dimensions = prepared.dimensions;
      this.volumes = input.volumes() == null ? VolumeTopology.EMPTY : input.volumes();
      this.allowUndefined = prepared.allowUndefined;
      boolean ignorePreferences = input.options().preferencePolicy() == SchedulerOptions.PreferencePolicy.Ignore;

      List<Pod> pending = new ArrayList<>(input.pendingPods());
      pending.sort(
          Comparator.comparingLong((Pod p) -> -p.requests().cpuMilli())
              .thenComparingLong(p -> -p.requests().memoryMilli())
              .thenComparingLong(Pod::creationTimestampMillis)
              .thenComparing(Pod::uid));
      for (int i = 0; i < pending.size(); i++) {
        pods.add(new SchedulingPod(pending.get(i), dimensions, i, ignorePreferences));
      }
      this.errors = new String[pods.size()];
      this.placed = new boolean[pods.size()];
      this.deferred = new boolean[pods.size()];

      templates.addAll(prepared.templates);
      this.remainingLimits = new long[templates.size()][];
      for (TemplateIndex template : templates) {
        remainingLimits[template.ordinal] = initialLimits(template.template);
      }
      this.preferNoScheduleTaintsExist = prepared.preferNoScheduleTaintsExist;
      this.reservations = new ReservationManager(prepared.reservationCapacity);

      List<ExistingNode> existing = new ArrayList<>(input.nodes());
      existing.sort(Comparator.comparing((ExistingNode n) -> !n.initialized()).thenComparing(ExistingNode::name));
      for (ExistingNode node : existing) {
        nodes.add(slotFor(node, prepared, cache));
      }
      this.topology = buildTopology(existing);
    }

    private long[] initialLimits(NodeClaimTemplate template) {
      if (template.limits() == null) {
        return null;
      }
      long[] remaining = new long[dimensions];
      java.util.Arrays.fill(remaining, Long.MAX_VALUE);
      for (Map.Entry<String, Long> limit : template.limits().toMilli().entrySet()) {
        int d = ResourceNames.index(limit.getKey());
        remaining[d] = limit.getValue() - template.usage().milli(d);
      }
      return remaining;
    }

    private NodeSlot slotFor(ExistingNode node, PreparedTemplates prepared, SchedulerCache cache) {
      NodeSlot.Basis basis = cache == null ? NodeSlot.Basis.of(node, prepared.daemons, dimensions) : cache.node(node, prepared);
      NodeSlot slot = new NodeSlot(node, basis);
      for (Pod bound : node.pods()) {
        slot.hostPorts.addAll(bound.hostPorts());
        if (!node.volumeLimits().isEmpty()) {
          slot.attach(volumes.csiVolumes(bound));
        }
      }
      return slot;
    }

    private Topology buildTopology(List<ExistingNode> existing) {
      Set<String> keys = new HashSet<>();
      Set<String> namespaces = new HashSet<>();
      Set<String> pendingUids = new HashSet<>();
      for (SchedulingPod pod : pods) {
        namespaces.add(pod.pod.namespace());
        pendingUids.add(pod.pod.uid());
        for (TopologySpreadConstraint spread : pod.pod.topologySpreadConstraints()) {
          keys.add(spread.topologyKey());
        }
        for (PodAffinityTerm term : pod.pod.requiredPodAffinity()) {
          keys.add(term.topologyKey());
        }
        for (PodAffinityTerm term : pod.pod.requiredPodAntiAffinity()) {
          keys.add(term.topologyKey());
        }
        for (WeightedPodAffinityTerm term : pod.pod.preferredPodAffinity()) {
          keys.add(term.term().topologyKey());
        }
        for (WeightedPodAffinityTerm term : pod.pod.preferredPodAntiAffinity()) {
          keys.add(term.term().topologyKey());
        }
      }
      for (ExistingNode node : existing) {
        for (Pod pod : node.pods()) {
          namespaces.add(pod.namespace());
          for (PodAffinityTerm term : pod.requiredPodAntiAffinity()) {
            keys.add(term.topologyKey());
          }
        }
      }
      keys.remove(Labels.HOSTNAME); // hostnames come from nodes and NodeClaims, not from NodePools
      TopologyDomains domains = new TopologyDomains(keys);
      for (TemplateIndex template : templates) {
        domains.addNodePool(template.requirements, template.template.taints(), template.template.instanceTypes());
      }
      for (ExistingNode node : existing) {
        domains.addNode(node.labels(), node.taints());
      }
      Topology result = new Topology(domains, input.namespaceLabels(), namespaces, allowUndefined, pendingUids);
      for (ExistingNode node : existing) {
        result.addNode(node.name(), node.labels(), node.taints(), node.pods());
      }
      for (SchedulingPod pod : pods) {
        result.update(pod.pod, pod.topologyConstraints());
      }
      return result;
    }

    SchedulingResult run() {
      ArrayDeque<SchedulingPod> queue = new ArrayDeque<>();
      int[] pushedAtLength = new int[pods.size()];
      int[] pushedInGeneration = new int[pods.size()];
      int generation = 1;
      for (SchedulingPod pod : pods) {
        String rejection = rejection(pod.pod);
        if (rejection != null) {
          errors[pod.order] = rejection;
        } else {
          queue.addLast(pod);
        }
      }
      while (!queue.isEmpty()) {
        SchedulingPod pod = queue.peekFirst();
        // A full cycle without progress: every pod left was pushed back while the queue had this length.
        if (pushedInGeneration[pod.order] == generation && pushedAtLength[pod.order] == queue.size()) {
          break;
        }
        queue.pollFirst();
        String error = place(pod);
        if (error == null) {
          placed[pod.order] = true;
          errors[pod.order] = null;
          continue;
        }
        errors[pod.order] = error;
        queue.addLast(pod);
        // A reserved-offering error is not relaxed: the pod waits for the next pass instead
        // (docs/behaviour/scheduling.md#reserved-capacity).
        if (!deferred[pod.order] && Preferences.relax(pod, preferNoScheduleTaintsExist) != null) {
          generation++;
          topology.update(pod.pod, pod.topologyConstraints());
        } else {
          pushedInGeneration[pod.order] = generation;
          pushedAtLength[pod.order] = queue.size();
        }
      }
      if (input.options().costRepacking()) {
        repackUnconstrainedClaims();
      }
      return result();
    }

    /**
     * The cost post-pass: first fit grows NodeClaims onto whatever type still has room, often the
     * largest and dearest. The NodeClaims holding only unconstrained pods are re-planned per
     * NodePool with {@link CostRepacker}, and the new plan replaces them when it is cheaper. Only
     * pods whose placement no constraint can tell apart move: no node requirements or preferences,
     * no topology terms of their own, selected by no other pod's topology term, no host ports, no
     * volumes. Existing-node placements and every other NodeClaim stay as the pass made them.
     */
    private void repackUnconstrainedClaims() {
      if (claims.isEmpty()) {
        return;
      }
      Set<LabelSelector> selectors = topologySelectors();
      for (TemplateIndex template : templates) {
        // Reserved capacity is held per NodeClaim as pods join it; re-planned claims would bypass that.
        if (template.requirements.hasMinValues() || template.hasReservedOfferings()) {
          continue;
        }
        List<InFlightNodeClaim> movable = new ArrayList<>();
        for (InFlightNodeClaim claim : claims) {
          if (claim.template == template && claim.pods.stream().allMatch(pod -> unconstrained(pod, selectors))) {
            movable.add(claim);
          }
        }
        if (!movable.isEmpty()) {
          repack(template, movable);
        }
      }
    }

    /** Every label selector of a topology term of a pending pod or of a pod on an existing node. */
    private Set<LabelSelector> topologySelectors() {
      Set<LabelSelector> selectors = new HashSet<>();
      for (SchedulingPod pod : pods) {
        addTopologySelectors(pod.pod, selectors);
      }
      for (NodeSlot node : nodes) {
        for (Pod pod : node.node.pods()) {
          addTopologySelectors(pod, selectors);
        }
      }
      return selectors;
    }

    private static void addTopologySelectors(Pod pod, Set<LabelSelector> selectors) {
      for (TopologySpreadConstraint spread : pod.topologySpreadConstraints()) {
        selectors.add(spread.selector());
      }
      for (PodAffinityTerm term : pod.requiredPodAffinity()) {
        selectors.add(term.selector());
      }
      for (PodAffinityTerm term : pod.requiredPodAntiAffinity()) {
        selectors.add(term.selector());
      }
      for (WeightedPodAffinityTerm term : pod.preferredPodAffinity()) {
        selectors.add(term.term().selector());
      }
      for (WeightedPodAffinityTerm term : pod.preferredPodAntiAffinity()) {
        selectors.add(term.term().selector());
      }
    }

    /**
     * Whether moving the pod to another NodeClaim of its NodePool can break no constraint: it has
     * none of its own and no topology term selects it (namespaces aside, which only makes this
     * stricter).
     */
    private static boolean unconstrained(SchedulingPod pod, Set<LabelSelector> selectors) {
      Pod p = pod.pod;
      if (!p.nodeSelector().isEmpty()
          || !p.requiredNodeAffinityTerms().isEmpty()
          || !p.preferredNodeAffinity().isEmpty()
          || !p.topologySpreadConstraints().isEmpty()
          || !p.requiredPodAffinity().isEmpty()
          || !p.requiredPodAntiAffinity().isEmpty()
          || !p.preferredPodAffinity().isEmpty()
          || !p.preferredPodAntiAffinity().isEmpty()
          || !p.hostPorts().isEmpty()
          || !p.persistentVolumeClaims().isEmpty()) {
        return false;
      }
      for (LabelSelector selector : selectors) {
        if (selector.matches(p.labels())) {
          return false;
        }
      }
      return true;
    }

    /**
     * Re-plans the claims' pods with {@link CostRepacker} over the template's types (within its limits,
     * net of DaemonSet overhead) and swaps the new claims in when they cost less; otherwise leaves
     * everything, limits included, as it was.
     */
    private void repack(TemplateIndex template, List<InFlightNodeClaim> movable) {
      TemplateIndex.Pricing pricing = template.pricing(template.requirements);
      long[] limits = remainingLimits[template.ordinal];
      long[] limitsBefore = limits == null ? null : limits.clone();
      int hostnameBefore = nextHostname;
      double before = 0;
      List<SchedulingPod> movablePods = new ArrayList<>();
      for (InFlightNodeClaim claim : movable) {
        before += cheapestPrice(claim.options, pricing);
        movablePods.addAll(claim.pods);
        refundLimits(claim);
      }
      List<InFlightNodeClaim> replacements = replan(template, pricing, movablePods, before);
      double after = 0;
      for (InFlightNodeClaim claim : replacements == null ? List.<InFlightNodeClaim>of() : replacements) {
        after += cheapestPrice(claim.options, pricing);
      }
      if (replacements == null || after >= before * (1 - 1e-9)) {
        if (limits != null) {
          System.arraycopy(limitsBefore, 0, limits, 0, limits.length);
        }
        nextHostname = hostnameBefore;
        return;
      }
      Set<InFlightNodeClaim> dropped = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
      dropped.addAll(movable);
      claims.removeIf(dropped::contains);
      for (InFlightNodeClaim claim : movable) {
        claimsByHostname.remove(claim.hostname);
      }
      for (InFlightNodeClaim claim : replacements) {
        claims.add(claim);
        claimsByHostname.put(claim.hostname, claim);
      }
      claims.sort(Comparator.comparingInt((InFlightNodeClaim c) -> c.pods.size()).thenComparingInt(c -> c.sequence));
      renumber(0);
    }

    private static double cheapestPrice(long[] options, TemplateIndex.Pricing pricing) {
      double cheapest = Double.MAX_VALUE;
      for (int t = Bits.next(options, 0); t >= 0; t = Bits.next(options, t + 1)) {
        cheapest = Math.min(cheapest, pricing.price(t));
      }
      return cheapest;
    }

    /**
     * The pods packed by {@link CostRepacker} into new claims (each on a fresh hostname, charged
     * against the limits in turn), or null when no packing prices below {@code before}, or the packer
     * or a limit leaves some pod without a node. Each allowed type offers its allocatable less its
     * DaemonSet group's overhead and costs its cheapest offering under the template's requirements. The
     * packer is not run when its {@link CostRepacker#lowerBound lower bound} shows that no packing can
     * cost less than {@code before} (for a lone pod it never can).
     */
    private List<InFlightNodeClaim> replan(
        TemplateIndex template, TemplateIndex.Pricing pricing, List<SchedulingPod> movablePods, double before) {
      long[] allowed = launchOptions(template, null);
      if (allowed == null) {
        return null;
      }
      long[][] capacity = new long[template.size()][dimensions];
      double[] price = new double[template.size()];
      java.util.Arrays.fill(price, Double.POSITIVE_INFINITY);
      for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
        long[] types = Bits.copy(group.types());
        Bits.andInto(types, allowed);
        for (int t = Bits.next(types, 0); t >= 0; t = Bits.next(types, t + 1)) {
          if (pricing.cheapest()[t] != null) {
            price[t] = pricing.price(t);
          }
          for (int d = 0; d < dimensions; d++) {
            capacity[t][d] = template.allocatable[d][t] - group.overhead()[d];
          }
        }
      }
      List<long[]> requests = new ArrayList<>(movablePods.size());
      for (SchedulingPod pod : movablePods) {
        requests.add(pod.requests);
      }
      if (CostRepacker.lowerBound(requests, capacity, price) >= before * (1 - 1e-10)) {
        return null;
      }
      CostRepacker.Packing packing = CostRepacker.pack(requests, capacity, price);
      if (packing == null || packing.price() >= before * (1 - 1e-9)) {
        return null;
      }
      int[] taken = new int[packing.classMembers().size()];
      List<InFlightNodeClaim> replacements = new ArrayList<>(packing.nodes().size());
      for (CostRepacker.Node node : packing.nodes()) {
        long[] options = launchOptions(template, null);
        if (options == null) {
          return null;
        }
        InFlightNodeClaim claim = newClaim(template, options);
        for (int c = 0; c < taken.length; c++) {
          int[] members = packing.classMembers().get(c);
          for (int n = 0; n < node.podsPerClass()[c]; n++) {
            SchedulingPod pod = movablePods.get(members[taken[c]++]);
            Placement placement = filter(claim, pod, claim.requirements, List.of(), null);
            if (placement == null) {
              return null;
            }
            claim.add(pod, placement.requirements(), placement.options(), placement.relaxedMinValues());
          }
        }
        nextHostname++;
        chargeLimits(claim);
        replacements.add(claim);
      }
      return replacements;
    }

    /** Why upstream would not provision for the pod at all (restricted labels, broken volumes), or null. */
    private String rejection(Pod pod) {
      for (String key : pod.nodeSelector().keySet()) {
        if (Labels.isRestricted(Labels.normalize(key))) {
          return "node selector uses restricted label " + key;
        }
      }
      for (Requirements term : pod.requiredNodeAffinityTerms()) {
        for (String key : term.keys()) {
          if (Labels.isRestricted(key)) {
            return "required node affinity uses restricted label " + key;
          }
        }
      }
      return volumes.validate(pod);
    }

    /** Places the pod, returning null, or why it fits nowhere. */
    private String place(SchedulingPod pod) {
      List<Requirements> alternatives = volumes.requirementsFor(pod.pod);
      if (alternatives.isEmpty()) {
        return "the pod's volumes require incompatible topologies";
      }
      for (NodeSlot node : nodes) {
        if (tryNode(node, pod, alternatives)) {
          return null;
        }
      }
      for (InFlightNodeClaim claim : candidateClaims(pod)) {
        Placement placement = tryClaim(claim, pod, alternatives, null);
        if (placement != null) {
          commit(claim, pod, placement);
          return null;
        }
      }
      deferred[pod.order] = false;
      for (TemplateIndex template : templates) {
        if (tryNewClaim(template, pod, alternatives, null)) {
          return null;
        }
        if (reservedOfferingError) {
          // No fallback to lower-weight NodePools: the reservation may free up by the next pass.
          deferred[pod.order] = true;
          break;
        }
      }
      return explain(pod, alternatives);
    }

    /**
     * The planned NodeClaims worth trying, in fewest-pods-first order: all of them, unless the pod's
     * hostname topology admits only a few hostnames (anti-affinity, self-selecting hostname spread),
     * in which case only the claims with those hostnames, which keeps pods with hostname
     * anti-affinity from scanning every claim.
     */
    private List<InFlightNodeClaim> candidateClaims(SchedulingPod pod) {
      Set<String> hostnames = topology.hostnameCandidates(pod.pod);
      if (hostnames == null || hostnames.size() >= claims.size()) {
        return claims;
      }
      List<InFlightNodeClaim> candidates = new ArrayList<>(hostnames.size());
      for (String hostname : hostnames) {
        InFlightNodeClaim claim = claimsByHostname.get(hostname);
        if (claim != null) {
          candidates.add(claim);
        }
      }
      candidates.sort(Comparator.comparingInt(c -> c.position));
      return candidates;
    }

    /**
     * Reruns the NodePool attempts, collecting why each refused the pod. A NodePool that cannot offer
     * the zone a volume of the pod is in (or may be provisioned in) is refused for that reason; cordoned
     * existing nodes the pod would fit but for the cordon come first.
     */
    private String explain(SchedulingPod pod, List<Requirements> alternatives) {
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
        if (tryNewClaim(template, pod, alternatives, why)) {
          return null; // unreachable: the same attempt just failed
        }
        String volumeZone = volumeZoneNotOffered(template, volumeZones);
        if (!first) {
          reasons.append("; ");
        }
        first = false;
        reasons.append("incompatible with nodepool \"").append(template).append("\": ").append(volumeZone != null ? volumeZone : why);
        if (reservedOfferingError) {
          break;
        }
      }
      return reasons.toString();
    }

    /**
     * Names the first volume of the pod that is in (or can only be provisioned in) zones none of the
     * NodePool's available offerings is in, or null when there is none.
     */
    private String volumeZoneNotOffered(TemplateIndex template, List<VolumeTopology.ZoneConstraint> volumeZones) {
      if (volumeZones.isEmpty()) {
        return null;
      }
      java.util.SortedSet<String> offered = new java.util.TreeSet<>();
      for (int t = Bits.next(template.launchable, 0); t >= 0; t = Bits.next(template.launchable, t + 1)) {
        for (Offering offering : template.types[t].offerings()) {
          if (offering.available() && offering.zone() != null && offering.isCompatible(template.requirements)) {
            offered.add(offering.zone());
          }
        }
      }
      for (VolumeTopology.ZoneConstraint volume : volumeZones) {
        if (java.util.Collections.disjoint(volume.zones(), offered)) {
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
        if (!cordoned(node.node)) {
          continue;
        }
        List<Taint> uncordoned = new ArrayList<>(node.node.taints());
        uncordoned.removeIf(Scheduler::isCordon);
        if (fit(node, pod, alternatives, uncordoned) != null) {
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

    private boolean tryNode(NodeSlot node, SchedulingPod pod, List<Requirements> alternatives) {
      Requirements candidate = fit(node, pod, alternatives, node.node.taints());
      if (candidate == null) {
        return false;
      }
      node.add(pod);
      if (!node.node.volumeLimits().isEmpty()) {
        node.attach(csiVolumes(pod));
      }
      topology.record(pod.pod, candidate, node.node.taints(), Set.of());
      return true;
    }

    /**
     * The node's requirements narrowed by the pod, its volumes and its topology when the pod fits the
     * node with these taints (room, taints, CSI volume limits, host ports, requirements, topology), else
     * null. Changes nothing.
     */
    private Requirements fit(NodeSlot node, SchedulingPod pod, List<Requirements> alternatives, List<Taint> taints) {
      if (!node.hasRoomFor(pod.requests)
          || pod.untolerated(taints) != null
          || (!node.node.volumeLimits().isEmpty() && !node.volumesFit(csiVolumes(pod)))
          || conflicts(node.hostPorts, pod.hostPorts)) {
        return null;
      }
      Requirements requirements = node.requirements;
      if (!pod.requirements.isEmpty()) {
        if (!requirements.isCompatible(pod.requirements, Set.of())) {
          return null;
        }
        requirements = requirements.copy().add(pod.requirements);
      }
      for (Requirements volume : alternatives) {
        Requirements candidate = requirements;
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

    /**
     * Where a pod can go on a NodeClaim: the narrowed requirements and the options left, and the
     * reservations the NodeClaim holds once the pod joins (null when its NodePool has no reserved
     * capacity).
     */
    private record Placement(Requirements requirements, long[] options, boolean relaxedMinValues, Set<String> reservations) {
      Placement(Requirements requirements, long[] options, boolean relaxedMinValues) {
        this(requirements, options, relaxedMinValues, null);
      }
    }

    /**
     * Upstream's {@code NodeClaim.CanAdd}: taints, host ports, requirement compatibility (undefined
     * well-known labels allowed), then for each volume alternative the topology requirements and the
     * instance-type filter. Returns null when the pod cannot join; {@code why}, when given, collects
     * the reason.
     */
    private Placement tryClaim(InFlightNodeClaim claim, SchedulingPod pod, List<Requirements> alternatives, StringBuilder why) {
      reservedOfferingError = false;
      TemplateIndex template = claim.template;
      String untolerated = pod.untolerated(template.template.taints());
      if (untolerated != null) {
        return fail(why, untolerated);
      }
      if (why == null && !claim.mayFit(pod.requests)) {
        return null;
      }
      if (conflicts(claim.hostPorts, pod.hostPorts)) {
        return fail(why, "host ports " + pod.hostPorts + " conflict with pods already on the node");
      }
      Requirements requirements = claim.requirements;
      List<String> changedKeys = new ArrayList<>(4);
      if (!pod.requirements.isEmpty()) {
        if (why != null) {
          String incompatible = requirements.compatibility(pod.requirements, allowUndefined);
          if (incompatible != null) {
            return fail(why, incompatible);
          }
        } else if (!requirements.isCompatible(pod.requirements, allowUndefined)) {
          return null;
        }
        requirements = requirements.copy().add(pod.requirements);
        changedKeys.addAll(pod.requirements.keys());
      }
      String lastError = null;
      for (Requirements volume : alternatives) {
        Requirements candidate = requirements;
        int keysBefore = changedKeys.size();
        if (!volume.isEmpty()) {
          if (!candidate.isCompatible(volume, allowUndefined)) {
            lastError = why == null ? null : "volume requirements " + volume + " conflict with " + candidate;
            continue;
          }
          candidate = candidate.copy().add(volume);
          changedKeys.addAll(volume.keys());
        }
        Topology.Outcome outcome = topology.addRequirements(pod.pod, pod.strictRequirements, candidate, why != null);
        if (outcome.failed()) {
          lastError = outcome.error();
          truncate(changedKeys, keysBefore);
          continue;
        }
        if (outcome.requirements() != null) {
          if (!candidate.isCompatible(outcome.requirements(), allowUndefined)) {
            lastError = why == null ? null : "topology requirements " + outcome.requirements() + " conflict with " + candidate;
            truncate(changedKeys, keysBefore);
            continue;
          }
          candidate = candidate.copy().add(outcome.requirements());
          changedKeys.addAll(outcome.requirements().keys());
        }
        StringBuilder attempt = why == null ? null : new StringBuilder();
        Placement placement = filter(claim, pod, candidate, changedKeys, attempt);
        if (placement != null && template.hasReservedOfferings()) {
          placement = reserve(claim, placement, attempt);
        }
        if (placement != null) {
          return placement;
        }
        lastError = attempt == null ? null : attempt.toString();
        truncate(changedKeys, keysBefore);
      }
      return fail(why, lastError == null ? "no instance type fits" : lastError);
    }

    /**
     * Upstream's {@code reserveOfferings} (docs/behaviour/scheduling.md#reserved-capacity): the
     * reservations the NodeClaim would hold with the pod, one unit of each reservation it could
     * launch into that still has a unit left (or that it holds already). In Strict mode it fails
     * with a reserved-offering error when reserved capacity is compatible but all held by other
     * NodeClaims of the pass, when the pod would take away every reservation the NodeClaim holds,
     * or when only full reservations would be left to launch into; in Fallback mode only the last
     * fails, as a plain error.
     */
    private Placement reserve(InFlightNodeClaim claim, Placement placement, StringBuilder why) {
      TemplateIndex template = claim.template;
      Requirements requirements = placement.requirements();
      Set<String> compatible = new java.util.TreeSet<>();
      long[] withReserved = Bits.copy(placement.options());
      Bits.andInto(withReserved, template.reservedTypes);
      for (int t = Bits.next(withReserved, 0); t >= 0; t = Bits.next(withReserved, t + 1)) {
        for (Offering offering : template.types[t].offerings()) {
          if (reservations.reservable(offering) && offering.isCompatible(requirements)) {
            compatible.add(offering.reservationId());
          }
        }
      }
      Set<String> reservable = new java.util.TreeSet<>();
      for (String id : compatible) {
        if (reservations.canReserve(claim.hostname, id)) {
          reservable.add(id);
        }
      }
      boolean strict = input.options().reservedOfferingMode() == SchedulerOptions.ReservedOfferingMode.Strict;
      if (reservable.isEmpty()) {
        if (strict && !compatible.isEmpty()) {
          return reservedOfferingFailure(why, "one or more instance types with compatible reserved offerings are available, but could not be reserved");
        }
        if (strict && !reservations.heldBy(claim.hostname).isEmpty()) {
          return reservedOfferingFailure(why, "satisfying updated nodeclaim constraints would remove all compatible reserved offering options");
        }
        long[] unreserved = template.offeringMask(requirements.copy().add(Requirement.notIn(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED)));
        if (!Bits.intersects(unreserved, placement.options())) {
          String reason = "every compatible offering is reserved capacity whose reservations are full";
          return strict ? reservedOfferingFailure(why, reason) : fail(why, reason);
        }
      }
      return new Placement(requirements, placement.options(), placement.relaxedMinValues(), reservable);
    }

    private Placement reservedOfferingFailure(StringBuilder why, String reason) {
      reservedOfferingError = true;
      return fail(why, reason);
    }

    /** The pod's claims per CSI driver, resolved once per pod. */
    private Map<String, Set<String>> csiVolumes(SchedulingPod pod) {
      if (pod.csiVolumes == null) {
        pod.csiVolumes = volumes.csiVolumes(pod.pod);
      }
      return pod.csiVolumes;
    }

    private static void truncate(List<String> list, int size) {
      while (list.size() > size) {
        list.remove(list.size() - 1);
      }
    }

    private static Placement fail(StringBuilder why, String reason) {
      if (why != null && reason != null) {
        why.append(reason);
      }
      return null;
    }

    /**
     * Upstream's {@code filterInstanceTypesByRequirements}: for each DaemonSet group without a host
     * port conflict, the options whose requirements match, that have a compatible available offering
     * and whose allocatable holds the claim's pods, this pod and the group's DaemonSets; then minValues.
     * Returns null when nothing is left, explaining why into {@code why} when given.
     */
    private Placement filter(InFlightNodeClaim claim, SchedulingPod pod, Requirements requirements, List<String> changedKeys, StringBuilder why) {
      TemplateIndex template = claim.template;
      long[] matching = changedKeys.isEmpty() ? null : template.compatibleWith(requirements, changedKeys);
      long[] result = null;
      long[] total = new long[dimensions];
      for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
        if (conflicts(group.hostPorts(), pod.hostPorts)) {
          continue;
        }
        long[] mask = Bits.copy(claim.options);
        if (!Bits.andInto(mask, group.types()) || (matching != null && !Bits.andInto(mask, matching))) {
          continue;
        }
        for (int d = 0; d < dimensions; d++) {
          total[d] = claim.requests[d] + pod.requests[d] + group.overhead()[d];
        }
        if (!template.narrowToFit(mask, total) || Bits.isEmpty(mask)) {
          continue;
        }
        if (result == null) {
          result = mask;
        } else {
          Bits.orInto(result, mask);
        }
      }
      if (result == null) {
        return fail(why, why == null ? null : explainNoInstanceType(claim, pod, requirements, changedKeys, matching));
      }
      boolean relaxed = false;
      if (requirements.hasMinValues()) {
        InstanceTypes.MinValues minValues = InstanceTypes.satisfiesMinValues(template.typesIn(result), requirements);
        if (!minValues.satisfied()) {
          if (input.options().minValuesPolicy() == SchedulerOptions.MinValuesPolicy.Strict) {
            return fail(why, minValues.reason());
          }
          requirements = requirements.copy();
          for (Map.Entry<String, Integer> unmet : minValues.unsatisfied().entrySet()) {
            requirements.put(requirements.get(unmet.getKey()).withMinValues(unmet.getValue()));
          }
          relaxed = true;
        }
      }
      return new Placement(requirements.frozen(), result, relaxed);
    }

    /** Tells apart which of requirements, offerings and fit left no instance type. */
    private String explainNoInstanceType(
        InFlightNodeClaim claim, SchedulingPod pod, Requirements requirements, List<String> changedKeys, long[] matching) {
      TemplateIndex template = claim.template;
      long[] candidates = Bits.copy(claim.options);
      if (matching != null && !Bits.andInto(candidates, matching)) {
        List<String> parts = new ArrayList<>();
        for (String key : new java.util.TreeSet<>(changedKeys)) {
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
        if (smallest == null || lessThan(group.overhead(), smallest)) {
          smallest = group.overhead();
        }
      }
      long[] total = new long[dimensions];
      for (int d = 0; d < dimensions; d++) {
        total[d] = claim.requests[d] + pod.requests[d] + smallest[d];
      }
      long[] largest = template.maxAllocatable(candidates);
      StringBuilder s = new StringBuilder("no instance type has room for requests ").append(describe(pod.requests));
      if (!isZero(smallest)) {
        s.append(" plus daemonset overhead ").append(describe(smallest));
      }
      if (!claim.pods.isEmpty()) {
        s.append(" plus pods already planned ").append(describe(claim.requests));
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
      Map<String, String> users = new java.util.TreeMap<>();
      for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
        if (!Bits.intersects(group.types(), candidates)) {
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

    /** A cordoned node carries {@code node.kubernetes.io/unschedulable:NoSchedule} (see {@code TaintKeys}). */
    private static boolean cordoned(ExistingNode node) {
      for (Taint taint : node.taints()) {
        if (isCordon(taint)) {
          return true;
        }
      }
      return false;
    }

    private static boolean lessThan(long[] a, long[] b) {
      for (int d = 0; d < a.length; d++) {
        if (a[d] != b[d]) {
          return a[d] < b[d];
        }
      }
      return false;
    }

    private static boolean isZero(long[] v) {
      for (long x : v) {
        if (x != 0) {
          return false;
        }
      }
      return true;
    }

    private String describe(long[] vector) {
      return toResources(vector).toQuantities().toString().replace("=", ": ");
    }

    private Resources toResources(long[] vector) {
      Resources.Builder builder = Resources.builder();
      for (int d = 0; d < vector.length; d++) {
        if (vector[d] != 0) {
          builder.milli(d, vector[d]);
        }
      }
      return builder.build();
    }

    /** Tries a fresh NodeClaim from the template; on success it joins the pass's claims. */
    private boolean tryNewClaim(TemplateIndex template, SchedulingPod pod, List<Requirements> alternatives, StringBuilder why) {
      reservedOfferingError = false;
      long[] options = launchOptions(template, why);
      if (options == null) {
        if (why != null && !Bits.isEmpty(template.launchable)) {
          explainLimits(template, pod, alternatives, why);
        }
        return false;
      }
      InFlightNodeClaim claim = newClaim(template, options);
      Placement placement = tryClaim(claim, pod, alternatives, why);
      if (placement == null) {
        return false;
      }
      nextHostname++;
      claim.position = insertionPoint();
      claims.add(claim.position, claim);
      claimsByHostname.put(claim.hostname, claim);
      renumber(claim.position + 1);
      commit(claim, pod, placement);
      chargeLimits(claim);
      return true;
    }

    /**
     * The template's launchable types within what its limits still allow, or null (explaining into
     * {@code why} when given) when the node limit is reached or no type is left.
     */
    private long[] launchOptions(TemplateIndex template, StringBuilder why) {
      long[] options = Bits.copy(template.launchable);
      if (Bits.isEmpty(options)) {
        fail(why, "no instance type has an available offering compatible with the nodepool's requirements");
        return null;
      }
      long[] remaining = remainingLimits[template.ordinal];
      if (remaining == null) {
        return options;
      }
      if (remaining[nodesDimension] != Long.MAX_VALUE && remaining[nodesDimension] < 1000) {
        fail(why, "nodepool node limit reached");
        return null;
      }
      for (int t = Bits.next(options, 0); t >= 0; t = Bits.next(options, t + 1)) {
        for (int d = 0; d < dimensions; d++) {
          if (d != nodesDimension && template.capacity[d][t] > remaining[d]) {
            options[t >>> 6] &= ~(1L << t);
            break;
          }
        }
      }
      if (Bits.isEmpty(options)) {
        fail(why, "all instance types exceed the nodepool's remaining limits " + describeLimits(remaining));
        return null;
      }
      return options;
    }

    /**
     * Rewrites a limits refusal in {@code why} so that it names what a person can act on: when the
     * pod would not fit this NodePool even without limits (too big for every instance type, say),
     * that reason comes first and the limits second, since raising them would not help; otherwise
     * the limits, and which resources every instance type the pod fits needs more of than they leave.
     */
    private void explainLimits(TemplateIndex template, SchedulingPod pod, List<Requirements> alternatives, StringBuilder why) {
      String limitsReason = why.toString();
      StringBuilder withoutLimits = new StringBuilder();
      Placement placement = tryClaim(newClaim(template, Bits.copy(template.launchable)), pod, alternatives, withoutLimits);
      reservedOfferingError = false; // the limits refused the pod, whatever the probe ran into
      why.setLength(0);
      if (placement == null) {
        why.append(withoutLimits).append("; also ").append(limitsReason);
        return;
      }
      why.append(limitsReason);
      long[] remaining = remainingLimits[template.ordinal];
      List<String> lacking = new ArrayList<>();
      for (int d = 0; d < dimensions; d++) {
        if (d == nodesDimension || remaining[d] == Long.MAX_VALUE) {
          continue;
        }
        long least = Long.MAX_VALUE;
        for (int t = Bits.next(placement.options(), 0); t >= 0; t = Bits.next(placement.options(), t + 1)) {
          least = Math.min(least, template.capacity[d][t]);
        }
        if (least != Long.MAX_VALUE && least > remaining[d]) {
          lacking.add(ResourceNames.name(d) + " " + Quantity.format(ResourceNames.name(d), least));
        }
      }
      if (!lacking.isEmpty()) {
        why.append(": every instance type the pod fits has at least ").append(String.join(", ", lacking)).append(" (raise the nodepool's limits)");
      } else if (remaining[nodesDimension] == Long.MAX_VALUE || remaining[nodesDimension] >= 1000) {
        why.append(": each instance type the pod fits exceeds them in some resource (raise the nodepool's limits)");
      }
    }

    /** An empty claim on the next placeholder hostname (taken for good only once the claim is kept). */
    private InFlightNodeClaim newClaim(TemplateIndex template, long[] options) {
      String hostname = String.format("hostname-placeholder-%04d", nextHostname);
      topology.register(Labels.HOSTNAME, hostname);
      Requirements requirements = template.requirements.copy().add(Requirement.in(Labels.HOSTNAME, hostname)).frozen();
      return new InFlightNodeClaim(template, hostname, nextHostname, requirements, options);
    }

    /** Upstream's pessimistic limit accounting: a NodeClaim counts as one node of its largest option. */
    private void chargeLimits(InFlightNodeClaim claim) {
      long[] remaining = remainingLimits[claim.template.ordinal];
      if (remaining == null) {
        return;
      }
      long[] largest = claim.template.maxCapacity(claim.options);
      claim.limitCharge = new long[dimensions];
      for (int d = 0; d < dimensions; d++) {
        if (remaining[d] != Long.MAX_VALUE) {
          claim.limitCharge[d] = d == nodesDimension ? 1000 : largest[d];
          remaining[d] -= claim.limitCharge[d];
        }
      }
    }

    /** Gives back what a dropped claim counted against its NodePool's limits. */
    private void refundLimits(InFlightNodeClaim claim) {
      long[] remaining = remainingLimits[claim.template.ordinal];
      if (remaining != null && claim.limitCharge != null) {
        for (int d = 0; d < dimensions; d++) {
          if (remaining[d] != Long.MAX_VALUE) {
            remaining[d] += claim.limitCharge[d];
          }
        }
      }
    }

    private static String describeLimits(long[] remaining) {
      Map<String, String> shown = new java.util.TreeMap<>();
      for (int d = 0; d < remaining.length; d++) {
        if (remaining[d] != Long.MAX_VALUE) {
          shown.put(ResourceNames.name(d), Quantity.format(ResourceNames.name(d), Math.max(0, remaining[d])));
        }
      }
      return shown.toString().replace("=", ": ");
    }

    /** A new claim (one pod, newest) goes after every claim with one pod or fewer. */
    private int insertionPoint() {
      int low = 0;
      int high = claims.size();
      while (low < high) {
        int mid = (low + high) >>> 1;
        if (claims.get(mid).pods.size() <= 1) {
          low = mid + 1;
        } else {
          high = mid;
        }
      }
      return low;
    }

    private void renumber(int from) {
      for (int i = from; i < claims.size(); i++) {
        claims.get(i).position = i;
      }
    }

    private void commit(InFlightNodeClaim claim, SchedulingPod pod, Placement placement) {
      claim.add(pod, placement.requirements(), placement.options(), placement.relaxedMinValues());
      if (placement.reservations() != null) {
        reservations.hold(claim.hostname, placement.reservations());
      }
      topology.record(pod.pod, claim.requirements, claim.template.template.taints(), allowUndefined);
      // Keep fewest-pods-first order: the claim moves right past claims it no longer precedes.
      int i = claim.position;
      while (i + 1 < claims.size() && claims.get(i + 1).precedes(claim)) {
        InFlightNodeClaim next = claims.get(i + 1);
        claims.set(i, next);
        next.position = i;
        i++;
      }
      claims.set(i, claim);
      claim.position = i;
    }

    private static boolean conflicts(List<HostPort> used, List<HostPort> incoming) {
      if (used.isEmpty() || incoming.isEmpty()) {
        return false;
      }
      for (HostPort port : incoming) {
        for (HostPort other : used) {
          if (port.conflicts(other)) {
            return true;
          }
        }
      }
      return false;
    }

    private static void add(long[] into, long[] values) {
      for (int d = 0; d < into.length; d++) {
        into[d] += values[d];
      }
    }

    private SchedulingResult result() {
      List<PlannedNodeClaim> planned = new ArrayList<>();
      List<InFlightNodeClaim> bySequence = new ArrayList<>(claims);
      bySequence.sort(Comparator.comparingInt(c -> c.sequence));
      for (InFlightNodeClaim claim : bySequence) {
        PlannedNodeClaim plan = finalise(claim);
        if (plan != null) {
          planned.add(plan);
        }
      }
      Map<String, List<Pod>> existing = new LinkedHashMap<>();
      for (NodeSlot node : nodes) {
        if (!node.placed.isEmpty()) {
          existing.put(node.node.name(), List.copyOf(node.placed));
        }
      }
      List<PodError> unschedulable = new ArrayList<>();
      List<PodError> postponed = new ArrayList<>();
      for (SchedulingPod pod : pods) {
        if (!placed[pod.order]) {
          PodError error = new PodError(pod.pod, errors[pod.order] == null ? "not attempted" : errors[pod.order]);
          (deferred[pod.order] ? postponed : unschedulable).add(error);
        }
      }
      return new SchedulingResult(planned, existing, unschedulable, postponed);
    }

    /**
     * Upstream's {@code ToNodeClaim} plus {@code TruncateInstanceTypes}: options ordered by their
     * cheapest compatible available offering and cut to 600 (minValues re-checked), the instance-type
     * and capacity-type requirements resolved, the hostname placeholder and simulation-only labels
     * dropped, and the smallest still-possible DaemonSet overhead added to the requests.
     */
    private PlannedNodeClaim finalise(InFlightNodeClaim claim) {
      TemplateIndex template = claim.template;
      Requirements requirements = claim.requirements.copy();
      requirements.remove(Labels.HOSTNAME);
      for (String key : Labels.SIMULATION_ONLY) {
        requirements.remove(key);
      }
      if (template.hasReservedOfferings()) {
        Set<String> held = reservations.heldBy(claim.hostname);
        if (!held.isEmpty()) {
          // Launch only into the reservations held, so that the pass never over-commits one
          // (docs/behaviour/scheduling.md#reserved-capacity).
          requirements.add(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED));
          requirements.put(Requirement.of(Labels.RESERVATION_ID, Operator.In, held));
        } else {
          // Holding no reservation, the NodeClaim must not count on one (other capacity types remain: see reserve).
          requirements.add(Requirement.notIn(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED));
        }
      }
      TemplateIndex.Pricing pricing = template.pricing(requirements);
      List<Integer> order = new ArrayList<>(Math.min(MAX_INSTANCE_TYPES, Bits.cardinality(claim.options)));
      for (int t : pricing.cheapestFirst()) {
        if (Bits.get(claim.options, t) && pricing.cheapest()[t] != null) {
          order.add(t);
          if (order.size() == MAX_INSTANCE_TYPES) {
            break;
          }
        }
      }
      if (order.isEmpty()) {
        // Unreachable while reserve() guards every pod's placement; kept so a gap fails the pods, not the pass.
        for (SchedulingPod pod : claim.pods) {
          placed[pod.order] = false;
          deferred[pod.order] = false;
          errors[pod.order] = "no instance type has an available offering compatible with the nodeclaim's requirements " + requirements;
        }
        return null;
      }
      List<InstanceType> options = new ArrayList<>(order.size());
      for (int t : order) {
        options.add(template.types[t]);
      }
      boolean relaxed = claim.minValuesRelaxed;
      if (requirements.hasMinValues()) {
        InstanceTypes.MinValues minValues = InstanceTypes.satisfiesMinValues(options, requirements);
        if (!minValues.satisfied()) {
          if (input.options().minValuesPolicy() == SchedulerOptions.MinValuesPolicy.Strict) {
            String reason = minValues.reason() + " after truncating to the " + MAX_INSTANCE_TYPES + " cheapest instance types";
            for (SchedulingPod pod : claim.pods) {
              placed[pod.order] = false;
              deferred[pod.order] = false;
              errors[pod.order] = reason;
            }
            return null;
          }
          for (Map.Entry<String, Integer> unmet : minValues.unsatisfied().entrySet()) {
            requirements.put(requirements.get(unmet.getKey()).withMinValues(unmet.getValue()));
          }
          relaxed = true;
        }
      }
      long[] overhead = null;
      for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
        if (Bits.intersects(group.types(), claim.options)
            && !conflicts(group.hostPorts(), claim.hostPorts)
            && (overhead == null || lessThan(group.overhead(), overhead))) {
          overhead = group.overhead();
        }
      }
      long[] total = claim.requests.clone();
      if (overhead != null) {
        add(total, overhead);
      }
      List<String> names = new ArrayList<>(options.size());
      Set<String> capacityTypes = new java.util.TreeSet<>();
      for (int t : order) {
        names.add(template.types[t].name());
        capacityTypes.addAll(pricing.capacityTypes().get(t));
      }
      Offering cheapest = pricing.cheapest()[order.get(0)];
      Integer typeMinValues = requirements.has(Labels.INSTANCE_TYPE) ? requirements.get(Labels.INSTANCE_TYPE).minValues() : null;
      Integer capacityMinValues = requirements.has(Labels.CAPACITY_TYPE) ? requirements.get(Labels.CAPACITY_TYPE).minValues() : null;
      requirements.put(Requirement.of(Labels.INSTANCE_TYPE, Operator.In, names, typeMinValues));
      if (!capacityTypes.isEmpty()) {
        requirements.put(Requirement.of(Labels.CAPACITY_TYPE, Operator.In, capacityTypes, capacityMinValues));
      }
      List<Pod> claimPods = new ArrayList<>(claim.pods.size());
      for (SchedulingPod pod : claim.pods) {
        claimPods.add(pod.pod);
      }
      return new PlannedNodeClaim(template.template, requirements, options, claimPods, toResources(total), cheapest, relaxed);
    }
  }
}
