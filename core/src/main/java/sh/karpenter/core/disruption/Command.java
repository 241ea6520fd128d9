package sh.karpenter.core.disruption;

import java.util.List;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/**
 * One disruption to carry out: delete the candidates, after launching the replacements (if any).
 *
 * @param method the method that produced it ({@link Method})
 * @param savings hourly price of the candidates minus the cheapest price of the replacements (for
 *     {@link Method#REPACK_CONSOLIDATION}: minus the replacements' worst launch price)
 * @param repairCondition for a {@link Method#REPAIR} command, the Node condition type whose repair
 *     policy selected the candidate (upstream's {@code condition} label); null otherwise
 * @param payback the expected savings and payback time of a {@link Method#REPACK_CONSOLIDATION}
 *     command ({@link Payback}); null for other methods
 */
public record Command(
    Method method,
    Reason reason,
    List<Candidate> candidates,
    List<PlannedNodeClaim> replacements,
    double savings,
    String repairCondition,
    Payback payback) {
  public Command {
    candidates = List.copyOf(candidates);
    replacements = List.copyOf(replacements);
  }

  /** A command without a payback figure. */
  public Command(
      Method method, Reason reason, List<Candidate> candidates, List<PlannedNodeClaim> replacements, double savings, String repairCondition) {
    this(method, reason, candidates, replacements, savings, repairCondition, null);
  }

  /** A command of a method other than repair. */
  public Command(Method method, Reason reason, List<Candidate> candidates, List<PlannedNodeClaim> replacements, double savings) {
    this(method, reason, candidates, replacements, savings, null, null);
  }

  /** Upstream's decision label: {@code delete} or {@code replace}. */
  public String decision() {
    return replacements.isEmpty() ? "delete" : "replace";
  }
}
