package sh.karpenter.core.disruption;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.Deadline;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.PodError;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerCache;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingInput;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.taints.Taint;

/**
 * Simulates a move (upstream {@code SimulateScheduling},
 * docs/behaviour/disruption.md#simulation-rules): the provisioning scheduler places the candidates'
 * pods on the rest of the cluster, as if the candidates were gone.
 *
 * <p>The cluster is every node except the candidates and the nodes already deleting or marked for
 * deletion. The pods placed are the candidates' pods, plus the cluster's pending pods and the pods of
 * the deleting nodes, which take room but need not fit. The move fails when a candidate's pod fits
 * nowhere, or only on an existing node that is not initialized yet. New NodeClaims keep only the
 * candidates' pods (their size still counts the others, which provisioning then places there), and
 * NodeClaims holding none of them are not replacements.
 *
 * <p>In a consolidation simulation, a node inside its NodePool's {@link ConsolidateAfter} window (its
 * last pod event, or its NodeClaim's initialization, less than consolidateAfter ago) receives no
 * candidate pod: the simulation gives it a NoSchedule taint no pod tolerates unless it tolerates
 * everything.
 *
 * <p>All moves simulated by one instance (one decision or one validation) run over the same NodePools,
 * so their scheduling passes share a {@link SchedulerCache}: each template's instance types are prepared
 * once, not once per move. Like the loop that owns it, a simulation is used from one thread.
 */
final class Simulation {
  /** The simulation-only taint that keeps candidate pods off nodes inside their consolidateAfter window. */
  static final String CONSOLIDATE_AFTER_TAINT = "karpenter.sh/consolidate-after-window";

  private static final int MESSAGES_SHOWN = 3;

  private final DisruptionInput input;
  private final List<StateNode> active = new ArrayList<>();
  private final Map<String, ExistingNode> windowed = new HashMap<>();
  private final Map<String, Boolean> initialized = new HashMap<>();
  private final List<Pod> deletingPods = new ArrayList<>();
  private final SchedulerOptions options;
  private Deadline deadline = Deadline.NONE;
  private final SchedulerCache cache = new SchedulerCache();

  Simulation(DisruptionInput input) {
    this(input, false);
  }

  /**
   * @param costRepacking end each pass with the cost post-pass, as provisioning does: only for {@link
   *     RepackConsolidation}, whose moves may launch several nodes. Upstream's methods simulate
   *     without it: a move is judged by the replacement first fit would launch, as upstream (the
   *     post-pass would split it into several cheaper nodes and the move would fail as "2 nodes").
   */
  Simulation(DisruptionInput input, boolean costRepacking) {
    this.input = input;
    this.options =
        input.scheduling().options().withReservedOfferingMode(SchedulerOptions.ReservedOfferingMode.Fallback).withCostRepacking(costRepacking);
    Taint windowTaint = Taint.of(CONSOLIDATE_AFTER_TAINT, Taint.Effect.NoSchedule);
    for (StateNode node : input.nodes()) {
      if (node.deleting() || node.markedForDeletion()) {
        deletingPods.addAll(node.reschedulablePods());
        continue;
      }
      active.add(node);
      initialized.put(node.name(), node.node().initialized());
      if (insideConsolidateAfter(node)) {
        ExistingNode n = node.node();
        List<Taint> taints = new ArrayList<>(n.taints());
        taints.add(windowTaint);
        windowed.put(
            node.name(),
            new ExistingNode(n.name(), n.labels(), taints, n.allocatable(), n.pods(), n.initialized(), n.nodePoolName(), n.volumeLimits()));
      }
    }
  }

  private boolean insideConsolidateAfter(StateNode node) {
    if (!node.managed() || node.nodePoolName() == null) {
      return false;
    }
    PoolPolicy pool = input.pools().get(node.nodePoolName());
    return pool != null && ConsolidateAfter.isUnder(pool.consolidateAfter(), node.lastPodEventAt(), node.initializedAt(), input.now());
  }

  /**
   * The pods a candidate's removal must find a place for: its reschedulable pods, less the pods that
   * block its eviction (a drifted node with a terminationGracePeriod is deleted past them; they are
   * evicted when the grace period ends, not moved now).
   */
  static List<Pod> podsToMove(Candidate candidate) {
    List<PodBlocker> blockers = candidate.state().blockers();
    if (blockers.isEmpty()) {
      return candidate.reschedulablePods();
    }
    Set<String> blocking = new HashSet<>();
    blockers.forEach(b -> blocking.add(b.podKey()));
    List<Pod> pods = new ArrayList<>();
    for (Pod pod : candidate.reschedulablePods()) {
      if (!blocking.contains(pod.key())) {
        pods.add(pod);
      }
    }
    return pods;
  }

  /**
   * Simulates removing {@code candidates}.
   *
   * @param consolidation enforce the consolidateAfter window of destination nodes
   */
  /**
   * Stops each simulation from now on once it passes: a consolidation method sets its own timeout
   * here, as upstream's simulations run under the method's timeout context, so a simulation in
   * progress stops with the method (its untried pods make the move invalid). {@link Deadline#NONE}
   * (the default) for drift and validation, which have no timeout upstream.
   */
  void deadline(Deadline deadline) {
    this.deadline = deadline == null ? Deadline.NONE : deadline;
  }

  Outcome run(List<Candidate> candidates, boolean consolidation) {
    return run(candidates, consolidation, false);
  }

  /**
   * Simulates removing {@code candidates}.
   *
   * @param consolidation enforce the consolidateAfter window of destination nodes
   * @param includeBlocked move the pods that block eviction too (node repair: its replacement is
   *     planned for every reschedulable pod, upstream's {@code IncludeBlockedCandidatePods})
   */
  Outcome run(List<Candidate> candidates, boolean consolidation, boolean includeBlocked) {
    Set<String> removed = new HashSet<>();
    Set<Pod> mustFit = Collections.newSetFromMap(new IdentityHashMap<>());
    List<Pod> pods = new ArrayList<>();
    for (Candidate candidate : candidates) {
      removed.add(candidate.name());
      for (Pod pod : includeBlocked ? candidate.reschedulablePods() : podsToMove(candidate)) {
        if (mustFit.add(pod)) {
          pods.add(pod);
        }
      }
    }
    List<ExistingNode> nodes = new ArrayList<>(active.size());
    for (StateNode node : active) {
      if (removed.contains(node.name())) {
        continue;
      }
      ExistingNode tainted = consolidation ? windowed.get(node.name()) : null;
      nodes.add(tainted != null ? tainted : node.node());
    }
    pods.addAll(input.scheduling().pendingPods());
    pods.addAll(deletingPods);
    SchedulingInput scheduling = input.scheduling();
    SchedulingResult result =
        new Scheduler(
                new SchedulingInput(
                    scheduling.templates(),
                    nodes,
                    pods,
                    scheduling.daemonSetPods(),
                    scheduling.volumes(),
                    options,
                    scheduling.namespaceLabels()),
                cache)
            .solve(deadline);

    List<String> errors = new ArrayList<>();
    for (List<PodError> failures : List.of(result.unschedulable(), result.deferred())) {
      for (PodError error : failures) {
        if (mustFit.contains(error.pod())) {
          errors.add("pod " + error.pod().key() + " has no other place: " + error.reason());
        }
      }
    }
    for (Map.Entry<String, List<Pod>> placement : result.existingNodePlacements().entrySet()) {
      if (!initialized.getOrDefault(placement.getKey(), true) && placement.getValue().stream().anyMatch(mustFit::contains)) {
        errors.add("would schedule pods onto uninitialized node " + placement.getKey());
      }
    }
    List<PlannedNodeClaim> replacements = new ArrayList<>();
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      List<Pod> moved = new ArrayList<>();
      for (Pod pod : claim.pods()) {
        if (mustFit.contains(pod)) {
          moved.add(pod);
        }
      }
      if (!moved.isEmpty()) {
        replacements.add(moved.size() == claim.pods().size() ? claim : claim.withPods(moved));
      }
    }
    return new Outcome(errors, replacements);
  }

  /**
   * A simulated move.
   *
   * @param errors why candidate pods cannot move (empty when they all can)
   * @param replacements the new NodeClaims the candidate pods need
   */
  record Outcome(List<String> errors, List<PlannedNodeClaim> replacements) {
    boolean ok() {
      return errors.isEmpty();
    }

    /** The summed hourly price of the replacements. */
    double replacementPrice() {
      double price = 0;
      for (PlannedNodeClaim replacement : replacements) {
        price += replacement.price();
      }
      return price;
    }

    /** The errors for people: the first few, then how many more. */
    String message() {
      if (errors.size() <= MESSAGES_SHOWN) {
        return String.join("; ", errors);
      }
      return String.join("; ", errors.subList(0, MESSAGES_SHOWN)) + "; and " + (errors.size() - MESSAGES_SHOWN) + " more";
    }
  }
}
