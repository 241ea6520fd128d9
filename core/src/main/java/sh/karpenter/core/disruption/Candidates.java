package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;

/**
 * The nodes that may be disrupted now (docs/behaviour/disruption.md#candidates, upstream {@code
 * GetCandidates} and {@code NewCandidate}), and why the others may not, for people.
 *
 * <p>Managed, initialized nodes that are not deleting or marked for deletion are examined; the rest are
 * skipped silently (nothing a person can do about them). A node that is nominated, carries {@code
 * karpenter.sh/do-not-disrupt}, belongs to a NodePool that cannot be resolved (absent from the
 * policies or the scheduling templates), or holds a blocking pod becomes a {@code DisruptionBlocked}
 * entry. A node held only by blocking pods stays a candidate for drift ("eventual" disruption) when its
 * NodeClaim has a terminationGracePeriod.
 *
 * @param graceful candidates every method may act on
 * @param eventual the graceful candidates plus the drifted nodes with blocking pods and a
 *     terminationGracePeriod
 * @param repair with node repair on, the nodes node repair may look at: managed nodes with a Node,
 *     initialized or not, not deleting or marked for deletion, not nominated unless uninitialized, of a
 *     resolvable NodePool,
 *     whatever their {@code do-not-disrupt} annotation and blocking pods ({@link Repair} filters them)
 * @param blocked why the examined nodes that are not candidates are not
 */
record Candidates(List<Candidate> graceful, List<Candidate> eventual, List<Candidate> repair, List<Blocked> blocked) {
  static final String DISRUPTION_BLOCKED = "DisruptionBlocked";
  static final String UNCONSOLIDATABLE = "Unconsolidatable";

  Candidates {
    graceful = List.copyOf(graceful);
    eventual = List.copyOf(eventual);
    repair = List.copyOf(repair);
    blocked = List.copyOf(blocked);
  }

  static Candidates of(DisruptionInput input) {
    Map<String, NodeClaimTemplate> templates = new HashMap<>();
    for (NodeClaimTemplate template : input.scheduling().templates()) {
      templates.put(template.nodePoolName(), template);
    }
    Map<String, Map<String, InstanceType>> catalogues = new HashMap<>();
    List<Candidate> graceful = new ArrayList<>();
    List<Candidate> eventual = new ArrayList<>();
    List<Candidate> repair = new ArrayList<>();
    List<Blocked> blocked = new ArrayList<>();
    boolean nodeRepair = input.options() != null && input.options().nodeRepair();
    for (StateNode node : input.nodes()) {
      if (!node.managed() || node.deleting() || node.markedForDeletion()) {
        continue;
      }
      // Examined for every method but repair: initialized nodes. Repair also looks at uninitialized
      // nodes that have a Node, and past the node's do-not-disrupt (upstream v1.15); it reports its
      // own vetoes (Repair.eligible).
      boolean examined = node.node().initialized();
      boolean repairable = nodeRepair && node.health() != null;
      if (!examined && !repairable) {
        continue;
      }
      if (node.nominated()) {
        if (examined) {
          blocked.add(blocked(node, DISRUPTION_BLOCKED, "node is nominated for a pending pod"));
        }
        // as upstream, only an uninitialized node is repaired while nominated
        if (!repairable || node.node().initialized()) {
          continue;
        }
        examined = false;
      }
      if (node.doNotDisrupt()) {
        if (examined) {
          blocked.add(blocked(node, DISRUPTION_BLOCKED, "disruption is blocked through the \"" + Annotations.DO_NOT_DISRUPT + "\" annotation"));
        }
        if (!repairable) {
          continue;
        }
        examined = false;
      }
      String poolName = node.nodePoolName();
      PoolPolicy pool = poolName == null ? null : input.pools().get(poolName);
      NodeClaimTemplate template = poolName == null ? null : templates.get(poolName);
      if (pool == null || template == null) {
        if (examined) {
          blocked.add(blocked(node, DISRUPTION_BLOCKED, "nodepool \"" + poolName + "\" can't be resolved for the node"));
        }
        continue;
      }
      Map<String, InstanceType> catalogue =
          catalogues.computeIfAbsent(poolName, k -> byName(template.instanceTypes()));
      InstanceType type = catalogue.get(node.node().labels().get(Labels.INSTANCE_TYPE));
      Offering offering = type == null ? null : type.nodeOffering(node.node().labels());
      Candidate candidate = new Candidate(node, pool, type, offering, Costs.disruptionCost(node, input.now()));
      if (repairable) {
        repair.add(candidate);
      }
      if (!examined) {
        continue;
      }
      if (!node.blockers().isEmpty()) {
        blocked.add(blocked(node, DISRUPTION_BLOCKED, message(node.blockers().getFirst())));
        if (node.drift() != null && node.hasTerminationGracePeriod()) {
          eventual.add(candidate);
        }
        continue;
      }
      graceful.add(candidate);
      eventual.add(candidate);
    }
    return new Candidates(graceful, eventual, repair, blocked);
  }

  /**
   * The blocker's reason as it stands when it names its PDB or its pod (upstream's {@code pdb
   * default/web prevents pod evictions}, {@code pod default/x has "karpenter.sh/do-not-disrupt"
   * annotation}); otherwise attributed to the pod.
   */
  static String message(PodBlocker blocker) {
    if (blocker.reason().startsWith("pdb ") || blocker.reason().contains(blocker.podKey())) {
      return blocker.reason();
    }
    return "disruption is blocked by pod " + blocker.podKey() + ": " + blocker.reason();
  }

  static Blocked blocked(StateNode node, String event, String message) {
    return new Blocked(node.name(), node.nodeClaimName(), event, message);
  }

  private static Map<String, InstanceType> byName(List<InstanceType> types) {
    Map<String, InstanceType> byName = new LinkedHashMap<>();
    for (InstanceType type : types) {
      byName.put(type.name(), type);
    }
    return byName;
  }
}
