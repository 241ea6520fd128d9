package sh.karpenter.core.disruption;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.wellknown.Annotations;

/**
 * The one current reason of every managed node a pass leaves alone
 * (docs/behaviour/disruption.md#why-not), from what the pass already knows: the node's own state,
 * the {@link Blocked} entries the methods reported, the Balanced scores, the methods that timed out
 * and the method that acted. It runs no simulation of its own, so explaining costs the decision
 * nothing but a walk over the nodes.
 */
final class LeftAlone {
  private LeftAlone() {}

  /** A reason being considered for one node. */
  private record Found(WhyNot why, String message) {}

  /**
   * @param method the method whose commands ended the pass, or null when none did
   * @param commands its commands; their candidates are disrupted and get no reason
   */
  static List<Undisrupted> of(DisruptionPass pass, Method method, List<Command> commands) {
    Set<String> disrupted = new HashSet<>();
    for (Command command : commands) {
      command.candidates().forEach(c -> disrupted.add(c.nodeClaimName()));
    }
    Map<String, List<Blocked>> blockedByClaim = new HashMap<>();
    for (Blocked blocked : pass.blocked()) {
      if (blocked.nodeClaimName() != null) {
        blockedByClaim.computeIfAbsent(blocked.nodeClaimName(), k -> new ArrayList<>()).add(blocked);
      }
    }
    Map<String, ScoredMove> rejected = new HashMap<>();
    for (ScoredMove move : pass.scores()) {
      if (!move.approved() && move.nodeClaimNames().size() == 1) {
        rejected.put(move.nodeClaimNames().getFirst(), move);
      }
    }
    List<Undisrupted> result = new ArrayList<>();
    for (StateNode node : pass.input.nodes()) {
      if (!node.managed() || disrupted.contains(node.nodeClaimName())) {
        continue;
      }
      Found best = ownState(node, pass.input);
      for (Blocked blocked : blockedByClaim.getOrDefault(node.nodeClaimName(), List.of())) {
        if (blocked.why().outranks(best == null ? null : best.why())) {
          best = new Found(blocked.why(), blocked.message());
        }
      }
      ScoredMove move = rejected.get(node.nodeClaimName());
      if (move != null && WhyNot.BALANCED_SCORE.outranks(best == null ? null : best.why())) {
        best = new Found(WhyNot.BALANCED_SCORE, String.format(Locale.ROOT,
            "consolidation score %.2f is below %.2f (Balanced policy of nodepool %s)", move.score(), ScoredMove.THRESHOLD, move.nodePoolName()));
      }
      if (best == null) {
        best = notEvaluated(pass, method);
      }
      result.add(new Undisrupted(node.name(), node.nodeClaimName(), node.nodePoolName(), best.why(), best.message()));
    }
    return result;
  }

  /** The most important reason the node's own state and its NodePool's policy give, or null. */
  private static Found ownState(StateNode node, DisruptionInput input) {
    if (node.deleting()) {
      return new Found(WhyNot.BEING_DELETED, "node is being deleted");
    }
    if (node.markedForDeletion()) {
      return new Found(WhyNot.BEING_DELETED, "node is being disrupted by an earlier command");
    }
    if (!node.node().initialized()) {
      return new Found(WhyNot.NOT_INITIALIZED, "nodeclaim " + node.nodeClaimName() + " is not initialized");
    }
    if (node.nominated()) {
      return new Found(WhyNot.NOMINATED, "node is nominated for a pending pod");
    }
    if (node.doNotDisrupt()) {
      return new Found(WhyNot.DO_NOT_DISRUPT, "node has the \"" + Annotations.DO_NOT_DISRUPT + "\" annotation");
    }
    Found pod = null;
    for (PodBlocker blocker : node.blockers()) {
      boolean annotated = blocker.reason().contains(Annotations.DO_NOT_DISRUPT);
      WhyNot why = annotated ? WhyNot.DO_NOT_DISRUPT : WhyNot.PDB;
      if (pod == null || why.outranks(pod.why())) {
        String message = annotated || blocker.reason().contains(blocker.podKey())
            ? blocker.reason()
            : blocker.reason() + " of pod " + blocker.podKey();
        pod = new Found(why, message);
      }
    }
    if (pod != null) {
      return pod;
    }
    PoolPolicy pool = node.nodePoolName() == null ? null : input.pools().get(node.nodePoolName());
    if (pool == null || node.drift() != null) {
      return null; // drift does not go by the consolidation policy; an unresolvable pool is reported by Candidates
    }
    if (!pool.consolidationEnabled()) {
      return new Found(WhyNot.POLICY, "nodepool " + pool.nodePoolName() + " has consolidateAfter: Never");
    }
    boolean empty = Costs.isEmpty(node.reschedulablePods());
    if (!empty && pool.policy() == ConsolidationPolicy.WHEN_EMPTY) {
      return new Found(WhyNot.POLICY, "nodepool " + pool.nodePoolName() + " has consolidationPolicy: WhenEmpty and the node is not empty");
    }
    if (!node.consolidatable()) {
      Instant end = ConsolidateAfter.endsAt(pool.consolidateAfter(), node.lastPodEventAt(), node.initializedAt());
      return new Found(WhyNot.WITHIN_CONSOLIDATE_AFTER, "within consolidateAfter " + pool.consolidateAfter()
          .toString().substring(2).toLowerCase(Locale.ROOT) + " of nodepool " + pool.nodePoolName()
          + (end == null ? "" : ", consolidatable from " + end));
    }
    return null;
  }

  /** Why no method said anything about the node. */
  private static Found notEvaluated(DisruptionPass pass, Method method) {
    if (method != null) {
      return new Found(WhyNot.NOT_EVALUATED,
          "not evaluated: the pass ended with a " + method.label() + " command for other nodes (one method acts per pass)");
    }
    if (!pass.timedOut().isEmpty()) {
      return new Found(WhyNot.NOT_EVALUATED, "not evaluated: " + pass.timedOut().stream().map(Method::label).sorted().toList()
          + " timed out before reaching the node");
    }
    return new Found(WhyNot.OTHER, "no disruption method applies to the node");
  }
}
