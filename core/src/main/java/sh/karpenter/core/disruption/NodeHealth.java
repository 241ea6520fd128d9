package sh.karpenter.core.disruption;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * What node repair reads of a Node (docs/behaviour/disruption.md#node-repair): its status conditions,
 * its creation (a condition cannot predate its Node), and the {@code karpenter.sh/do-not-repair} veto.
 *
 * @param conditions the Node's {@code status.conditions}
 * @param createdAt the Node's creation
 * @param doNotRepair the Node or its NodeClaim carries {@code karpenter.sh/do-not-repair: "true"}
 */
public record NodeHealth(List<Condition> conditions, Instant createdAt, boolean doNotRepair) {
  public NodeHealth {
    conditions = conditions == null ? List.of() : List.copyOf(conditions);
    Objects.requireNonNull(createdAt, "createdAt");
  }

  /**
   * One Node condition.
   *
   * @param lastTransition null when the Node does not say (then the Node's creation counts)
   */
  public record Condition(String type, String status, Instant lastTransition) {}
}
