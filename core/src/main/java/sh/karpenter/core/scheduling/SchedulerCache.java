package sh.karpenter.core.scheduling;

import java.util.IdentityHashMap;
import java.util.Map;

/**
 * Work shared by repeated scheduling passes over the same NodePools, such as the many simulations of
 * one disruption decision: each template's instance types prepared for filtering (the allocatable and
 * capacity matrices, the launchable types, the DaemonSet overhead groups, and the lookup tables of
 * types fitting a request, matching a requirement or priced under an offering requirement), the
 * NodePool order, the labels a new NodeClaim may leave undefined, and per existing node (the same
 * object again) its labels as requirements and what it has available.
 *
 * <p>A pass reuses what the cache holds when its input has the same templates and DaemonSet pods
 * (the same objects, in the same order) and the same number of resource dimensions as the pass that
 * filled it; otherwise it prepares them afresh and the cache keeps those instead. Only work that
 * depends on the templates, the DaemonSets or one node alone is shared, never the state of a pass
 * (planned NodeClaims, pods placed, limits left, reservations held, topology), so a pass returns
 * exactly what it returns without a cache.
 *
 * <p>Not thread-safe: use one cache from one thread at a time (the disruption loop is single-threaded),
 * and let it go with the inputs it was filled from.
 */
public final class SchedulerCache {
  /** Existing nodes remembered at most; past that the cache starts over (a long-lived cache sees new node objects every pass). */
  static final int MAX_NODES = 50_000;

  private PreparedTemplates prepared;
  /** Per existing node (by identity), what it offers before a pass; valid for {@link #prepared}'s DaemonSets and dimensions. */
  private final Map<ExistingNode, NodeSlot.Basis> nodes = new IdentityHashMap<>();

  /** The prepared templates for a pass over {@code input}: the cached ones when they match, else new ones, kept. */
  PreparedTemplates prepare(SchedulingInput input, int dimensions) {
    PreparedTemplates current = prepared;
    if (current == null || !current.matches(input, dimensions)) {
      current = PreparedTemplates.of(input, dimensions);
      prepared = current;
      nodes.clear();
    }
    return current;
  }

  /** What the node offers before a pass that uses {@code from}, remembered while the DaemonSets and dimensions stay. */
  NodeSlot.Basis node(ExistingNode node, PreparedTemplates from) {
    if (from != prepared) {
      return NodeSlot.Basis.of(node, from.daemons, from.dimensions);
    }
    NodeSlot.Basis basis = nodes.get(node);
    if (basis == null) {
      if (nodes.size() >= MAX_NODES) {
        nodes.clear();
      }
      basis = NodeSlot.Basis.of(node, from.daemons, from.dimensions);
      nodes.put(node, basis);
    }
    return basis;
  }
}
