package sh.karpenter.controller.nodeclaim.disruption;

import java.time.Duration;
import java.time.Instant;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.Disruption;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.core.disruption.ConsolidateAfter;

/**
 * When a NodeClaim is {@code Consolidatable} (upstream nodeclaim/disruption/consolidation.go,
 * docs/behaviour/nodeclaim-lifecycle.md#consolidatable-condition): it is Initialized and outside its
 * NodePool's {@link ConsolidateAfter} window (no pod bound to or removed from its node for {@code
 * consolidateAfter}, counted from {@code status.lastPodEventTime}, or from the {@code Initialized}
 * transition when no pod event was recorded). A pool whose consolidateAfter is {@code Never} has no
 * consolidatable NodeClaims.
 */
public final class Consolidatable {
  private Consolidatable() {}

  /**
   * The verdict at one instant.
   *
   * @param consolidatable whether the condition holds now
   * @param flipsIn when it will start to hold, for a NodeClaim still inside its window; else null
   */
  public record Verdict(boolean consolidatable, Duration flipsIn) {
    static final Verdict NEVER = new Verdict(false, null);
    static final Verdict NOW = new Verdict(true, null);
  }

  /** Whether {@code nodeClaim} of {@code pool} is consolidatable at {@code now}. */
  public static Verdict at(NodeClaim nodeClaim, NodePool pool, Instant now) {
    Duration consolidateAfter = Disruption.consolidateAfterOf(pool.getSpec() == null ? null : pool.getSpec().getDisruption());
    var conditions = nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getConditions();
    Instant initializedAt = Conditions.isTrue(conditions, ConditionTypes.INITIALIZED)
        ? Conditions.lastTransition(conditions, ConditionTypes.INITIALIZED).orElse(null)
        : null;
    String lastPodEvent = nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getLastPodEventTime();
    Instant lastPodEventAt = lastPodEvent == null || lastPodEvent.isEmpty() ? null : Instant.parse(lastPodEvent);
    Instant endsAt = ConsolidateAfter.endsAt(consolidateAfter, lastPodEventAt, initializedAt);
    if (endsAt == null) {
      return Verdict.NEVER;
    }
    return ConsolidateAfter.isUnder(consolidateAfter, lastPodEventAt, initializedAt, now)
        ? new Verdict(false, Duration.between(now, endsAt))
        : Verdict.NOW;
  }
}
