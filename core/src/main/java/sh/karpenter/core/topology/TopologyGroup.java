package sh.karpenter.core.topology;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.requirements.LabelSelector;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Labels;

/**
 * Counts the pods a selector matches per domain of one topology key (think {@code SELECT COUNT(*)
 * FROM pods WHERE selector GROUP BY node.labels[key]}) and answers which domains a pod may go to
 * under one spread constraint, affinity term or anti-affinity term. Pods with identical constraints
 * share one group and are its owners.
 */
public final class TopologyGroup {
  /** What makes two constraints the same group. */
  record Identity(
      TopologyType type,
      String key,
      Set<String> namespaces,
      LabelSelector selector,
      int maxSkew,
      Integer minDomains,
      TopologyNodeFilter nodeFilter) {
    // equals and hashCode written out, as Taint's
    @Override
    public boolean equals(Object o) {
      return o instanceof Identity i
          && type == i.type
          && Objects.equals(key, i.key)
          && Objects.equals(namespaces, i.namespaces)
          && Objects.equals(selector, i.selector)
          && maxSkew == i.maxSkew
          && Objects.equals(minDomains, i.minDomains)
          && Objects.equals(nodeFilter, i.nodeFilter);
    }

    @Override
    public int hashCode() {
      return Objects.hash(type, key, namespaces, selector, maxSkew, minDomains, nodeFilter);
    }
  }

  private final Identity identity;
  private final TopologyDomains universe;
  private final boolean hostname;
  private final Map<String, int[]> counts = new HashMap<>();
  /** Domains with a count above zero, for affinity. */
  private final TreeSet<String> occupied = new TreeSet<>();
  private List<String> sortedDomains = List.of();
  private boolean sortedStale;
  /** Known domains with a count of zero, in registration order. */
  private final Set<String> empty = new java.util.LinkedHashSet<>();
  private final Set<String> owners = new HashSet<>();

  TopologyGroup(Identity identity, TopologyDomains universe) {
    this.identity = identity;
    this.universe = universe;
    this.hostname = Labels.HOSTNAME.equals(identity.key());
    for (String domain : universe.domains(identity.key())) {
      register(domain);
    }
  }

  public TopologyType type() {
    return identity.type();
  }

  public String key() {
    return identity.key();
  }

  public int maxSkew() {
    return identity.maxSkew();
  }

  Identity identity() {
    return identity;
  }

  TopologyNodeFilter nodeFilter() {
    return identity.nodeFilter();
  }

  /** The number of matching pods recorded in a domain (0 for unknown domains). */
  public int count(String domain) {
    int[] count = counts.get(domain);
    return count == null ? 0 : count[0];
  }

  /** True when pods in this namespace with these labels count towards the group. */
  public boolean selects(String namespace, Map<String, String> labels) {
    return identity.namespaces().contains(namespace) && identity.selector().matches(labels);
  }

  /** True when a pod counts towards the group once placed on a node with these requirements and taints. */
  boolean counts(String namespace, Map<String, String> labels, Requirements node, List<Taint> taints, Set<String> allowUndefined) {
    return selects(namespace, labels) && identity.nodeFilter().matches(node, taints, allowUndefined);
  }

  /** Makes a domain known (with count zero) if it is not already. */
  public void register(String domain) {
    if (!counts.containsKey(domain)) {
      counts.put(domain, new int[1]);
      empty.add(domain);
      sortedStale = true;
    }
  }

  /** Counts one more matching pod in each of the domains. */
  public void record(String domain) {
    int[] count = counts.get(domain);
    if (count == null) {
      count = new int[1];
      counts.put(domain, count);
      sortedStale = true;
    } else if (count[0] == 0) {
      empty.remove(domain);
    }
    if (count[0]++ == 0) {
      occupied.add(domain);
    }
  }

  /** The known domains no matching pod occupies yet (a live view). */
  public Set<String> emptyDomains() {
    return Collections.unmodifiableSet(empty);
  }

  void addOwner(String uid) {
    owners.add(uid);
  }

  void removeOwner(String uid) {
    owners.remove(uid);
  }

  /** True when the pod with this UID has this constraint. */
  public boolean isOwnedBy(String uid) {
    return owners.contains(uid);
  }

  /**
   * The domains a pod may be placed in under this group, as a requirement on the key ({@code In}
   * the allowed domains, or {@code DoesNotExist} when none is).
   *
   * @param selfSelecting whether the group's selector matches the pod being placed
   * @param podDomains the domains the pod's own (strict) node requirements allow
   * @param nodeDomains the domains the candidate node allows
   */
  public Requirement nextDomains(boolean selfSelecting, Requirement podDomains, Requirement nodeDomains) {
    return switch (identity.type()) {
      case SPREAD -> nextSpreadDomain(selfSelecting, podDomains, nodeDomains);
      case POD_AFFINITY -> nextAffinityDomains(selfSelecting, podDomains, nodeDomains);
      case POD_ANTI_AFFINITY -> nextAntiAffinityDomains(podDomains, nodeDomains);
    };
  }

  private Requirement nextSpreadDomain(boolean selfSelecting, Requirement podDomains, Requirement nodeDomains) {
    int min = minCount(podDomains);
    int self = selfSelecting ? 1 : 0;
    String best = null;
    int bestCount = Integer.MAX_VALUE;
    for (String domain : candidates(nodeDomains)) {
      int[] count = counts.get(domain);
      if (count == null || !nodeDomains.has(domain)) {
        continue;
      }
      int skewed = count[0] + self;
      if (skewed - min <= identity.maxSkew() && skewed < bestCount) {
        best = domain;
        bestCount = skewed;
      }
    }
    return best == null ? Requirement.doesNotExist(key()) : Requirement.in(key(), best);
  }

  /** The smallest count over the eligible domains; zero for hostname or when fewer than minDomains are eligible. */
  private int minCount(Requirement podDomains) {
    if (hostname) {
      return 0;
    }
    int min = Integer.MAX_VALUE;
    int eligible = 0;
    for (Map.Entry<String, int[]> entry : counts.entrySet()) {
      String domain = entry.getKey();
      if (podDomains.has(domain) && tolerated(domain)) {
        eligible++;
        min = Math.min(min, entry.getValue()[0]);
      }
    }
    Integer minDomains = identity.minDomains();
    if (eligible == 0 || (minDomains != null && eligible < minDomains)) {
      return 0;
    }
    return min;
  }

  /** With nodeTaintsPolicy Honor, a domain is eligible only if some pool or node providing it is tolerated. */
  private boolean tolerated(String domain) {
    TopologyNodeFilter filter = identity.nodeFilter();
    if (filter.ignoresTaints()) {
      return true;
    }
    List<List<Taint>> taintSets = universe.taints(key(), domain);
    if (taintSets.isEmpty()) {
      return true;
    }
    for (List<Taint> taints : taintSets) {
      if (filter.toleratesTaints(taints)) {
        return true;
      }
    }
    return false;
  }

  private Requirement nextAffinityDomains(boolean selfSelecting, Requirement podDomains, Requirement nodeDomains) {
    List<String> options = new ArrayList<>(2);
    for (String domain : occupied) {
      if (podDomains.has(domain)) {
        options.add(domain);
      }
    }
    if (options.isEmpty() && selfSelecting) {
      // Nothing to be near yet: the pod bootstraps the group, preferably in a domain the node already has.
      String fallback = null;
      for (String domain : candidates(nodeDomains)) {
        if (!counts.containsKey(domain) || !podDomains.has(domain)) {
          continue;
        }
        if (nodeDomains.has(domain)) {
          fallback = domain;
          break;
        }
        if (fallback == null) {
          fallback = domain;
        }
      }
      if (fallback == null) {
        for (String domain : sorted()) {
          if (podDomains.has(domain)) {
            fallback = domain;
            break;
          }
        }
      }
      if (fallback != null) {
        options.add(fallback);
      }
    }
    return options.isEmpty() ? Requirement.doesNotExist(key()) : Requirement.of(key(), Operator.In, options);
  }

  private Requirement nextAntiAffinityDomains(Requirement podDomains, Requirement nodeDomains) {
    if (empty.isEmpty()) {
      return Requirement.doesNotExist(key());
    }
    List<String> options = new ArrayList<>(1);
    for (String domain : candidates(nodeDomains)) {
      int[] count = counts.get(domain);
      if (count != null && count[0] == 0 && podDomains.has(domain) && nodeDomains.has(domain)) {
        options.add(domain);
      }
    }
    return options.isEmpty() ? Requirement.doesNotExist(key()) : Requirement.of(key(), Operator.In, options);
  }

  /** The node's own values when it names them (cheap for hostnames), else every known domain in order. */
  private Iterable<String> candidates(Requirement nodeDomains) {
    if (!nodeDomains.complement() && nodeDomains.gte() == null && nodeDomains.lte() == null) {
      return nodeDomains.values();
    }
    return sorted();
  }

  private List<String> sorted() {
    if (sortedStale) {
      List<String> domains = new ArrayList<>(counts.keySet());
      Collections.sort(domains);
      sortedDomains = domains;
      sortedStale = false;
    }
    return sortedDomains;
  }

  /** Domain counts for error messages, at most {@code limit} entries in domain order. */
  String describeCounts(int limit) {
    StringBuilder s = new StringBuilder("{");
    int shown = 0;
    for (String domain : sorted()) {
      if (shown == limit) {
        s.append(", ...");
        break;
      }
      s.append(shown++ == 0 ? "" : ", ").append(domain).append(": ").append(count(domain));
    }
    return s.append('}').toString();
  }

  @Override
  public String toString() {
    return identity.type() + " on " + identity.key();
  }
}
