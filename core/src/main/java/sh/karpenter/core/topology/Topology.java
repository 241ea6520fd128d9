package sh.karpenter.core.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.PodAffinityTerm;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Labels;

/**
 * The topology state of one scheduling pass: every {@link TopologyGroup} the pending pods' spread
 * constraints and pod (anti-)affinity terms create, counted from the pods already bound to nodes and
 * from each placement the pass makes, plus the inverse anti-affinity groups (pods with required
 * anti-affinity keep the pods they select out of their domains, whichever side is placed first).
 *
 * <p>Single-threaded; one instance per pass.
 */
public final class Topology {
  /** The label namespaces carry for selection when no labels are known for them. */
  private static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";

  /**
   * The outcome of {@link #addRequirements}: requirements to add to the node, or an error and the
   * key of the constraint that left no domain. Such a failure depends only on what the node's
   * requirements say about that key (and on the counts), so every node that says the same about it
   * fails the pod too until the counts change.
   */
  public record Outcome(Requirements requirements, String error, String failedKey) {
    /** The pod is under no topology constraint: nothing to add. */
    public static final Outcome NONE = new Outcome(null, null, null);

    public boolean failed() {
      return error != null;
    }
  }

  private static final String UNSATISFIED = "topology constraint unsatisfied";

  private record BoundPod(Pod pod, String nodeName, Map<String, String> nodeLabels, Requirements node, List<Taint> taints) {}

  /**
   * What decides which groups select a pod: its namespace and its label set, as the map object (a
   * workload's replicas share their template's), so the groups are looked up once per workload.
   */
  private record LabelSet(String namespace, Map<String, String> labels) {
    @Override
    public boolean equals(Object o) {
      return o instanceof LabelSet other && other.labels == labels && other.namespace.equals(namespace);
    }

    @Override
    public int hashCode() {
      return 31 * System.identityHashCode(labels) + namespace.hashCode();
    }
  }

  /** Groups relevant to one label set, cached until the set of groups changes. */
  private static final class PodGroups {
    final int version;
    final List<TopologyGroup> selecting = new ArrayList<>(); // regular groups that count the pod
    final List<TopologyGroup> inverseSelecting = new ArrayList<>(); // inverse groups whose owners repel the pod

    PodGroups(int version) {
      this.version = version;
    }
  }

  private final TopologyDomains universe;
  private final Map<String, Map<String, String>> namespaceLabels;
  private final Set<String> knownNamespaces;
  private final Set<String> allowUndefined;
  private final Set<String> excludedPods;

  private final Map<TopologyGroup.Identity, TopologyGroup> groups = new LinkedHashMap<>();
  private final Map<TopologyGroup.Identity, TopologyGroup> inverseGroups = new LinkedHashMap<>();
  private final Map<String, List<TopologyGroup>> groupsByKey = new HashMap<>();
  private final Map<String, Set<String>> registered = new HashMap<>();
  private final Map<String, List<TopologyGroup>> owned = new HashMap<>();
  private final Map<String, List<TopologyGroup>> ownedInverse = new HashMap<>();
  private final Map<LabelSet, PodGroups> podGroups = new HashMap<>();
  private final List<BoundPod> boundPods = new ArrayList<>();
  private int version;

  /**
   * @param universe the domains per topology key
   * @param namespaceLabels labels of the cluster's namespaces, for namespaceSelector terms
   * @param knownNamespaces every namespace a selected pod can live in (namespaceSelector candidates)
   * @param allowUndefined labels a NodeClaim may leave undefined when matched against node filters
   * @param excludedPods UIDs of the pods being scheduled: bound copies of them are not counted
   */
  public Topology(
      TopologyDomains universe,
      Map<String, Map<String, String>> namespaceLabels,
      Set<String> knownNamespaces,
      Set<String> allowUndefined,
      Set<String> excludedPods) {
    this.universe = universe;
    this.namespaceLabels = namespaceLabels;
    this.knownNamespaces = new TreeSet<>(knownNamespaces);
    this.knownNamespaces.addAll(namespaceLabels.keySet());
    this.allowUndefined = allowUndefined;
    this.excludedPods = excludedPods;
  }

  /**
   * Adds an existing node: its hostname becomes a domain, empty or not (upstream's {@code
   * NewExistingNode} registers it; otherwise hostname anti-affinity could never use an empty node),
   * and the pods bound to it count towards every group that selects them, their required
   * anti-affinity terms keeping the pods they select out of the node's domains.
   *
   * @param node the node's {@link #nodeRequirements}, frozen (the scheduler keeps them across passes)
   */
  public void addNode(String nodeName, Map<String, String> labels, Requirements node, List<Taint> taints, List<Pod> pods) {
    for (Pod pod : pods) {
      if (pod.terminating() || excludedPods.contains(pod.uid())) {
        continue;
      }
      BoundPod bound = new BoundPod(pod, nodeName, labels, node, taints);
      boundPods.add(bound);
      for (TopologyGroup group : groups.values()) {
        countBound(group, bound);
      }
      for (PodAffinityTerm term : pod.requiredPodAntiAffinity()) {
        TopologyGroup inverse = inverseGroup(pod, term);
        inverse.addOwner(pod.uid());
        String domain = domainOf(term.topologyKey(), nodeName, labels);
        if (domain != null) {
          inverse.record(domain);
        }
      }
    }
    register(Labels.HOSTNAME, domainOf(Labels.HOSTNAME, nodeName, labels));
  }

  /** The requirements an existing node offers: its labels, plus its name as hostname when unlabelled. */
  public static Requirements nodeRequirements(String nodeName, Map<String, String> labels) {
    Requirements node = Requirements.fromLabels(labels);
    if (!labels.containsKey(Labels.HOSTNAME)) {
      node.add(Requirement.in(Labels.HOSTNAME, nodeName));
    }
    return node;
  }

  /**
   * (Re)registers a pending pod as the owner of the groups its current constraints describe. Called
   * once per pod before scheduling and again after each relaxation, so relaxed preferences stop
   * constraining it. The pod's required anti-affinity also becomes an inverse group the first time.
   */
  public void update(Pod pod, TopologyConstraints constraints) {
    String uid = pod.uid();
    List<TopologyGroup> previous = owned.remove(uid);
    if (previous != null) {
      for (TopologyGroup group : previous) {
        group.removeOwner(uid);
      }
    }
    if (!ownedInverse.containsKey(uid)) {
      List<TopologyGroup> inverse = new ArrayList<>(pod.requiredPodAntiAffinity().size());
      for (PodAffinityTerm term : pod.requiredPodAntiAffinity()) {
        TopologyGroup group = inverseGroup(pod, term);
        group.addOwner(uid);
        inverse.add(group);
      }
      ownedInverse.put(uid, inverse);
    }
    if (constraints.isEmpty()) {
      return;
    }
    List<TopologyGroup> mine = new ArrayList<>();
    for (TopologySpreadConstraint spread : constraints.spread()) {
      mine.add(group(spreadIdentity(pod, spread, constraints)));
    }
    for (PodAffinityTerm term : constraints.affinity()) {
      mine.add(group(termIdentity(TopologyType.POD_AFFINITY, pod, term)));
    }
    for (PodAffinityTerm term : constraints.antiAffinity()) {
      mine.add(group(termIdentity(TopologyType.POD_ANTI_AFFINITY, pod, term)));
    }
    for (TopologyGroup group : mine) {
      group.addOwner(uid);
    }
    owned.put(uid, mine);
  }

  /** Makes a new domain (e.g. a NodeClaim's placeholder hostname) known to every group on the key. */
  public void register(String key, String domain) {
    if (registered.computeIfAbsent(key, k -> new HashSet<>()).add(domain)) {
      for (TopologyGroup group : groupsByKey.getOrDefault(key, List.of())) {
        group.register(domain);
      }
    }
  }

  /** True when the pod is under some topology constraint, its own or an inverse one. */
  public boolean constrains(Pod pod) {
    List<TopologyGroup> mine = owned.get(pod.uid());
    return (mine != null && !mine.isEmpty()) || !groupsFor(pod).inverseSelecting.isEmpty();
  }

  /**
   * The only hostnames the pod may still go to, or null when its constraints do not narrow them
   * down this way: a hostname anti-affinity (its own or another pod's against it), or a
   * self-selecting hostname spread with maxSkew 1, admits only hostnames where no matching pod is
   * yet. Lets the scheduler skip NodeClaims the topology check would reject anyway.
   */
  public Set<String> hostnameCandidates(Pod pod) {
    Set<String> smallest = null;
    for (TopologyGroup group : owned.getOrDefault(pod.uid(), List.of())) {
      if (!Labels.HOSTNAME.equals(group.key())) {
        continue;
      }
      boolean narrows =
          group.type() == TopologyType.POD_ANTI_AFFINITY
              || (group.type() == TopologyType.SPREAD && group.maxSkew() == 1 && group.selects(pod.namespace(), pod.labels()));
      if (narrows && (smallest == null || group.emptyDomains().size() < smallest.size())) {
        smallest = group.emptyDomains();
      }
    }
    for (TopologyGroup group : groupsFor(pod).inverseSelecting) {
      if (Labels.HOSTNAME.equals(group.key()) && (smallest == null || group.emptyDomains().size() < smallest.size())) {
        smallest = group.emptyDomains();
      }
    }
    return smallest;
  }

  /** The pod's own groups (spread, affinity, anti-affinity). */
  public List<TopologyGroup> ownedGroups(Pod pod) {
    return owned.getOrDefault(pod.uid(), List.of());
  }

  /**
   * The groups of the pod's required pod anti-affinity terms (not of its preferred ones), each once
   * and only while it constrains the pod.
   */
  public List<TopologyGroup> requiredAntiAffinityGroups(Pod pod) {
    if (pod.requiredPodAntiAffinity().isEmpty()) {
      return List.of();
    }
    List<TopologyGroup> mine = owned.getOrDefault(pod.uid(), List.of());
    List<TopologyGroup> result = new ArrayList<>(pod.requiredPodAntiAffinity().size());
    for (PodAffinityTerm term : pod.requiredPodAntiAffinity()) {
      TopologyGroup group = groups.get(termIdentity(TopologyType.POD_ANTI_AFFINITY, pod, term));
      if (group != null && mine.contains(group) && !result.contains(group)) {
        result.add(group);
      }
    }
    return result;
  }

  /** Inverse anti-affinity groups whose owners repel this pod. */
  public List<TopologyGroup> repellingGroups(Pod pod) {
    return groupsFor(pod).inverseSelecting;
  }

  /**
   * The domains the pod may use on a node with the given requirements, as requirements to add to the
   * node (one per constrained key), or an error naming the constraint that leaves no domain.
   *
   * @param podRequirements the pod's strict node requirements (preferences left out)
   * @param node the candidate node's requirements
   * @param explain whether to describe a failure (costly); otherwise the error is a fixed text
   */
  public Outcome addRequirements(Pod pod, Requirements podRequirements, Requirements node, boolean explain) {
    List<TopologyGroup> mine = owned.getOrDefault(pod.uid(), List.of());
    List<TopologyGroup> repelling = groupsFor(pod).inverseSelecting;
    if (mine.isEmpty() && repelling.isEmpty()) {
      return Outcome.NONE;
    }
    Requirements added = null;
    int total = mine.size() + repelling.size();
    for (int i = 0; i < total; i++) {
      TopologyGroup group = i < mine.size() ? mine.get(i) : repelling.get(i - mine.size());
      String key = group.key();
      Requirement podDomains =
          podRequirements.has(key) && !ignoresNodeAffinity(group) ? podRequirements.get(key) : Requirement.exists(key);
      Requirement nodeDomains;
      if (added != null && added.has(key)) {
        nodeDomains = added.get(key);
      } else {
        nodeDomains = node.has(key) ? node.get(key) : Requirement.exists(key);
      }
      boolean selfSelecting = group.selects(pod.namespace(), pod.labels());
      Requirement domains = group.nextDomains(selfSelecting, podDomains, nodeDomains);
      if (domains.isEmpty()) {
        return new Outcome(null, explain ? describe(group, i >= mine.size(), nodeDomains) : UNSATISFIED, key);
      }
      if (added == null) {
        added = Requirements.of(domains);
      } else {
        added.add(domains);
      }
    }
    return new Outcome(added, null, null);
  }

  /**
   * A spread constraint whose node filter has no terms (nodeAffinityPolicy Ignore, or nothing to
   * honour) weighs every domain, not just those the pod's own requirements allow.
   */
  private static boolean ignoresNodeAffinity(TopologyGroup group) {
    return group.type() == TopologyType.SPREAD && group.nodeFilter().terms().isEmpty();
  }

  private static String describe(TopologyGroup group, boolean inverse, Requirement nodeDomains) {
    StringBuilder s = new StringBuilder();
    if (inverse) {
      s.append("pod anti-affinity of other pods on ").append(group.key()).append(" leaves no domain");
    } else {
      s.append(group).append(" leaves no domain");
      if (group.type() == TopologyType.SPREAD) {
        s.append(" (maxSkew ").append(group.maxSkew()).append(')');
      }
    }
    s.append(": counts ").append(group.describeCounts(5));
    if (!nodeDomains.complement()) {
      s.append(", node allows ").append(nodeDomains);
    }
    return s.toString();
  }

  /**
   * Records that the pod was placed on a node with these requirements and taints. Spread and
   * affinity groups count it once the key has a single value; anti-affinity groups (and the pod's
   * own inverse groups) block every domain it could still end up in.
   *
   * @param allowUndefined labels the node may leave undefined when matched against node filters
   */
  public void record(Pod pod, Requirements node, List<Taint> taints, Set<String> allowUndefined) {
    for (TopologyGroup group : groupsFor(pod).selecting) {
      if (!group.nodeFilter().matches(node, taints, allowUndefined)) {
        continue;
      }
      Requirement domains = node.get(group.key());
      if (domains.complement()) {
        continue;
      }
      if (group.type() == TopologyType.POD_ANTI_AFFINITY) {
        for (String domain : domains.values()) {
          group.record(domain);
        }
      } else if (domains.size() == 1) {
        group.record(domains.any());
      }
    }
    for (TopologyGroup inverse : ownedInverse.getOrDefault(pod.uid(), List.of())) {
      Requirement domains = node.get(inverse.key());
      if (!domains.complement()) {
        for (String domain : domains.values()) {
          inverse.record(domain);
        }
      }
    }
  }

  /** The label set the allowUndefined rules use for NodeClaims. */
  public Set<String> allowUndefined() {
    return allowUndefined;
  }

  private PodGroups groupsFor(Pod pod) {
    LabelSet key = new LabelSet(pod.namespace(), pod.labels());
    PodGroups cached = podGroups.get(key);
    if (cached != null && cached.version == version) {
      return cached;
    }
    PodGroups fresh = new PodGroups(version);
    for (TopologyGroup group : groups.values()) {
      if (group.selects(pod.namespace(), pod.labels())) {
        fresh.selecting.add(group);
      }
    }
    for (TopologyGroup group : inverseGroups.values()) {
      if (group.selects(pod.namespace(), pod.labels())) {
        fresh.inverseSelecting.add(group);
      }
    }
    podGroups.put(key, fresh);
    return fresh;
  }

  private TopologyGroup group(TopologyGroup.Identity identity) {
    TopologyGroup existing = groups.get(identity);
    if (existing != null) {
      return existing;
    }
    TopologyGroup group = newGroup(identity);
    groups.put(identity, group);
    for (BoundPod bound : boundPods) {
      countBound(group, bound);
    }
    return group;
  }

  private TopologyGroup inverseGroup(Pod owner, PodAffinityTerm term) {
    TopologyGroup.Identity identity = termIdentity(TopologyType.POD_ANTI_AFFINITY, owner, term);
    TopologyGroup existing = inverseGroups.get(identity);
    if (existing != null) {
      return existing;
    }
    TopologyGroup group = newGroup(identity);
    inverseGroups.put(identity, group);
    return group;
  }

  private TopologyGroup newGroup(TopologyGroup.Identity identity) {
    TopologyGroup group = new TopologyGroup(identity, universe);
    for (String domain : registered.getOrDefault(identity.key(), Set.of())) {
      group.register(domain);
    }
    groupsByKey.computeIfAbsent(identity.key(), k -> new ArrayList<>()).add(group);
    version++;
    return group;
  }

  private void countBound(TopologyGroup group, BoundPod bound) {
    Pod pod = bound.pod();
    if (!group.selects(pod.namespace(), pod.labels())) {
      return;
    }
    String domain = domainOf(group.key(), bound.nodeName(), bound.nodeLabels());
    if (domain == null || !group.nodeFilter().matches(bound.node(), bound.taints(), Set.of())) {
      return;
    }
    group.register(domain);
    group.record(domain);
  }

  /** A node's domain for a key; nodes not yet labelled with a hostname use their name. */
  private static String domainOf(String key, String nodeName, Map<String, String> labels) {
    String domain = labels.get(key);
    if (domain == null && Labels.HOSTNAME.equals(key)) {
      return nodeName;
    }
    return domain;
  }

  private TopologyGroup.Identity spreadIdentity(Pod pod, TopologySpreadConstraint spread, TopologyConstraints constraints) {
    TopologyNodeFilter filter =
        new TopologyNodeFilter(
            spread.nodeAffinityPolicy() == TopologySpreadConstraint.NodeInclusionPolicy.Ignore
                ? List.of()
                : constraints.nodeAffinityTerms(),
            spread.nodeTaintsPolicy() == TopologySpreadConstraint.NodeInclusionPolicy.Honor ? constraints.tolerations() : null);
    if (filter.terms().isEmpty() && filter.ignoresTaints()) {
      filter = TopologyNodeFilter.ALL;
    }
    return new TopologyGroup.Identity(
        TopologyType.SPREAD,
        spread.topologyKey(),
        Set.of(pod.namespace()),
        withMatchLabelKeys(spread.selector(), spread.matchLabelKeys(), pod),
        spread.maxSkew(),
        spread.minDomains(),
        filter);
  }

  private TopologyGroup.Identity termIdentity(TopologyType type, Pod pod, PodAffinityTerm term) {
    return new TopologyGroup.Identity(
        type,
        term.topologyKey(),
        namespaces(pod, term),
        withMatchLabelKeys(term.selector(), term.matchLabelKeys(), pod),
        Integer.MAX_VALUE,
        null,
        TopologyNodeFilter.ALL);
  }

  /** The pod's own namespace, or the term's namespaces plus those its namespaceSelector matches. */
  private Set<String> namespaces(Pod pod, PodAffinityTerm term) {
    Set<String> listed = term.namespaces() == null ? Set.of() : term.namespaces();
    if (listed.isEmpty() && term.namespaceSelector() == null) {
      return Set.of(pod.namespace());
    }
    Set<String> selected = new TreeSet<>(listed);
    if (term.namespaceSelector() != null) {
      for (String namespace : knownNamespaces) {
        Map<String, String> labels = namespaceLabels.getOrDefault(namespace, Map.of(NAMESPACE_NAME_LABEL, namespace));
        if (term.namespaceSelector().matches(labels)) {
          selected.add(namespace);
        }
      }
    }
    return Set.copyOf(selected);
  }

  /**
   * The term's selector with the owner's values of its {@code matchLabelKeys} ANDed in, as
   * kube-scheduler reads spread constraints and pod (anti-)affinity terms; keys the owner lacks are left out.
   */
  public static LabelSelector withMatchLabelKeys(LabelSelector selector, List<String> matchLabelKeys, Pod pod) {
    LabelSelector result = selector == null ? LabelSelector.NOTHING : selector;
    if (matchLabelKeys == null) {
      return result;
    }
    for (String key : matchLabelKeys) {
      String value = pod.labels().get(key);
      if (value != null) {
        result = result.withLabel(key, value);
      }
    }
    return result;
  }
}
