package sh.karpenter.core.scheduling;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.pod.WeightedPodAffinityTerm;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.topology.Topology;
import sh.karpenter.core.topology.TopologyDomains;
import sh.karpenter.core.volume.VolumeTopology;
import sh.karpenter.core.wellknown.Labels;

/**
 * One scheduling pass (upstream's {@code Scheduler.Solve}, scheduler.go): the queue of pending pods
 * in upstream's order, each tried on the existing nodes ({@link NodeSlot}), then on the NodeClaims
 * planned earlier in the pass ({@link InFlightNodeClaim}), then on a new NodeClaim from each NodePool
 * in weight order within its limits ({@link NodePoolLimits}); preferences relaxed one step at a time
 * for pods that fit nowhere ({@link Preferences}); and at the end each NodeClaim finalised into a
 * {@link PlannedNodeClaim} and every pod left explained ({@link UnschedulableReasons}). Whether a pod
 * fits a node or NodeClaim is that target's own question; this class only decides the order of the
 * attempts and keeps the pass's state.
 */
final class SchedulingPass {
  /** What trying a pod on a new NodeClaim of one NodePool came to. */
  enum Outcome {
    SCHEDULED,
    UNSCHEDULABLE,
    /** Refused on reserved capacity (docs/behaviour/scheduling.md#reserved-capacity): the pod waits for the next pass. */
    RESERVED_OFFERING_ERROR
  }

  private final SchedulingInput input;
  private final Set<String> allowUndefined;
  private final VolumeTopology volumes;
  private final List<SchedulingPod> pods = new ArrayList<>();
  private final String[] errors;
  private final boolean[] placed;
  /** Per pod (by order): its last attempt ended in a reserved-offering error, so it is deferred. */
  private final boolean[] deferred;
  private final List<TemplateIndex> templates;
  private final NodePoolLimits limits;
  private final List<NodeSlot> nodes = new ArrayList<>();
  /** Planned NodeClaims in fewest-pods-first order, indexed by topology domain. */
  private final InFlightNodeClaims claims;
  private final Map<String, InFlightNodeClaim> claimsByHostname = new HashMap<>();
  /** NodePools whose cost post-pass ran out of its step budget ({@link SchedulingResult#costRepackingOutOfBudget}). */
  private final List<String> costRepackingOutOfBudget = new ArrayList<>();
  private final Topology topology;
  private final boolean preferNoScheduleTaintsExist;
  private final ReservationManager reservations;
  private final UnschedulableReasons reasons;
  private final ZonePinning zonePinning;
  private int nextHostname = 1;
  /** Try every candidate claim in turn, without the index: the reference the index is tested against. */
  private final boolean plainScan;

  SchedulingPass(SchedulingInput input, PreparedTemplates prepared, SchedulerCache cache) {
    this(input, prepared, cache, false);
  }

  /** @param plainScan try every planned NodeClaim for every pod, as upstream (for tests) */
  SchedulingPass(SchedulingInput input, PreparedTemplates prepared, SchedulerCache cache, boolean plainScan) {
    this.plainScan = plainScan;
    this.input = input;
    this.volumes = input.volumes() == null ? VolumeTopology.EMPTY : input.volumes();
    this.allowUndefined = prepared.allowUndefined;
    boolean ignorePreferences = input.options().preferencePolicy() == SchedulerOptions.PreferencePolicy.Ignore;

    List<Pod> pending = new ArrayList<>(input.pendingPods());
    // Larger CPU, then larger memory, then older first; by UID at last. One comparator, not a chain
    // of Comparator's combinators: on a short run's cold JVM each link costs calls per comparison.
    pending.sort(
        (a, b) -> {
          int order = Long.compare(-a.requests().cpuMilli(), -b.requests().cpuMilli());
          if (order == 0) {
            order = Long.compare(-a.requests().memoryMilli(), -b.requests().memoryMilli());
          }
          if (order == 0) {
            order = Long.compare(a.creationTimestampMillis(), b.creationTimestampMillis());
          }
          return order != 0 ? order : a.uid().compareTo(b.uid());
        });
    pending = pinnedToExistingNodesFirst(pending, input.nodes());
    for (int i = 0; i < pending.size(); i++) {
      pods.add(new SchedulingPod(pending.get(i), prepared.dimensions, i, ignorePreferences));
    }
    this.errors = new String[pods.size()];
    this.placed = new boolean[pods.size()];
    this.deferred = new boolean[pods.size()];

    this.templates = List.copyOf(prepared.templates);
    this.limits = new NodePoolLimits(templates, prepared.dimensions);
    this.preferNoScheduleTaintsExist = prepared.preferNoScheduleTaintsExist;
    this.reservations = new ReservationManager(prepared.reservationCapacity);

    List<ExistingNode> existing = new ArrayList<>(input.nodes());
    existing.sort(Comparator.comparing((ExistingNode n) -> !n.initialized()).thenComparing(ExistingNode::name));
    // What each node offers before the pass: kept by the cache across passes (a disruption decision
    // simulates hundreds over the same nodes), and its labels as requirements serve the topology too.
    List<NodeSlot.Basis> bases = new ArrayList<>(existing.size());
    for (ExistingNode node : existing) {
      bases.add(cache == null ? NodeSlot.Basis.of(node, prepared.daemons, prepared.dimensions) : cache.node(node, prepared));
    }
    Set<String> topologyKeys = new HashSet<>();
    this.topology = buildTopology(existing, bases, topologyKeys);
    this.claims = new InFlightNodeClaims(topologyKeys);
    for (int i = 0; i < existing.size(); i++) {
      ExistingNode node = existing.get(i);
      nodes.add(new NodeSlot(node, bases.get(i), topology, volumes, instanceTypeVolumeLimits(node)));
    }
    this.reasons = new UnschedulableReasons(nodes, templates, volumes);
    this.zonePinning = new ZonePinning(topology, pods, placed);
  }

  /**
   * The pods in queue order with those pinned to existing nodes moved to the front (each group keeps
   * its order): a pod whose required hostname pod affinity selects pods running on existing nodes
   * and no pending pod can only run on those nodes, while the pods sorted before it (larger ones)
   * could mostly go elsewhere. Upstream tries it in size order, after the larger pods took the
   * node's room, and leaves it unschedulable for good (docs/behaviour/scheduling.md#pod-affinity-in-one-pass).
   */
  static List<Pod> pinnedToExistingNodesFirst(List<Pod> pending, List<ExistingNode> existing) {
    if (existing.isEmpty()) {
      return pending;
    }
    Map<LabelSelector, Boolean> pinning = new HashMap<>();
    List<Pod> pinned = new ArrayList<>();
    List<Pod> others = new ArrayList<>(pending.size());
    for (Pod pod : pending) {
      boolean pin = false;
      for (PodAffinityTerm term : pod.requiredPodAffinity()) {
        if (Labels.HOSTNAME.equals(term.topologyKey())
            && pinning.computeIfAbsent(term.selector(), selector -> selectsOnlyExistingPods(selector, pending, existing))) {
          pin = true;
          break;
        }
      }
      (pin ? pinned : others).add(pod);
    }
    if (pinned.isEmpty()) {
      return pending;
    }
    pinned.addAll(others);
    return pinned;
  }

  /** Whether the selector matches some pod bound to an existing node and no pending pod (namespaces aside). */
  private static boolean selectsOnlyExistingPods(LabelSelector selector, List<Pod> pending, List<ExistingNode> existing) {
    for (Pod pod : pending) {
      if (selector.matches(pod.labels())) {
        return false;
      }
    }
    for (ExistingNode node : existing) {
      for (Pod pod : node.pods()) {
        if (selector.matches(pod.labels())) {
          return true;
        }
      }
    }
    return false;
  }

  /**
   * The pass's topology; {@code keys} receives its topology keys other than the hostname. {@code
   * bases} are the nodes' bases, in {@code existing}'s order.
   */
  private Topology buildTopology(List<ExistingNode> existing, List<NodeSlot.Basis> bases, Set<String> keys) {
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
    for (int i = 0; i < existing.size(); i++) {
      ExistingNode node = existing.get(i);
      result.addNode(node.name(), node.labels(), bases.get(i).requirements(), node.taints(), node.pods());
    }
    for (SchedulingPod pod : pods) {
      result.update(pod.pod, pod.topologyConstraints());
    }
    return result;
  }

  /** The reason of a pod the pass did not try before its deadline (it is deferred). */
  static final String TIMED_OUT = "scheduling simulation timed out before this pod was tried";

  /** The deadline passed: the pods left untried are deferred and the cost post-pass is skipped. */
  private boolean timedOut;

  SchedulingResult run(Deadline deadline) {
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
      if (deadline.passed()) {
        timedOut = true;
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
    if (input.options().costRepacking() && !timedOut) {
      repackUnconstrainedClaims();
      repackConstrainedClaims();
    }
    return result();
  }

  /**
   * The cost post-pass: first fit grows NodeClaims onto whatever type still has room, often the
   * largest and dearest. The NodeClaims holding only unconstrained pods are re-planned per
   * NodePool with {@link CostRepacker}, and the new plan replaces them when it is cheaper. Only
   * pods whose placement no constraint can tell apart move: no node requirements or preferences,
   * no topology terms of their own, selected by no other pod's topology term, no host ports, no
   * volumes. Existing-node placements and every other NodeClaim stay as the pass made them. The
   * packer works within a step budget; a NodePool where it ran out is reported in {@link
   * SchedulingResult#costRepackingOutOfBudget()}.
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

  /**
   * The cost post-pass for constrained pods (docs/behaviour/scheduling.md#cost-post-pass): the
   * NodeClaims of a NodePool are grouped by their requirements less the hostname (their domain: the
   * zone, capacity type, architecture ... their pods narrowed them to), and each group's pods are
   * re-planned onto new NodeClaims with exactly those requirements, so every topology domain but the
   * hostname stays as the pass chose it. Hostname terms become per-node caps ({@link HostnameCaps}),
   * packed as extra resources each type offers {@code cap} of and each matching pod requests 1 of.
   * Each new NodeClaim is checked as first fit checks a pod joining it (requirements, instance-type
   * filter with DaemonSets, minValues) and the caps re-counted; the group keeps its old NodeClaims
   * unless every pod passes and the new ones cost less. NodeClaims of only unconstrained pods (the
   * pass before this one) and NodeClaims with a pod that must stay ({@link HostnameCaps#movable},
   * volumes under attachment limits) are left alone.
   */
  private void repackConstrainedClaims() {
    if (claims.isEmpty()) {
      return;
    }
    Set<LabelSelector> selectors = topologySelectors();
    Set<LabelSelector> domainSelectors = domainTopologySelectors();
    HostnameCaps caps = null;
    for (TemplateIndex template : templates) {
      if (template.hasReservedOfferings()) {
        continue;
      }
      Map<Requirements, List<InFlightNodeClaim>> byDomain = new LinkedHashMap<>();
      for (InFlightNodeClaim claim : claims) {
        if (claim.template != template || claim.minValuesRelaxed || claim.pods.stream().allMatch(pod -> unconstrained(pod, selectors))) {
          continue;
        }
        if (caps == null) {
          caps = HostnameCaps.of(pods, nodes);
        }
        HostnameCaps hostnameCaps = caps;
        if (claim.pods.stream().allMatch(pod -> hostnameCaps.movable(pod.pod) && (!template.hasVolumeLimits() || pod.pod.persistentVolumeClaims().isEmpty()))) {
          byDomain.computeIfAbsent(claim.requirements.copy().remove(Labels.HOSTNAME).frozen(), r -> new ArrayList<>()).add(claim);
        }
      }
      for (Map.Entry<Requirements, List<InFlightNodeClaim>> domain : byDomain.entrySet()) {
        List<SchedulingPod> domainPods = new ArrayList<>();
        domain.getValue().forEach(claim -> domainPods.addAll(claim.pods));
        if (bindingCaps(domainPods, caps).size() <= MAX_CAP_DIMENSIONS && repack(template, domain.getValue(), domain.getKey(), caps, domainSelectors)) {
          continue;
        }
        for (List<InFlightNodeClaim> group : capGroups(domain.getValue(), caps)) {
          repack(template, group, domain.getKey(), caps, domainSelectors);
        }
      }
    }
  }

  /**
   * The domain's claims in groups of at most {@link #GROUP_CAP_DIMENSIONS} binding caps each (first
   * fit, in the claims' order), re-planned one at a time when the domain was not re-planned as a
   * whole (more than {@link #MAX_CAP_DIMENSIONS} binding caps, or no cheaper packing found in its
   * steps). A cap binds a group when more of its pods match it than it allows per node, and only
   * binding caps become dimensions of the packer ({@link #bindingCaps}). Each group's new nodes hold
   * only its own pods, so its caps hold however the other groups are packed. A domain of many
   * hostname-spread workloads used to be left as first fit planned it once its caps outnumbered the
   * limit.
   */
  private static List<List<InFlightNodeClaim>> capGroups(List<InFlightNodeClaim> claims, HostnameCaps caps) {
    List<List<InFlightNodeClaim>> groups = new ArrayList<>();
    List<Map<Integer, Integer>> counts = new ArrayList<>();
    for (InFlightNodeClaim claim : claims) {
      Map<Integer, Integer> own = capCounts(claim.pods, caps);
      boolean added = false;
      for (int g = 0; g < groups.size() && !added; g++) {
        Map<Integer, Integer> merged = new HashMap<>(counts.get(g));
        own.forEach((cap, n) -> merged.merge(cap, n, Integer::sum));
        if (binding(merged, caps).size() <= GROUP_CAP_DIMENSIONS) {
          groups.get(g).add(claim);
          counts.set(g, merged);
          added = true;
        }
      }
      if (!added) {
        groups.add(new ArrayList<>(List.of(claim)));
        counts.add(own);
      }
    }
    return groups;
  }

  /** Per cap (index into {@link HostnameCaps#caps()}), how many of the pods match it. */
  private static Map<Integer, Integer> capCounts(List<SchedulingPod> pods, HostnameCaps caps) {
    Map<Integer, Integer> counts = new HashMap<>();
    for (SchedulingPod pod : pods) {
      for (int cap : caps.capsOf(pod.pod)) {
        counts.merge(cap, 1, Integer::sum);
      }
    }
    return counts;
  }

  /**
   * The caps of {@code counts} (pods matching each) that bind: more pods match the cap than it
   * allows per node. A cap the pods cannot exceed together needs no dimension in the packer.
   */
  private static Set<Integer> binding(Map<Integer, Integer> counts, HostnameCaps caps) {
    Set<Integer> binding = new HashSet<>();
    counts.forEach((cap, n) -> {
      if (n > caps.caps().get(cap).perNode()) {
        binding.add(cap);
      }
    });
    return binding;
  }

  /** The caps that bind the pods ({@link #binding}). */
  private static Set<Integer> bindingCaps(List<SchedulingPod> pods, HostnameCaps caps) {
    return binding(capCounts(pods, caps), caps);
  }

  /** Steps a domain's re-plan may take however few its pods (see {@link RepackBudget}). */
  private static final long DOMAIN_MIN_STEPS = 20_000_000L;

  /** Hostname caps one re-plan packs at most (each is a dimension of the packer). */
  private static final int MAX_CAP_DIMENSIONS = 32;

  /**
   * Binding caps of each group when a domain has more than {@link #MAX_CAP_DIMENSIONS}: the packer's
   * work grows with the square of its dimensions, and with more caps a group's re-plan ran out of
   * steps before its first packing.
   */
  private static final int GROUP_CAP_DIMENSIONS = 8;

  /**
   * The label selectors of the topology terms, of pending pods and of pods on existing nodes, that
   * count pods per zone or another domain coarser than a node (every key but the hostname).
   */
  private Set<LabelSelector> domainTopologySelectors() {
    return selectorsOfEveryPod((pod, selectors) -> selectors.addAll(domainSelectors(pod)));
  }

  /**
   * The selectors of the pod's own spread and pod (anti-)affinity terms, required and preferred,
   * keyed by another label than the hostname.
   */
  private static List<LabelSelector> domainSelectors(Pod pod) {
    List<LabelSelector> selectors = new ArrayList<>();
    for (TopologySpreadConstraint spread : pod.topologySpreadConstraints()) {
      if (!Labels.HOSTNAME.equals(spread.topologyKey())) {
        selectors.add(spread.selector());
      }
    }
    List<PodAffinityTerm> terms = new ArrayList<>(pod.requiredPodAffinity());
    terms.addAll(pod.requiredPodAntiAffinity());
    pod.preferredPodAffinity().forEach(t -> terms.add(t.term()));
    pod.preferredPodAntiAffinity().forEach(t -> terms.add(t.term()));
    for (PodAffinityTerm term : terms) {
      if (!Labels.HOSTNAME.equals(term.topologyKey())) {
        selectors.add(term.selector());
      }
    }
    return selectors;
  }

  /**
   * Whether nothing ties the pod to the zone (or other domain) its NodeClaim is in: no spread or pod
   * (anti-)affinity term of its own keyed by a label other than the hostname, no node preference, no
   * volume, and no such term of another pod selects it (namespaces aside, which only makes this
   * stricter). Its node requirements still hold wherever it goes.
   */
  private static boolean domainFree(Pod pod, Set<LabelSelector> domainSelectors) {
    if (!pod.preferredNodeAffinity().isEmpty() || !pod.persistentVolumeClaims().isEmpty() || !domainSelectors(pod).isEmpty()) {
      return false;
    }
    for (LabelSelector selector : domainSelectors) {
      if (selector.matches(pod.labels())) {
        return false;
      }
    }
    return true;
  }

  /** Every label selector of a topology term of a pending pod or of a pod on an existing node. */
  private Set<LabelSelector> topologySelectors() {
    return selectorsOfEveryPod(SchedulingPass::addTopologySelectors);
  }

  /** What {@code add} collects from every pending pod and every pod on an existing node. */
  private Set<LabelSelector> selectorsOfEveryPod(BiConsumer<Pod, Set<LabelSelector>> add) {
    Set<LabelSelector> selectors = new HashSet<>();
    for (SchedulingPod pod : pods) {
      add.accept(pod.pod, selectors);
    }
    for (NodeSlot node : nodes) {
      for (Pod pod : node.node.pods()) {
        add.accept(pod, selectors);
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
    repack(template, movable, null, null, null);
  }

  /**
   * {@link #repack(TemplateIndex, List)} onto new NodeClaims of the requirements {@code domain}
   * (null: the template's) under the per-node {@code caps} (null: none); true when the new claims
   * replaced the old ones.
   */
  private boolean repack(
      TemplateIndex template, List<InFlightNodeClaim> movable, Requirements domain, HostnameCaps caps, Set<LabelSelector> domainSelectors) {
    TemplateIndex.Pricing pricing = template.pricing(domain == null ? template.requirements : domain);
    long[] limitsBefore = limits.save(template);
    int hostnameBefore = nextHostname;
    double before = 0;
    List<SchedulingPod> movablePods = new ArrayList<>();
    for (InFlightNodeClaim claim : movable) {
      before += cheapestPrice(claim.options, pricing);
      movablePods.addAll(claim.pods);
      limits.refund(claim);
    }
    List<InFlightNodeClaim> replacements = replan(template, pricing, movablePods, before, domain, caps, domainSelectors);
    double after = 0;
    for (InFlightNodeClaim claim : replacements == null ? List.<InFlightNodeClaim>of() : replacements) {
      after += cheapestPrice(claim.options, pricing);
    }
    if (replacements == null || after >= before * (1 - 1e-9)) {
      limits.restore(template, limitsBefore);
      nextHostname = hostnameBefore;
      return false;
    }
    for (InFlightNodeClaim claim : movable) {
      claims.remove(claim);
      claimsByHostname.remove(claim.hostname);
    }
    for (InFlightNodeClaim claim : replacements) {
      claims.add(claim);
      claimsByHostname.put(claim.hostname, claim);
    }
    return true;
  }

  static double cheapestPrice(long[] options, TemplateIndex.Pricing pricing) {
    double cheapest = Double.MAX_VALUE;
    for (int t = TypeMasks.next(options, 0); t >= 0; t = TypeMasks.next(options, t + 1)) {
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
      TemplateIndex template,
      TemplateIndex.Pricing pricing,
      List<SchedulingPod> movablePods,
      double before,
      Requirements domain,
      HostnameCaps caps,
      Set<LabelSelector> domainSelectors) {
    long[] allowed = limits.launchableTypes(template, null);
    if (allowed == null) {
      return null;
    }
    long[] inDomain = domain == null ? null : template.compatibleWith(domain, domain.keys());
    if (inDomain != null) {
      TypeMasks.andInto(allowed, inDomain);
    }
    // Caps some pod here is under become extra dimensions after the resources.
    List<int[]> podCaps = new ArrayList<>(movablePods.size());
    Map<Integer, Integer> capDimension = new LinkedHashMap<>();
    Set<Integer> binding = caps == null ? Set.of() : bindingCaps(movablePods, caps);
    for (SchedulingPod pod : movablePods) {
      int[] matched = caps == null ? new int[0] : Arrays.stream(caps.capsOf(pod.pod)).filter(binding::contains).toArray();
      podCaps.add(matched);
      for (int cap : matched) {
        capDimension.putIfAbsent(cap, template.dimensions + capDimension.size());
      }
    }
    if (capDimension.size() > MAX_CAP_DIMENSIONS) {
      return null;
    }
    int dimensions = template.dimensions + capDimension.size();
    long[][] capacity = new long[template.size()][dimensions];
    double[] price = new double[template.size()];
    Arrays.fill(price, Double.POSITIVE_INFINITY);
    for (TemplateIndex.DaemonGroup group : template.daemonGroups) {
      long[] types = TypeMasks.copy(group.types());
      TypeMasks.andInto(types, allowed);
      for (int t = TypeMasks.next(types, 0); t >= 0; t = TypeMasks.next(types, t + 1)) {
        if (pricing.cheapest()[t] != null) {
          price[t] = pricing.price(t);
        }
        for (int d = 0; d < template.dimensions; d++) {
          capacity[t][d] = template.allocatable[d][t] - group.overhead()[d];
        }
        for (Map.Entry<Integer, Integer> cap : capDimension.entrySet()) {
          capacity[t][cap.getValue()] = caps.caps().get(cap.getKey()).perNode();
        }
      }
    }
    List<long[]> requests = new ArrayList<>(movablePods.size());
    for (int p = 0; p < movablePods.size(); p++) {
      long[] vector = Arrays.copyOf(movablePods.get(p).requests, dimensions);
      for (int cap : podCaps.get(p)) {
        vector[capDimension.get(cap)] = 1;
      }
      requests.add(vector);
    }
    if (CostRepacker.lowerBound(requests, capacity, price) >= before * (1 - 1e-10)) {
      return null;
    }
    // A domain's re-plan is one of many per NodePool: it gets steps in proportion to its pods only,
    // without the floor that lets one NodePool-wide re-plan of a small input run its pattern LP to
    // the end, and running out of them is no news (the greedy packing, if finished, is still used).
    CostRepacker.Packing packing =
        domain == null
            ? CostRepacker.pack(requests, capacity, price)
            : CostRepacker.pack(requests, capacity, price, Math.max(DOMAIN_MIN_STEPS, RepackBudget.STEPS_PER_POD * requests.size()));
    if (packing != null && packing.outOfBudget() && domain == null) {
      costRepackingOutOfBudget.add(template.template.nodePoolName());
    }
    if (packing == null || packing.nodes() == null || packing.price() >= before * (1 - 1e-9)) {
      return null;
    }
    int[] taken = new int[packing.classMembers().size()];
    List<InFlightNodeClaim> replacements = new ArrayList<>(packing.nodes().size());
    for (CostRepacker.Node node : packing.nodes()) {
      long[] options = limits.launchableTypes(template, null);
      if (options == null || (inDomain != null && !TypeMasks.andInto(options, inDomain))) {
        return null;
      }
      List<Integer> members = new ArrayList<>();
      for (int c = 0; c < taken.length; c++) {
        for (int n = 0; n < node.podsPerClass()[c]; n++) {
          members.add(packing.classMembers().get(c)[taken[c]++]);
        }
      }
      // A new claim of the domain whose pods no topology ties to it is opened as first fit would open
      // one for them: the NodePool's requirements and theirs, so it is priced in any zone they allow.
      boolean domainFree = domain != null && members.stream().allMatch(index -> domainFree(movablePods.get(index).pod, domainSelectors));
      InFlightNodeClaim claim = newClaim(template, domain == null || domainFree ? template.requirements : domain, options);
      long[] capped = new long[capDimension.size()];
      for (int index : members) {
        SchedulingPod pod = movablePods.get(index);
        if (!pod.requirements.isEmpty() && !claim.requirements.isCompatible(pod.requirements, allowUndefined)) {
          return null;
        }
        Requirements narrowed = claim.requirements;
        List<String> changedKeys = List.of();
        if (domainFree && !pod.requirements.isEmpty()) {
          narrowed = narrowed.copy().add(pod.requirements);
          changedKeys = List.copyOf(pod.requirements.keys());
        }
        InFlightNodeClaim.Placement placement = claim.filter(pod, narrowed, changedKeys, claim.options, null);
        if (placement == null || placement.relaxedMinValues()) {
          return null;
        }
        for (int cap : podCaps.get(index)) {
          int d = capDimension.get(cap) - template.dimensions;
          if (++capped[d] > caps.caps().get(cap).perNode()) {
            return null;
          }
        }
        claim.addRepacked(pod, placement);
      }
      nextHostname++;
      limits.charge(claim);
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

  /**
   * The CSI volume attachment limits of the node's instance type (upstream's {@code
   * instanceTypeForNode}: the type named by the node's instance-type label among its NodePool's, by
   * its NodePool label), or none when that is not known.
   */
  private Map<String, Integer> instanceTypeVolumeLimits(ExistingNode node) {
    String nodePool = node.labels().get(Labels.NODE_POOL);
    String typeName = node.labels().get(Labels.INSTANCE_TYPE);
    if (nodePool == null || typeName == null) {
      return Map.of();
    }
    for (TemplateIndex template : templates) {
      if (template.hasVolumeLimits() && template.template.nodePoolName().equals(nodePool)) {
        InstanceType type = template.type(typeName);
        return type == null ? Map.of() : type.volumeAttachmentLimits();
      }
    }
    return Map.of();
  }

  /** Places the pod, returning null, or why it fits nowhere. */
  private String place(SchedulingPod pod) {
    List<Requirements> alternatives = volumes.requirementsFor(pod.pod);
    if (alternatives.isEmpty()) {
      return "the pod's volumes require incompatible topologies";
    }
    for (NodeSlot node : nodes) {
      Requirements requirements = node.canAdd(pod, alternatives);
      if (requirements != null) {
        node.add(pod, requirements);
        return null;
      }
    }
    if (tryClaims(pod, alternatives)) {
      return null;
    }
    deferred[pod.order] = false;
    for (TemplateIndex template : templates) {
      Outcome outcome = tryNewClaim(template, pod, alternatives, null);
      if (outcome == Outcome.SCHEDULED) {
        return null;
      }
      if (outcome == Outcome.RESERVED_OFFERING_ERROR) {
        // No fallback to lower-weight NodePools: the reservation may free up by the next pass.
        deferred[pod.order] = true;
        break;
      }
    }
    return reasons.explain(pod, alternatives, this::tryNewClaim);
  }

  /**
   * First fit over the planned NodeClaims in fewest-pods-first order; true when the pod joined one.
   * When the pod's hostname topology admits only a few hostnames (anti-affinity, self-selecting
   * hostname spread) only the claims with those hostnames are tried, which keeps pods with hostname
   * anti-affinity from scanning every claim. Otherwise every claim is a candidate, but once a
   * topology constraint on a key other than the hostname fails the pod on one claim, the claims
   * saying the same about that key are skipped ({@link InFlightNodeClaims.Scan#ruleOut}): they
   * would fail it too. With several volume alternatives a claim fails only when all do, for possibly
   * different reasons, so nothing is skipped then.
   */
  private boolean tryClaims(SchedulingPod pod, List<Requirements> alternatives) {
    Set<String> hostnames = topology.hostnameCandidates(pod.pod);
    if (hostnames != null && hostnames.size() < claims.size()) {
      return tryHostnames(pod, alternatives, hostnames);
    }
    boolean learn = alternatives.size() == 1 && !plainScan;
    InFlightNodeClaims.Scan scan = claims.scan();
    while (scan.hasNext()) {
      InFlightNodeClaim claim = scan.next();
      if (joined(claim, pod, alternatives)) {
        return true;
      }
      if (learn && claim.topologyFailureKey() != null) {
        scan.ruleOut(claim, claim.topologyFailureKey());
      }
    }
    return false;
  }

  /**
   * First fit over the claims on the given hostnames, in fewest-pods-first order. With many
   * hostnames, sorting their claims for every pod would cost more than the pod's placement usually
   * needs (its first candidate tends to fit), so the claims are walked in order testing each
   * hostname, for as long as the walk stays short; past that, the candidates not yet reached are
   * sorted and tried. Either way each candidate is tried once, in order.
   */
  private boolean tryHostnames(SchedulingPod pod, List<Requirements> alternatives, Set<String> hostnames) {
    InFlightNodeClaim last = null;
    if (hostnames.size() > SORTED_HOSTNAMES && !plainScan) {
      long walkLimit = 4L * claims.size() / hostnames.size() + SORTED_HOSTNAMES;
      long walked = 0;
      for (InFlightNodeClaim claim : claims) {
        if (walked++ == walkLimit) {
          break;
        }
        last = claim;
        if (hostnames.contains(claim.hostname)) {
          walked = 0;
          if (joined(claim, pod, alternatives)) {
            return true;
          }
        }
      }
      if (walked <= walkLimit) {
        return false; // the walk reached the end
      }
    }
    List<InFlightNodeClaim> candidates = new ArrayList<>(hostnames.size());
    for (String hostname : hostnames) {
      InFlightNodeClaim claim = claimsByHostname.get(hostname);
      if (claim != null && (last == null || InFlightNodeClaims.ORDER.compare(last, claim) < 0)) {
        candidates.add(claim);
      }
    }
    for (InFlightNodeClaim claim : claims.ordered(candidates)) {
      if (joined(claim, pod, alternatives)) {
        return true;
      }
    }
    return false;
  }

  /** Whether the pod could join the claim, which it then did. */
  private boolean joined(InFlightNodeClaim claim, SchedulingPod pod, List<Requirements> alternatives) {
    InFlightNodeClaim.Placement placement = claim.canAdd(pod, alternatives, null);
    if (placement == null) {
      return false;
    }
    commit(claim, pod, placement);
    return true;
  }

  /** Up to this many hostnames, their claims are sorted rather than found by walking the order. */
  private static final int SORTED_HOSTNAMES = 32;

  /**
   * Tries a new NodeClaim of the template, within its limits, for the pod; on success it joins the
   * pass's claims. Explains a refusal into {@code why} when given.
   */
  private Outcome tryNewClaim(TemplateIndex template, SchedulingPod pod, List<Requirements> alternatives, StringBuilder why) {
    long[] options = limits.launchableTypes(template, why);
    if (options == null) {
      if (why != null && !TypeMasks.isEmpty(template.launchable)) {
        UnschedulableReasons.limits(why, newClaim(template, TypeMasks.copy(template.launchable)), pod, alternatives, limits);
      }
      return Outcome.UNSCHEDULABLE;
    }
    InFlightNodeClaim claim = newClaim(template, options);
    InFlightNodeClaim.Placement placement = claim.canAdd(pod, alternatives, why);
    if (placement == null) {
      return claim.reservedOfferingError() ? Outcome.RESERVED_OFFERING_ERROR : Outcome.UNSCHEDULABLE;
    }
    nextHostname++;
    claim.add(pod, placement);
    claims.add(claim);
    claimsByHostname.put(claim.hostname, claim);
    limits.charge(claim);
    return Outcome.SCHEDULED;
  }

  /** An empty claim on the next placeholder hostname (taken for good only once the claim is kept). */
  private InFlightNodeClaim newClaim(TemplateIndex template, long[] options) {
    return newClaim(template, template.requirements, options);
  }

  /** A new NodeClaim of the template whose requirements are {@code base} pinned to a fresh hostname. */
  private InFlightNodeClaim newClaim(TemplateIndex template, Requirements base, long[] options) {
    String hostname = String.format("hostname-placeholder-%04d", nextHostname);
    topology.register(Labels.HOSTNAME, hostname);
    Requirements requirements = base.copy().add(Requirement.in(Labels.HOSTNAME, hostname)).frozen();
    return new InFlightNodeClaim(template, hostname, nextHostname, requirements, options, topology, reservations, allowUndefined, input.options(), volumes, zonePinning);
  }

  /** The pod joins the claim ({@link InFlightNodeClaim#add}), which keeps its place in fewest-pods-first order. */
  private void commit(InFlightNodeClaim claim, SchedulingPod pod, InFlightNodeClaim.Placement placement) {
    claims.update(claim, () -> claim.add(pod, placement));
  }

  private SchedulingResult result() {
    List<PlannedNodeClaim> planned = new ArrayList<>();
    List<InFlightNodeClaim> bySequence = new ArrayList<>(claims.size());
    claims.forEach(bySequence::add);
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
        if (timedOut && errors[pod.order] == null) {
          postponed.add(new PodError(pod.pod, TIMED_OUT)); // never tried: the next pass tries it, as upstream
          continue;
        }
        PodError error = new PodError(pod.pod, errors[pod.order] == null ? "not attempted" : errors[pod.order]);
        (deferred[pod.order] ? postponed : unschedulable).add(error);
      }
    }
    return new SchedulingResult(planned, existing, unschedulable, postponed, costRepackingOutOfBudget, timedOut);
  }

  /**
   * Upstream's {@code ToNodeClaim} plus {@code TruncateInstanceTypes}: options ordered by their
   * cheapest compatible available offering and cut to 600 (minValues re-checked), the instance-type
   * and capacity-type requirements resolved, the hostname placeholder and simulation-only labels
   * dropped, and the smallest still-possible DaemonSet overhead added to the requests.
   */
  private PlannedNodeClaim finalise(InFlightNodeClaim claim) {
    TemplateIndex template = claim.template;
    Requirements requirements = claim.launchRequirements();
    TemplateIndex.Pricing pricing = template.pricing(requirements);
    List<Integer> order = new ArrayList<>(Math.min(Scheduler.MAX_INSTANCE_TYPES, TypeMasks.cardinality(claim.options)));
    for (int t : pricing.cheapestFirst()) {
      if (TypeMasks.get(claim.options, t) && pricing.cheapest()[t] != null) {
        order.add(t);
        if (order.size() == Scheduler.MAX_INSTANCE_TYPES) {
          break;
        }
      }
    }
    if (order.isEmpty()) {
      // Unreachable while reserve() guards every pod's placement; kept so a gap fails the pods, not the pass.
      return unschedulable(claim, "no instance type has an available offering compatible with the nodeclaim's requirements " + requirements);
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
          return unschedulable(claim, minValues.reason() + " after truncating to the " + Scheduler.MAX_INSTANCE_TYPES + " cheapest instance types");
        }
        for (Map.Entry<String, Integer> unmet : minValues.unsatisfied().entrySet()) {
          requirements.put(requirements.get(unmet.getKey()).withMinValues(unmet.getValue()));
        }
        relaxed = true;
      }
    }
    long[] total = claim.requests.clone();
    long[] overhead = claim.smallestDaemonOverhead();
    if (overhead != null) {
      ResourceVectors.add(total, overhead);
    }
    // The names in sorted order (by the template's name ranks), so Requirement.of's sort finds them sorted.
    int[] ranks = new int[order.size()];
    Set<String> capacityTypes = new TreeSet<>();
    for (int k = 0; k < ranks.length; k++) {
      int t = order.get(k);
      ranks[k] = template.nameRank[t];
      capacityTypes.addAll(pricing.capacityTypes().get(t));
    }
    Arrays.sort(ranks);
    List<String> names = new ArrayList<>(ranks.length);
    for (int rank : ranks) {
      names.add(template.namesByRank[rank]);
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
    return new PlannedNodeClaim(template.template, requirements, options, claimPods, ResourceVectors.toResources(total), cheapest, relaxed);
  }

  /** Fails the claim's pods with {@code reason} when the claim cannot be finalised; returns null. */
  private PlannedNodeClaim unschedulable(InFlightNodeClaim claim, String reason) {
    for (SchedulingPod pod : claim.pods) {
      placed[pod.order] = false;
      deferred[pod.order] = false;
      errors[pod.order] = reason;
    }
    return null;
  }
}
