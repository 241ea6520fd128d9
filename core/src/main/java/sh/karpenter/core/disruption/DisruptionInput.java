package sh.karpenter.core.disruption;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import sh.karpenter.core.scheduling.SchedulingInput;

/**
 * Everything one disruption decision looks at.
 *
 * @param nodes every node that can host pods (managed or not, initialized or not); in-flight
 *     NodeClaims appear as uninitialized nodes without pods
 * @param pools the disruption policy of every NodePool, by name
 * @param scheduling the scheduler's input for simulations: NodePool templates (with their instance
 *     types and offerings), pending pods, DaemonSet pods, volumes, options; its {@code nodes} are
 *     ignored and rebuilt from {@code nodes} minus the candidates of each simulated move
 * @param now the decision time (budget schedules, expiry, consolidateAfter windows)
 */
public record DisruptionInput(
    List<StateNode> nodes, Map<String, PoolPolicy> pools, SchedulingInput scheduling, Instant now, DisruptionOptions options) {
  public DisruptionInput {
    nodes = List.copyOf(nodes);
    pools = Map.copyOf(pools);
  }
}
