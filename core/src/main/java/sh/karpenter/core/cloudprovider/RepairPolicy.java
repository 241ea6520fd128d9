package sh.karpenter.core.cloudprovider;

import java.time.Duration;
import java.util.Objects;

/**
 * A node condition that, held for longer than {@code toleration}, makes node repair replace the node
 * (upstream v1.15's {@code cloudprovider.RepairPolicy}; docs/behaviour/disruption.md#node-repair).
 *
 * <p>Of upstream's optional fields only {@code Priority} is modelled: the reason regex, the drain
 * bound ({@code TerminationGracePeriod}) and the reboot action are not, so every policy matches on
 * condition type and status alone and replaces the node.
 *
 * @param conditionType a Node condition type, e.g. {@code Ready}
 * @param conditionStatus {@code True}, {@code False} or {@code Unknown}
 * @param toleration how long the condition must hold before the node is repaired
 * @param priority 0 to 100; among eligible nodes, a higher priority repairs first (dense rank, plus one
 *     rank for every 30 minutes a node waits past its toleration)
 */
public record RepairPolicy(String conditionType, String conditionStatus, Duration toleration, int priority) {
  public static final int MIN_PRIORITY = 0;
  public static final int MAX_PRIORITY = 100;

  public RepairPolicy {
    if (conditionType == null || conditionType.isEmpty()) {
      throw new IllegalArgumentException("repair policy has an empty conditionType");
    }
    if (!"True".equals(conditionStatus) && !"False".equals(conditionStatus) && !"Unknown".equals(conditionStatus)) {
      throw new IllegalArgumentException(
          "repair policy for condition " + conditionType + " has invalid conditionStatus \"" + conditionStatus + "\" (want True, False or Unknown)");
    }
    Objects.requireNonNull(toleration, "toleration");
    if (toleration.isNegative()) {
      throw new IllegalArgumentException("repair policy for condition " + conditionType + " has negative toleration " + toleration);
    }
    if (priority < MIN_PRIORITY || priority > MAX_PRIORITY) {
      throw new IllegalArgumentException(
          "repair policy for condition " + conditionType + " has priority " + priority + " outside [" + MIN_PRIORITY + ", " + MAX_PRIORITY + "]");
    }
  }

  /** A policy with priority 0. */
  public RepairPolicy(String conditionType, String conditionStatus, Duration toleration) {
    this(conditionType, conditionStatus, toleration, MIN_PRIORITY);
  }
}
