package sh.karpenter.core.topology;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.taints.Taint;

/**
 * The universe of topology domains per key: the values a NodePool can launch into (its
 * requirements and labels intersected with each instance type's requirements, plus the pool's own
 * {@code In} values) and the labels of existing nodes. Each domain remembers the taint sets of the
 * pools and nodes that provide it, so spread constraints with {@code nodeTaintsPolicy: Honor} can
 * leave out domains only reachable through untolerated taints.
 */
public final class TopologyDomains {
  private final Map<String, TreeSet<String>> domains = new HashMap<>();
  private final Map<String, Map<String, List<List<Taint>>>> taints = new HashMap<>();
  private final Set<String> keys;

  /** @param keys the topology keys worth tracking (those some pod's constraints use) */
  public TopologyDomains(Set<String> keys) {
    this.keys = Set.copyOf(keys);
  }

  /**
   * Adds the domains a NodePool can provide.
   *
   * @param requirements the pool's requirements merged with its template labels
   */
  public TopologyDomains addNodePool(Requirements requirements, List<Taint> poolTaints, List<InstanceType> instanceTypes) {
    for (String key : keys) {
      Requirement pool = requirements.get(key);
      if (requirements.has(key) && !pool.complement()) {
        for (String value : pool.values()) {
          add(key, value, poolTaints);
        }
      }
      for (InstanceType type : instanceTypes) {
        Requirement offered = type.requirements().has(key) ? pool.intersection(type.requirements().get(key)) : pool;
        if (!offered.complement()) {
          for (String value : offered.values()) {
            add(key, value, poolTaints);
          }
        }
      }
    }
    return this;
  }

  /** Adds the domains of an existing node. */
  public TopologyDomains addNode(Map<String, String> labels, List<Taint> nodeTaints) {
    for (String key : keys) {
      String value = labels.get(key);
      if (value != null) {
        add(key, value, nodeTaints);
      }
    }
    return this;
  }

  private void add(String key, String value, List<Taint> domainTaints) {
    domains.computeIfAbsent(key, k -> new TreeSet<>()).add(value);
    List<List<Taint>> sets = taints.computeIfAbsent(key, k -> new HashMap<>()).computeIfAbsent(value, v -> new ArrayList<>(1));
    if (!sets.contains(domainTaints)) {
      sets.add(List.copyOf(domainTaints));
    }
  }

  /** The known domains of a key, sorted. */
  public Set<String> domains(String key) {
    TreeSet<String> values = domains.get(key);
    return values == null ? Set.of() : values;
  }

  /** The taint sets through which a domain can be reached (empty for unknown domains). */
  public List<List<Taint>> taints(String key, String domain) {
    Map<String, List<List<Taint>>> byDomain = taints.get(key);
    if (byDomain == null) {
      return List.of();
    }
    return byDomain.getOrDefault(domain, List.of());
  }
}
