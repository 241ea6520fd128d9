package sh.karpenter.controller.nodeclaim.disruption;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NillableDuration;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;

/**
 * When a NodeClaim is {@code Consolidatable} (upstream nodeclaim/disruption/consolidation.go,
 * docs/behaviour/nodeclaim-lifecycle.md#consolidatable-condition): it is Initialized and no pod has
 * been bound to or removed from its node for the NodePool's {@code consolidateAfter}, counted from
 * {@code status.lastPodEventTime}, or from the {@code Initialized} transition when no pod event was
 * recorded. A pool whose consolidateAfter is {@code Never} has no consolidatable NodeClaims.
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
    Duration consolidateAfter = consolidateAfter(pool);
    if (consolidateAfter == null) {
      return Verdict.NEVER;
    }
    var conditions = nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getConditions();
    if (!Conditions.isTrue(conditions, ConditionTypes.INITIALIZED)) {
      return Verdict.NEVER;
    }
    String lastPodEvent = nodeClaim.getStatus().getLastPodEventTime();
    Optional<Instant> since = lastPodEvent == null || lastPodEvent.isEmpty()
        ? Conditions.lastTransition(conditions, ConditionTypes.INITIALIZED)
        : Optional.of(Instant.parse(lastPodEvent));
    if (since.isEmpty()) {
      return Verdict.NEVER;
    }
    Duration remaining = Duration.between(now, since.get().plus(consolidateAfter));
    return remaining.isPositive() ? new Verdict(false, remaining) : Verdict.NOW;
  }

  /** The pool's consolidateAfter; null for {@code Never}. Unset means the CRD default, 0s. */
  private static Duration consolidateAfter(NodePool pool) {
    var disruption = pool.getSpec() == null ? null : pool.getSpec().getDisruption();
    NillableDuration value = disruption == null ? null : disruption.getConsolidateAfter();
    return value == null ? Duration.ZERO : value.duration();
  }
}
