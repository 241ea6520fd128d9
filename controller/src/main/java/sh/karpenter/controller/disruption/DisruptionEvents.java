package sh.karpenter.controller.disruption;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.Locale;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.core.disruption.Blocked;
import sh.karpenter.core.disruption.Command;
import sh.karpenter.core.disruption.Reason;
import sh.karpenter.core.disruption.ScoredMove;
import sh.karpenter.core.wellknown.Annotations;

/**
 * The events of voluntary disruption (upstream disruption/events), with their texts and
 * de-duplication windows. A null object (a Node or NodeClaim that is gone) gets no event.
 */
final class DisruptionEvents {
  static final String DISRUPTION_BLOCKED = "DisruptionBlocked";
  static final String UNCONSOLIDATABLE = "Unconsolidatable";
  static final String LAUNCHING = "DisruptionLaunching";
  static final String WAITING_READINESS = "DisruptionWaitingReadiness";
  static final String TERMINATING = "DisruptionTerminating";
  static final String CONSOLIDATION_CANDIDATE = "ConsolidationCandidate";
  static final String CONSOLIDATION_APPROVED = "ConsolidationApproved";
  static final String CONSOLIDATION_REJECTED = "ConsolidationRejected";
  /** Project-only: what shadow mode would have done (docs/behaviour/disruption.md#shadow-mode). */
  static final String SHADOW = "DisruptionShadow";
  /** Upstream keeps an Unconsolidatable event quiet for 15 minutes. */
  static final Duration UNCONSOLIDATABLE_DEDUPE = Duration.ofMinutes(15);
  /** And a NodeRepairBlocked event too. */
  static final Duration NODE_REPAIR_BLOCKED_DEDUPE = Duration.ofMinutes(15);

  private final EventRecorder recorder;

  DisruptionEvents(EventRecorder recorder) {
    this.recorder = recorder;
  }

  /** {@code DisruptionLaunching} on a replacement NodeClaim. */
  void launching(HasMetadata replacement, Reason reason) {
    normal(replacement, LAUNCHING, "Launching NodeClaim: " + reason.apiName(), EventRecorder.DEFAULT_DEDUPE);
  }

  /** {@code DisruptionWaitingReadiness} on a replacement NodeClaim that is not initialized yet. */
  void waitingOnReadiness(HasMetadata replacement) {
    normal(replacement, WAITING_READINESS, "Waiting on readiness to continue disruption", EventRecorder.DEFAULT_DEDUPE);
  }

  /** {@code DisruptionTerminating} on a candidate's Node and NodeClaim once its NodeClaim is deleted. */
  void terminating(HasMetadata node, HasMetadata nodeClaim, Reason reason) {
    normal(node, TERMINATING, "Disrupting Node: " + reason.apiName(), EventRecorder.DEFAULT_DEDUPE);
    normal(nodeClaim, TERMINATING, "Disrupting NodeClaim: " + reason.apiName(), EventRecorder.DEFAULT_DEDUPE);
  }

  /**
   * {@code Unconsolidatable} or {@code DisruptionBlocked} on a node left alone. As upstream, nothing
   * is said when a {@code do-not-disrupt} annotation blocks: that is the user's intent. {@code
   * NodeRepairBlocked} (node repair withheld: too much of the NodePool is unhealthy) is a Warning on the
   * Node, the NodeClaim and the NodePool, quiet for 15 minutes.
   */
  void blocked(HasMetadata node, HasMetadata nodeClaim, HasMetadata nodePool, Blocked blocked) {
    if (Blocked.NODE_REPAIR_BLOCKED.equals(blocked.event())) {
      for (HasMetadata involved : new HasMetadata[] {node, nodeClaim, nodePool}) {
        if (involved != null) {
          recorder.publish(involved, EventRecorder.WARNING, Blocked.NODE_REPAIR_BLOCKED, blocked.message(), NODE_REPAIR_BLOCKED_DEDUPE);
        }
      }
      return;
    }
    if (DISRUPTION_BLOCKED.equals(blocked.event()) && blocked.message().contains(Annotations.DO_NOT_DISRUPT)) {
      return;
    }
    Duration dedupe = UNCONSOLIDATABLE.equals(blocked.event()) ? UNCONSOLIDATABLE_DEDUPE : EventRecorder.DEFAULT_DEDUPE;
    normal(node, blocked.event(), blocked.message(), dedupe);
    normal(nodeClaim, blocked.event(), blocked.message(), dedupe);
  }

  /** {@code ConsolidationCandidate}, then {@code ConsolidationApproved} or {@code ConsolidationRejected}, for a Balanced move. */
  void scored(HasMetadata node, HasMetadata nodeClaim, ScoredMove move, double threshold) {
    String score = String.format(Locale.ROOT, "%.2f", move.score());
    String message = "Consolidation candidate: move of " + String.join(", ", move.nodeClaimNames()) + " (score " + score + ")";
    normal(node, CONSOLIDATION_CANDIDATE, message, EventRecorder.DEFAULT_DEDUPE);
    normal(nodeClaim, CONSOLIDATION_CANDIDATE, message, EventRecorder.DEFAULT_DEDUPE);
    String verdict = move.approved()
        ? "Consolidation approved: score " + score + " is at least " + String.format(Locale.ROOT, "%.2f", threshold)
        : "Consolidation rejected: score " + score + " is below " + String.format(Locale.ROOT, "%.2f", threshold);
    String reason = move.approved() ? CONSOLIDATION_APPROVED : CONSOLIDATION_REJECTED;
    normal(node, reason, verdict, EventRecorder.DEFAULT_DEDUPE);
    normal(nodeClaim, reason, verdict, EventRecorder.DEFAULT_DEDUPE);
  }

  /**
   * {@code DisruptionShadow} on a candidate's Node and NodeClaim: what the command would do and why,
   * e.g. {@code Shadow mode: would delete via emptiness (reason Empty): nodeclaim(s) a, b}, with the
   * replacements and savings of a replace, and a repack move's payback.
   */
  void shadow(HasMetadata node, HasMetadata nodeClaim, Command command) {
    StringBuilder message = new StringBuilder("Shadow mode: would ").append(command.decision()).append(" via ")
        .append(command.method().label()).append(" (reason ").append(command.reason().apiName()).append("): nodeclaim(s) ")
        .append(String.join(", ", command.candidates().stream().map(c -> c.nodeClaimName()).toList()));
    if (!command.replacements().isEmpty()) {
      message.append("; ").append(command.replacements().size()).append(" replacement(s)");
    }
    if (command.savings() > 0) {
      message.append(String.format(Locale.ROOT, "; saving %.4f/h", command.savings()));
    }
    if (command.payback() != null) {
      message.append("; ").append(command.payback().describe());
    }
    normal(node, SHADOW, message.toString(), EventRecorder.DEFAULT_DEDUPE);
    normal(nodeClaim, SHADOW, message.toString(), EventRecorder.DEFAULT_DEDUPE);
  }

  private void normal(HasMetadata involved, String reason, String message, Duration dedupe) {
    if (involved != null) {
      recorder.publish(involved, EventRecorder.NORMAL, reason, message, dedupe);
    }
  }
}
