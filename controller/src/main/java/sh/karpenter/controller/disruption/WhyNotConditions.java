package sh.karpenter.controller.disruption;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.writes.StatusConditions;
import sh.karpenter.controller.state.DisruptionView;
import sh.karpenter.core.disruption.Command;
import sh.karpenter.core.disruption.Decision;
import sh.karpenter.core.disruption.Method;
import sh.karpenter.core.disruption.Undisrupted;
import sh.karpenter.core.disruption.WhyNot;

/**
 * Keeps each managed NodeClaim's {@code WhyNotDisrupted} condition (docs/behaviour/disruption.md#why-not)
 * in step with the decisions: True with the node's one reason ({@link WhyNot#apiName()}) and its
 * message while the node is left alone, {@link WhyNot#SHADOW_MODE} for a node shadow mode would have
 * disrupted, and gone once a command takes the node (also while it is {@link WhyNot#BEING_DELETED} with
 * a {@code DisruptionReason}: a command's candidate, disrupted rather than left alone). {@link
 * WhyNot#NOT_INITIALIZED} is not written: the NodeClaim's {@code Initialized} condition says it.
 *
 * <p>A NodeClaim is written only when its reason or message changes: against what this loop last
 * wrote, or, for a NodeClaim it has not written yet (a new leader), against the condition it carries.
 * A pass that decides the same as the last one writes nothing.
 */
final class WhyNotConditions {
  private static final Logger LOG = LoggerFactory.getLogger(WhyNotConditions.class);

  private final DisruptionActions actions;
  /** Per NodeClaim, the reason and message last written ({@link #key}); absent for a removed condition. */
  private final Map<String, String> written = new HashMap<>();

  WhyNotConditions(DisruptionActions actions) {
    this.actions = actions;
  }

  /** One decision: its left-alone nodes get their reason; its commands' candidates lose theirs, or in shadow mode get {@code ShadowMode}. */
  void publish(DisruptionView view, Decision decision, boolean shadowMode) {
    Map<String, NodeClaim> claims = new HashMap<>();
    for (DisruptionView.NodeView node : view.nodes()) {
      if (node.nodeClaim() != null) {
        claims.put(node.nodeClaim().getMetadata().getName(), node.nodeClaim());
      }
    }
    written.keySet().retainAll(claims.keySet());
    Set<String> seen = new HashSet<>();
    for (Undisrupted node : decision.undisrupted()) {
      if (seen.add(node.nodeClaimName())) {
        write(node.nodeClaimName(), claims.get(node.nodeClaimName()), node.why(), node.message());
      }
    }
    for (Command command : decision.commands()) {
      boolean shadowed = shadowMode && command.method() != Method.REPAIR;
      String message = shadowed
          ? "shadow mode: would " + command.decision() + " via " + command.method().label() + " (reason " + command.reason().apiName() + ")"
          : null;
      command.candidates().forEach(c -> {
        if (seen.add(c.nodeClaimName())) {
          write(c.nodeClaimName(), claims.get(c.nodeClaimName()), shadowed ? WhyNot.SHADOW_MODE : null, message);
        }
      });
    }
  }

  /** Sets the condition ({@code why} null: removes it) unless it already says that. */
  private void write(String nodeClaimName, NodeClaim cached, WhyNot why, String message) {
    if (cached == null) {
      return;
    }
    if (why == WhyNot.BEING_DELETED && disrupting(cached)) {
      why = null; // a command took it: disrupted, not left alone
    }
    if (why == WhyNot.NOT_INITIALIZED) {
      // not written: a scale-up would write every new NodeClaim while the lifecycle writes it too;
      // its Initialized condition says as much (karpenter disruption status reads it from there)
      why = null;
    }
    String want = why == null ? null : key(why.apiName(), StatusConditions.truncate(message));
    String have = written.containsKey(nodeClaimName) ? written.get(nodeClaimName) : current(cached);
    if (java.util.Objects.equals(want, have)) {
      written.put(nodeClaimName, have);
      return;
    }
    try {
      actions.whyNotDisrupted(nodeClaimName, why == null ? null : why.apiName(), why == null ? null : StatusConditions.truncate(message));
      written.put(nodeClaimName, want);
    } catch (RuntimeException e) {
      written.remove(nodeClaimName);
      LOG.atWarn().setMessage("writing the WhyNotDisrupted condition failed").addKeyValue("NodeClaim", LogValues.ref(nodeClaimName))
          .addKeyValue("error", e.toString()).log();
    }
  }

  /** The NodeClaim carries {@code DisruptionReason}: an orchestration command is disrupting it. */
  private static boolean disrupting(NodeClaim claim) {
    return claim.getStatus() != null && Conditions.get(claim.getStatus().getConditions(), ConditionTypes.DISRUPTION_REASON).isPresent();
  }

  /** The condition's reason and message as the cached NodeClaim carries them, or null without one. */
  private static String current(NodeClaim claim) {
    List<Condition> conditions = claim.getStatus() == null ? null : claim.getStatus().getConditions();
    Optional<Condition> condition = Conditions.get(conditions, ConditionTypes.WHY_NOT_DISRUPTED);
    return condition.map(c -> key(c.getReason(), c.getMessage())).orElse(null);
  }

  private static String key(String reason, String message) {
    return reason + "\n" + (message == null ? "" : message);
  }
}
