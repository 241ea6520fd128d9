package sh.karpenter.controller.node.termination;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.writes.StatusConditions;

/**
 * Writes the conditions termination reports on the Node's NodeClaim ({@code Drained}, {@code
 * VolumesDetached}, {@code InstanceTerminating}) through the status subresource, locked to the
 * resourceVersion read (409 Conflict propagates; the caller reads again and retries), and counts
 * each status change in the condition-transition metrics.
 */
final class TerminationConditions {

  private final KubernetesClient client;
  private final Clock clock;
  private final Metrics metrics;

  TerminationConditions(KubernetesClient client, Clock clock, Metrics metrics) {
    this.client = client;
    this.clock = clock;
    this.metrics = metrics;
  }

  /**
   * Sets the condition unless it already has this status, reason and message.
   *
   * @return the NodeClaim as stored (the argument when nothing had to change), or null when it is gone
   */
  NodeClaim set(NodeClaim nodeClaim, String type, String status, String reason, String message) {
    List<Condition> before = nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getConditions();
    Optional<Condition> current = Conditions.get(before, type);
    if (current.isPresent() && status.equals(current.get().getStatus()) && reason.equals(current.get().getReason())
        && message.equals(Objects.requireNonNullElse(current.get().getMessage(), ""))) {
      return nodeClaim;
    }
    Instant now = clock.instant();
    return StatusConditions.write(client, metrics, nodeClaim,
        Conditions.set(before, type, status, reason, message, now, nodeClaim.getMetadata().getGeneration()), now);
  }
}
