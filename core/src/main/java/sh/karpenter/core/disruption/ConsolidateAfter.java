package sh.karpenter.core.disruption;

import java.time.Duration;
import java.time.Instant;

/**
 * A NodePool's {@code consolidateAfter} window, the one place the rule is written
 * (docs/behaviour/nodeclaim-lifecycle.md#consolidatable-condition,
 * docs/behaviour/disruption.md#simulation-rules): a node is inside it until {@code consolidateAfter}
 * has passed since the last pod was bound to or removed from it ({@code status.lastPodEventTime}),
 * or, when no pod event was recorded, since its NodeClaim became {@code Initialized} (upstream {@code
 * IsUnderConsolidateAfter}: that is when pods could start to schedule there). A NodeClaim that is not
 * initialized has no window yet, and {@code Never} (null) turns consolidation off altogether. The
 * NodeClaim's {@code Consolidatable} condition and the consolidation simulation (a node inside its
 * window receives no moved pod) both read it from here.
 */
public final class ConsolidateAfter {
  /**
   * What an unset {@code spec.disruption.consolidateAfter} means: the CRD default, {@code 0s} (applied
   * by {@code sh.karpenter.api.v1.Disruption.consolidateAfterOf}).
   */
  public static final Duration DEFAULT = Duration.ZERO;

  private ConsolidateAfter() {}

  /**
   * When the node's window ends, or null when it has none to end: consolidation is off ({@code
   * consolidateAfter} null) or the NodeClaim is not initialized ({@code initializedAt} null).
   *
   * @param consolidateAfter the NodePool's consolidateAfter, null for {@code Never}
   * @param lastPodEventAt the NodeClaim's {@code status.lastPodEventTime}, null when none was recorded
   * @param initializedAt when the NodeClaim's {@code Initialized} condition turned true, null when it is not
   */
  public static Instant endsAt(Duration consolidateAfter, Instant lastPodEventAt, Instant initializedAt) {
    if (consolidateAfter == null || initializedAt == null) {
      return null;
    }
    return (lastPodEventAt != null ? lastPodEventAt : initializedAt).plus(consolidateAfter);
  }

  /**
   * Whether the node is inside its window at {@code now} (upstream {@code IsUnderConsolidateAfter}):
   * consolidation is on with a positive consolidateAfter, the NodeClaim is initialized, and {@link
   * #endsAt} is still to come.
   */
  public static boolean isUnder(Duration consolidateAfter, Instant lastPodEventAt, Instant initializedAt, Instant now) {
    if (consolidateAfter == null || !consolidateAfter.isPositive()) {
      return false;
    }
    Instant end = endsAt(consolidateAfter, lastPodEventAt, initializedAt);
    return end != null && now.isBefore(end);
  }
}
