package sh.karpenter.core.disruption;

/**
 * A consolidation move judged for one NodePool (upstream's {@code consolidation_moves_total}): every
 * single-node command that reached approval, and for multi-node consolidation the command it settled
 * on (approved) or else the last one the Balanced policy rejected, once per NodePool of its
 * candidates. Moves of pools whose policy is not Balanced are always approved.
 *
 * @param nodePoolName the NodePool of the candidates counted
 * @param policy that NodePool's consolidation policy
 * @param approved whether the move passed the Balanced policy (always, for other policies)
 */
public record ConsolidationMove(String nodePoolName, ConsolidationPolicy policy, boolean approved) {}
