package sh.karpenter.controller.disruption;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.controller.state.DisruptionView;
import sh.karpenter.core.cloudprovider.RepairPolicy;
import sh.karpenter.core.disruption.Blocked;
import sh.karpenter.core.disruption.Budgets;
import sh.karpenter.core.disruption.Command;
import sh.karpenter.core.disruption.Decision;
import sh.karpenter.core.disruption.Disruption;
import sh.karpenter.core.disruption.DisruptionInput;
import sh.karpenter.core.disruption.DisruptionOptions;
import sh.karpenter.core.disruption.Method;
import sh.karpenter.core.disruption.ScoredMove;
import sh.karpenter.core.disruption.Validation;
import sh.karpenter.core.scheduling.SchedulerOptions;

/**
 * The {@code disruption} singleton (upstream disruption/controller.go,
 * docs/behaviour/disruption.md#the-disruption-loop): every 10 seconds, once cluster state is
 * synced, it asks core's {@link Disruption#decide} for the commands of the first method (Repair, with
 * the {@code NodeRepair} gate on and the provider's repair policies → Emptiness → StaticDrift → Drift →
 * MultiNodeConsolidation → SingleNodeConsolidation) that produces any,
 * reports what it found (eligible nodes, allowed disruptions, Balanced scores, {@code
 * Unconsolidatable}, {@code DisruptionBlocked} and {@code NodeRepairBlocked} events) and hands the commands to the {@link
 * OrchestrationQueue}. Each decision also keeps the managed NodeClaims' {@code WhyNotDisrupted}
 * condition current ({@link WhyNotConditions}, docs/behaviour/disruption.md#why-not).
 *
 * <p>Emptiness and consolidation commands are validated first: the loop keeps them for the 15 s
 * {@code commandValidationDelay} (requeueing, never sleeping), then re-checks them against fresh
 * cluster state with {@link Disruption#validate}; a command that no longer holds is dropped and
 * counted in {@code karpenter_voluntary_disruption_failed_validations_total}. Drift and repair
 * commands go to the queue at once.
 *
 * <p>In {@linkplain Options#disruptionShadowMode() shadow mode} (docs/behaviour/disruption.md#shadow-mode)
 * the voluntary methods' commands are decided and validated as usual, then reported instead of
 * queued: a {@code DisruptionShadow} event on each candidate's Node and NodeClaim, a log line, and
 * {@code karpenter_voluntary_disruption_shadow_decisions_total}. Repair commands still go to the
 * queue.
 *
 * <p>Every pass that reads cluster state also hands its snapshot to {@link NodePoolCosts}, which
 * exports the NodePool cost-gap metrics off this thread.
 *
 * <p>Every loop that reads cluster state also removes the {@code karpenter.sh/disrupted} taint and the {@code
 * DisruptionReason} condition from managed nodes that no command holds and that are not being
 * deleted: the leftovers of a crashed predecessor, which would otherwise stay cordoned forever.
 */
public final class DisruptionController {
  /** The loop's name (metrics, logs), as upstream. */
  public static final String NAME = "disruption";
  /** How often the loop looks for disruptions when the last look found none. */
  static final Duration POLL = Duration.ofSeconds(10);
  static final Duration UNSYNCED_REQUEUE = Duration.ofSeconds(1);
  /** Upstream's {@code commandValidationDelay}. */
  static final Duration VALIDATION_DELAY = Duration.ofSeconds(15);
  /** The feature gate that turns node repair on (off by default, as upstream). */
  static final String NODE_REPAIR_GATE = "NodeRepair";
  /** The methods whose commands are validated again after the delay. */
  static final Set<Method> VALIDATED =
      EnumSet.of(Method.EMPTINESS, Method.MULTI_NODE_CONSOLIDATION, Method.SINGLE_NODE_CONSOLIDATION, Method.REPACK_CONSOLIDATION);

  private static final Logger LOG = LoggerFactory.getLogger(DisruptionController.class);

  /** Core's decision and validation ({@link Disruption}); tests substitute their own. */
  interface Decider {
    Decision decide(DisruptionInput input);

    Validation validate(Command command, DisruptionInput fresh);
  }

  private final BooleanSupplier synced;
  private final Supplier<DisruptionView> views;
  private final Decider decider;
  private final OrchestrationQueue queue;
  private final DisruptionActions actions;
  private final DisruptionEvents events;
  private final Metrics metrics;
  private final Clock clock;
  private final SchedulerOptions scheduler;
  private final DisruptionOptions disruptionOptions;
  private final boolean shadowMode;
  private final NodePoolCosts costs;
  private final WhyNotConditions whyNot;

  private List<Command> awaitingValidation = List.of();
  private Instant validateAt;

  /**
   * @param repairPolicies the cloud provider's repair policies: node repair runs when the {@code
   *     NodeRepair} feature gate is on and there are some
   */
  public DisruptionController(
      ClusterState state, OrchestrationQueue queue, DisruptionActions actions, EventRecorder recorder, Metrics metrics, Clock clock,
      Options options, List<RepairPolicy> repairPolicies, NodePoolCosts costs) {
    this(state::synced, state::disruptionView, new Decider() {
      @Override
      public Decision decide(DisruptionInput input) {
        return Disruption.decide(input);
      }

      @Override
      public Validation validate(Command command, DisruptionInput fresh) {
        return Disruption.validate(command, fresh);
      }
    }, queue, actions, recorder, metrics, clock, options, repairPolicies, costs);
  }

  DisruptionController(
      BooleanSupplier synced, Supplier<DisruptionView> views, Decider decider, OrchestrationQueue queue, DisruptionActions actions,
      EventRecorder recorder, Metrics metrics, Clock clock, Options options, List<RepairPolicy> repairPolicies, NodePoolCosts costs) {
    this.synced = synced;
    this.views = views;
    this.decider = decider;
    this.queue = queue;
    this.actions = actions;
    this.events = new DisruptionEvents(recorder);
    this.metrics = metrics;
    this.clock = clock;
    this.scheduler = options.scheduler();
    this.shadowMode = options.disruptionShadowMode();
    this.costs = costs;
    this.whyNot = new WhyNotConditions(actions);
    if (shadowMode) {
      LOG.info("disruption shadow mode is on: voluntary disruption reports what it would do and acts on nothing");
    }
    boolean nodeRepair = options.featureGates().getOrDefault(NODE_REPAIR_GATE, false);
    if (nodeRepair && repairPolicies.isEmpty()) {
      LOG.warn("node repair is enabled but the cloud provider defines no repair policies; it does not run");
    }
    this.disruptionOptions =
        DisruptionOptions.defaults(clock).withSpotToSpotConsolidation(options.featureGates().getOrDefault("SpotToSpotConsolidation", false))
            .withRepairPolicies(nodeRepair ? repairPolicies : List.of())
            .withRepackConsolidation(options.repackConsolidation(), options.paybackHorizon());
  }

  /**
   * The loop body: validates the commands waiting for it once their delay is over, else decides.
   * Returns at once after handing commands to the queue (another method may act next), after the
   * remaining delay while commands wait for validation, else after {@link #POLL}.
   */
  public Result reconcile() {
    if (!synced.getAsBoolean()) {
      LOG.debug("waiting on cluster sync");
      return Result.requeueAfter(UNSYNCED_REQUEUE);
    }
    Instant now = clock.instant();
    if (!awaitingValidation.isEmpty() && now.isBefore(validateAt)) {
      return Result.requeueAfter(Duration.between(now, validateAt));
    }
    DisruptionView view = views.get();
    costs.observe(view.scheduling().cluster());
    removeStaleMarks(view);
    if (!awaitingValidation.isEmpty()) {
      List<Command> commands = awaitingValidation;
      awaitingValidation = List.of();
      DisruptionInput fresh = input(view, now);
      List<Command> valid = new ArrayList<>();
      for (Command command : commands) {
        Validation validation = decider.validate(command, fresh);
        if (validation.valid()) {
          valid.add(command);
        } else {
          LOG.atInfo().setMessage("abandoning a disruption command after validation").addKeyValue("method", command.method().label())
              .addKeyValue("reason", validation.reason()).log();
          metrics.disruption().failedValidation(command.method().consolidationType());
        }
      }
      return valid.isEmpty() ? Result.requeueAfter(Duration.ZERO) : carryOut(valid, view);
    }

    Decision decision = decide(view, now);
    if (decision.isEmpty()) {
      return Result.requeueAfter(POLL);
    }
    if (VALIDATED.contains(decision.method())) {
      awaitingValidation = decision.commands();
      validateAt = now.plus(VALIDATION_DELAY);
      return Result.requeueAfter(VALIDATION_DELAY);
    }
    return carryOut(decision.commands(), view);
  }

  /**
   * Hands the commands to the queue and returns at once (another method may act next); in shadow mode
   * reports the voluntary ones instead, and when nothing went to the queue waits {@link #POLL} rather
   * than deciding the same commands again at once.
   */
  private Result carryOut(List<Command> commands, DisruptionView view) {
    boolean queued = false;
    Map<String, DisruptionView.NodeView> byNodeClaim = null;
    for (Command command : commands) {
      if (!shadowMode || command.method() == Method.REPAIR) {
        queue.start(command);
        queued = true;
        continue;
      }
      metrics.disruption().shadowDecision(command.decision(), command.reason().metricLabel(), command.method().consolidationType());
      LOG.atInfo().setMessage("shadow mode: would disrupt node(s)").addKeyValue("method", command.method().label())
          .addKeyValue("decision", command.decision()).addKeyValue("reason", command.reason().metricLabel())
          .addKeyValue("NodeClaims", command.candidates().stream().map(c -> LogValues.ref(c.nodeClaimName())).toList())
          .addKeyValue("replacement-node-count", command.replacements().size()).addKeyValue("savings", command.savings())
          .addKeyValue("payback", command.payback() == null ? null : command.payback().describe()).log();
      if (byNodeClaim == null) {
        byNodeClaim = byNodeClaim(view);
      }
      for (var candidate : command.candidates()) {
        DisruptionView.NodeView node = byNodeClaim.get(candidate.nodeClaimName());
        if (node != null) {
          events.shadow(node.object(), node.nodeClaim(), command);
        }
      }
    }
    return Result.requeueAfter(queued ? Duration.ZERO : POLL);
  }

  /** The view's nodes that have a NodeClaim, by the NodeClaim's name. */
  private static Map<String, DisruptionView.NodeView> byNodeClaim(DisruptionView view) {
    Map<String, DisruptionView.NodeView> byNodeClaim = new HashMap<>();
    for (DisruptionView.NodeView node : view.nodes()) {
      if (node.nodeClaim() != null) {
        byNodeClaim.put(node.nodeClaim().getMetadata().getName(), node);
      }
    }
    return byNodeClaim;
  }

  private DisruptionInput input(DisruptionView view, Instant now) {
    return DisruptionInputs.of(view, queue::holds, scheduler, now, disruptionOptions);
  }

  /** One decision, with its metrics and events. */
  private Decision decide(DisruptionView view, Instant now) {
    DisruptionInput input = input(view, now);
    Instant start = clock.instant();
    Decision decision = decider.decide(input);
    Duration took = Duration.between(start, clock.instant());
    var disruption = metrics.disruption();
    if (decision.method() != null) {
      disruption.decisionEvaluated(decision.method().label(), decision.method().consolidationType(), took);
    }
    decision.timedOut().forEach(method -> disruption.consolidationTimeout(method.consolidationType()));
    // per reason some method disrupts for (Unhealthy only with node repair on), as upstream sets them
    decision.eligibleNodes().forEach((reason, eligible) -> disruption.eligibleNodes(reason.metricLabel(), eligible));
    decision.allowedDisruptions().forEach((pool, byReason) ->
        byReason.forEach((reason, allowed) -> disruption.allowedDisruptions(pool, reason.metricLabel(), allowed)));
    Budgets.consuming(input).forEach((pool, byReason) ->
        byReason.forEach((reason, nodes) -> disruption.nodesConsumingBudgets(pool, reason.metricLabel(), nodes)));
    decision.moves().forEach(move -> disruption.consolidationMove(move.nodePoolName(), move.policy().apiName(), move.approved()));

    Map<String, DisruptionView.NodeView> byNode = new HashMap<>();
    for (DisruptionView.NodeView node : view.nodes()) {
      byNode.put(node.name(), node);
    }
    Map<String, DisruptionView.NodeView> byNodeClaim = byNodeClaim(view);
    for (Blocked blocked : decision.blocked()) {
      DisruptionView.NodeView node = blocked.nodeName() != null ? byNode.get(blocked.nodeName()) : byNodeClaim.get(blocked.nodeClaimName());
      if (node != null) {
        String poolName = node.node().nodePoolName();
        events.blocked(node.object(), node.nodeClaim(), poolName == null ? null : view.nodePools().get(poolName), blocked);
        if (Blocked.NODE_REPAIR_BLOCKED.equals(blocked.event())) {
          LOG.atWarn().setMessage("node repair blocked").addKeyValue("Node", LogValues.ref(node.name()))
              .addKeyValue("NodePool", LogValues.ref(poolName)).addKeyValue("reason", blocked.message()).log();
        }
      }
    }
    for (ScoredMove move : decision.scores()) {
      disruption.consolidationScore(move.nodePoolName(), move.approved(), move.score());
      for (String claim : move.nodeClaimNames()) {
        DisruptionView.NodeView node = byNodeClaim.get(claim);
        if (node != null) {
          events.scored(node.object(), node.nodeClaim(), move, ScoredMove.THRESHOLD);
        }
      }
    }
    whyNot.publish(view, decision, shadowMode);
    if (decision.method() == Method.REPAIR) {
      for (Command command : decision.commands()) {
        for (var candidate : command.candidates()) {
          LOG.atInfo().setMessage("selected repair policy").addKeyValue("Node", LogValues.ref(candidate.name()))
              .addKeyValue("condition", command.repairCondition()).log();
        }
      }
    }
    if (!decision.isEmpty()) {
      LOG.atInfo().setMessage("disruption decided").addKeyValue("method", decision.method().label())
          .addKeyValue("commands", decision.commands().size())
          .addKeyValue("payback", decision.commands().stream().filter(c -> c.payback() != null).map(c -> c.payback().describe()).toList()).log();
    }
    return decision;
  }

  /**
   * Removes the disrupted taint and the {@code DisruptionReason} condition from managed nodes that no
   * command holds and that are neither marked for deletion nor being deleted (upstream does this at
   * the start of every loop).
   */
  private void removeStaleMarks(DisruptionView view) {
    for (DisruptionView.NodeView node : view.nodes()) {
      NodeClaim claim = node.nodeClaim();
      Node object = node.object();
      if (object == null || claim == null || node.markedForDeletion() || Metadata.deleting(object) || Metadata.deleting(claim)
          || queue.holds(claim.getMetadata().getName())) {
        continue;
      }
      List<Condition> conditions = claim.getStatus() == null ? null : claim.getStatus().getConditions();
      if (!KubernetesDisruptionActions.hasDisruptedTaint(object) && Conditions.get(conditions, ConditionTypes.DISRUPTION_REASON).isEmpty()) {
        continue;
      }
      try {
        LOG.atInfo().setMessage("removing a stale disruption mark").addKeyValue("Node", LogValues.ref(node.name()))
            .addKeyValue("NodeClaim", LogValues.ref(claim.getMetadata().getName())).log();
        actions.unmarkDisrupted(node.name(), claim.getMetadata().getName());
      } catch (RuntimeException e) {
        LOG.atWarn().setMessage("removing a stale disruption mark failed").addKeyValue("Node", LogValues.ref(node.name()))
            .addKeyValue("error", e.toString()).log();
      }
    }
  }
}
