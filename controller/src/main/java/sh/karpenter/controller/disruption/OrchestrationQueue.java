package sh.karpenter.controller.disruption;

import io.fabric8.kubernetes.api.model.Node;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.core.disruption.Candidate;
import sh.karpenter.core.disruption.Command;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/**
 * The orchestration queue (upstream disruption/queue.go,
 * docs/behaviour/disruption.md#orchestration-queue): carries out disruption commands without
 * blocking the disruption loop.
 *
 * <p>{@link #start} runs on the disruption loop, so the next decision already sees the command: it
 * taints each candidate's Node {@code karpenter.sh/disrupted:NoSchedule} and sets the {@code
 * DisruptionReason} condition on its NodeClaim, creates the replacement NodeClaims, and only then
 * marks the candidates for deletion in cluster state (marking first would make provisioning launch
 * capacity for their pods a second time). {@link #reconcile} (the {@code disruption.queue} loop) waits
 * for every replacement to be Initialized and then deletes the candidate NodeClaims; their
 * termination drains the Nodes. A replacement that disappears, or a command still waiting after
 * {@code clamp(80ms × commands, 10 min, 1 h)}, fails the command: the taint and the condition come
 * off, the mark is lifted, and {@code karpenter_voluntary_disruption_queue_failures_total} counts it.
 *
 * <p>Candidates of a command in the queue are {@linkplain #holds held}; disruption does not choose
 * them again.
 */
public final class OrchestrationQueue {
  /** The loop's name (metrics, logs), as upstream. */
  public static final String NAME = "disruption.queue";
  /** How often a waiting command looks at its replacements again (upstream's queue base delay). */
  static final Duration POLL = Duration.ofSeconds(1);
  static final Duration PER_COMMAND = Duration.ofMillis(80);
  static final Duration MIN_TIMEOUT = Duration.ofMinutes(10);
  static final Duration MAX_TIMEOUT = Duration.ofHours(1);

  private static final Logger LOG = LoggerFactory.getLogger(OrchestrationQueue.class);

  /** A candidate as the queue acts on it. */
  private record Target(Candidate candidate, String providerId) {
    String nodeName() {
      return candidate.name();
    }

    String nodeClaimName() {
      return candidate.nodeClaimName();
    }
  }

  /** Where a command stands after a look: still waiting, done, or failed (and why). */
  private record Outcome(boolean done, String failure) {
    static final Outcome WAITING = new Outcome(false, null);
    static final Outcome DONE = new Outcome(true, null);

    static Outcome failed(String why) {
      return new Outcome(false, why);
    }
  }

  /** One command being carried out. */
  private static final class Execution {
    final Command command;
    final Instant started;
    final List<Target> targets;
    final List<String> replacements = new ArrayList<>();
    final Set<String> initialized = new HashSet<>();
    final Set<String> deleted = new HashSet<>();

    Execution(Command command, Instant started, List<Target> targets) {
      this.command = command;
      this.started = started;
      this.targets = targets;
    }

    boolean holds(String nodeClaimName) {
      return targets.stream().anyMatch(t -> t.nodeClaimName().equals(nodeClaimName));
    }
  }

  private final DisruptionActions actions;
  private final ClusterState state;
  private final DisruptionEvents events;
  private final Metrics metrics;
  private final Clock clock;
  private final List<Execution> executions = new ArrayList<>();

  public OrchestrationQueue(DisruptionActions actions, ClusterState state, EventRecorder recorder, Metrics metrics, Clock clock) {
    this.actions = actions;
    this.state = state;
    this.events = new DisruptionEvents(recorder);
    this.metrics = metrics;
    this.clock = clock;
  }

  /** Upstream's command timeout: 80ms per command in the queue, at least 10 minutes, at most an hour. */
  static Duration timeout(int commands) {
    Duration timeout = PER_COMMAND.multipliedBy(commands);
    return timeout.compareTo(MIN_TIMEOUT) < 0 ? MIN_TIMEOUT : timeout.compareTo(MAX_TIMEOUT) > 0 ? MAX_TIMEOUT : timeout;
  }

  /** True while a command in the queue has this NodeClaim among its candidates. */
  public synchronized boolean holds(String nodeClaimName) {
    return executions.stream().anyMatch(e -> e.holds(nodeClaimName));
  }

  /** The commands being carried out. */
  public synchronized int size() {
    return executions.size();
  }

  /**
   * Starts a command: marks the candidates disrupted, creates the replacements, marks the candidates
   * for deletion and keeps the command until {@link #reconcile} completes it. Returns false, with
   * whatever was done undone, when a candidate is already held, a candidate cannot be marked (and
   * the command launches replacements, or no candidate could be marked), or a replacement cannot be
   * created.
   */
  public synchronized boolean start(Command command) {
    for (Candidate candidate : command.candidates()) {
      if (holds(candidate.nodeClaimName())) {
        LOG.atInfo().setMessage("not starting a disruption command: a candidate is already being disrupted")
            .addKeyValue("method", command.method().label()).addKeyValue("NodeClaim", LogValues.ref(candidate.nodeClaimName())).log();
        return false;
      }
    }
    LOG.atInfo().setMessage("disrupting node(s)").addKeyValue("method", command.method().label()).addKeyValue("decision", command.decision())
        .addKeyValue("reason", command.reason().metricLabel())
        .addKeyValue("disrupted-node-count", command.candidates().size())
        .addKeyValue("NodeClaims", command.candidates().stream().map(c -> LogValues.ref(c.nodeClaimName())).toList())
        .addKeyValue("replacement-node-count", command.replacements().size()).addKeyValue("savings", command.savings())
        .addKeyValue("payback", command.payback() == null ? null : command.payback().describe()).log();

    List<Target> marked = new ArrayList<>();
    boolean markingFailed = false;
    for (Candidate candidate : command.candidates()) {
      try {
        String providerId = actions.nodeClaim(candidate.nodeClaimName()).map(Metadata::providerId).orElse("");
        actions.markDisrupted(candidate.name(), candidate.nodeClaimName(), command.reason());
        marked.add(new Target(candidate, providerId));
      } catch (RuntimeException e) {
        markingFailed = true;
        LOG.warn("marking {} disrupted failed: {}", candidate.nodeClaimName(), e.toString());
      }
    }
    // As upstream: a delete may go on with the candidates that could be marked; a replace may not.
    if (markingFailed && (!command.replacements().isEmpty() || marked.isEmpty())) {
      rollBack(command, marked, "marking the candidates disrupted failed");
      return false;
    }

    Execution execution = new Execution(command, clock.instant(), List.copyOf(marked));
    for (PlannedNodeClaim plan : command.replacements()) {
      NodeClaim created;
      try {
        created = actions.create(plan);
      } catch (RuntimeException e) {
        LOG.warn("launching a replacement NodeClaim of NodePool {} failed: {}", plan.nodePoolName(), e.toString());
        rollBack(command, marked, "launching a replacement failed");
        return false;
      }
      execution.replacements.add(created.getMetadata().getName());
      state.nodeClaimCreated(created);
      metrics.nodeClaimCreated(plan.nodePoolName(), command.reason().metricLabel(), plan.minValuesRelaxed());
    }
    executions.add(execution);
    // Only now: marked earlier, provisioning would launch capacity for the candidates' pods as well.
    state.markForDeletion(providerIds(marked));
    metrics.disruption().decision(command.decision(), command.reason().metricLabel(), command.method().consolidationType());
    command.candidates().stream().map(c -> c.nodePoolName()).distinct().forEach(pool ->
        metrics.disruption().decisionByNodePool(pool, command.decision(), command.reason().metricLabel(), command.method().consolidationType()));
    return true;
  }

  /**
   * The {@code disruption.queue} loop body: moves every command on (replacements Initialized →
   * candidates deleted), failing the ones whose replacement is gone or that timed out.
   */
  public synchronized Result reconcile() {
    Instant now = clock.instant();
    Duration timeout = timeout(executions.size());
    for (Iterator<Execution> it = executions.iterator(); it.hasNext(); ) {
      Execution execution = it.next();
      Outcome outcome;
      try {
        outcome = advance(execution, now, timeout);
      } catch (RuntimeException e) {
        LOG.warn("disruption command {} could not move on, retrying: {}", execution.command.method().label(), e.toString());
        outcome = waitOrTimeOut(execution, now, timeout);
      }
      if (outcome.done()) {
        it.remove();
      } else if (outcome.failure() != null) {
        it.remove();
        rollBack(execution.command, execution.targets.stream().filter(t -> !execution.deleted.contains(t.nodeClaimName())).toList(),
            outcome.failure());
      }
    }
    return Result.requeueAfter(POLL);
  }

  /** One look at a command: replacements first, then the candidates' deletion. */
  private Outcome advance(Execution execution, Instant now, Duration timeout) {
    Command command = execution.command;
    boolean waiting = false;
    for (String name : execution.replacements) {
      if (execution.initialized.contains(name)) {
        continue;
      }
      Optional<NodeClaim> replacement = actions.nodeClaim(name);
      if (replacement.isEmpty() || Metadata.deleting(replacement.get())) {
        return Outcome.failed("replacement NodeClaim " + name + " was deleted");
      }
      events.launching(replacement.get(), command.reason());
      if (Conditions.isTrue(replacement.get().getStatus() == null ? null : replacement.get().getStatus().getConditions(),
          ConditionTypes.INITIALIZED)) {
        execution.initialized.add(name);
      } else {
        events.waitingOnReadiness(replacement.get());
        waiting = true;
      }
    }
    if (waiting) {
      return waitOrTimeOut(execution, now, timeout);
    }
    for (Target target : execution.targets) {
      if (execution.deleted.contains(target.nodeClaimName())) {
        continue;
      }
      Optional<NodeClaim> claim = actions.nodeClaim(target.nodeClaimName());
      Optional<Node> node = actions.node(target.nodeName());
      try {
        actions.delete(target.nodeClaimName());
      } catch (RuntimeException e) {
        LOG.warn("deleting candidate NodeClaim {} failed: {}", target.nodeClaimName(), e.toString());
        waiting = true;
        continue;
      }
      execution.deleted.add(target.nodeClaimName());
      DisruptionLabels labels = disruptionLabels(command, target.candidate(), claim);
      metrics.nodeClaimDisrupted(labels);
      metrics.disruption().podsDisruptionInitiated(labels, target.candidate().reschedulablePods().size());
      if (command.repairCondition() != null) {
        String imageId = claim.map(c -> c.getStatus() == null ? null : c.getStatus().getImageID()).orElse("");
        metrics.repair().unhealthyDisrupted(command.repairCondition(), labels.nodePool(), labels.capacityType(), imageId, labels.terminationMode());
      }
      events.terminating(node.orElse(null), claim.orElse(null), command.reason());
    }
    if (waiting) {
      return waitOrTimeOut(execution, now, timeout);
    }
    LOG.atInfo().setMessage("disruption command succeeded").addKeyValue("method", command.method().label())
        .addKeyValue("NodeClaims", execution.targets.stream().map(t -> LogValues.ref(t.nodeClaimName())).toList())
        .addKeyValue("replacements", execution.replacements).log();
    return Outcome.DONE;
  }

  /**
   * The labels of a disrupted candidate's metrics (upstream's {@code recordCandidateDisrupted}): the
   * NodePool's consolidation policy only when consolidation (emptiness included) disrupts it, not drift;
   * the termination mode from the NodeClaim's {@code terminationGracePeriod}.
   */
  static DisruptionLabels disruptionLabels(Command command, Candidate candidate, Optional<NodeClaim> claim) {
    String capacityType = claim.map(NodeClaims::capacityType).filter(c -> !c.isEmpty())
        .orElse(candidate.capacityType() == null ? "" : candidate.capacityType());
    String consolidationPolicy = command.method().consolidationType().isEmpty() || candidate.pool() == null
        ? ""
        : candidate.pool().policy().metricLabel();
    String terminationMode = claim.map(DisruptionLabels::terminationMode)
        .orElse(candidate.state().hasTerminationGracePeriod() ? DisruptionLabels.EVENTUAL : DisruptionLabels.GRACEFUL);
    return new DisruptionLabels(command.reason().metricLabel(), candidate.nodePoolName(), capacityType, consolidationPolicy, terminationMode);
  }

  /** A command that is not done waits on, unless it has been waiting longer than the timeout. */
  private static Outcome waitOrTimeOut(Execution execution, Instant now, Duration timeout) {
    Duration waited = Duration.between(execution.started, now);
    return waited.compareTo(timeout) > 0 ? Outcome.failed("command reached timeout after " + waited) : Outcome.WAITING;
  }

  /** Undoes a command for these candidates: taint and condition removed, mark lifted, failure counted. */
  private void rollBack(Command command, List<Target> targets, String why) {
    LOG.atWarn().setMessage("disruption command failed, rolling back").addKeyValue("method", command.method().label())
        .addKeyValue("NodeClaims", targets.stream().map(t -> LogValues.ref(t.nodeClaimName())).toList()).addKeyValue("error", why).log();
    for (Target target : targets) {
      try {
        actions.unmarkDisrupted(target.nodeName(), target.nodeClaimName());
      } catch (RuntimeException e) {
        // The disruption loop removes a disrupted taint left on a node no command holds.
        LOG.warn("removing the disruption marks of {} failed: {}", target.nodeClaimName(), e.toString());
      }
    }
    state.unmarkForDeletion(providerIds(targets));
    metrics.disruption().queueFailure(command.decision(), command.reason().metricLabel(), command.method().consolidationType());
  }

  private static List<String> providerIds(List<Target> targets) {
    return targets.stream().map(Target::providerId).filter(id -> !id.isEmpty()).toList();
  }
}
