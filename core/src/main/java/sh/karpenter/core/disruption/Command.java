package sh.karpenter.core.disruption;

import java.util.List;
import sh.karpenter.core.scheduling.PlannedNodeClaim;

/**
 * One disruption to carry out: delete the candidates, after launching the replacements (if any).
 *
 * @param method the method that produced it ({@link Method})
 * @param savings hourly price of the candidates minus the cheapest price of the replacements
 */
public record Command(Method method, Reason reason, List<Candidate> candidates, List<PlannedNodeClaim> replacements, double savings) {
  public Command {
    candidates = List.copyOf(candidates);
    replacements = List.copyOf(replacements);
  }

  /** Upstream's decision label: {@code delete} or {@code replace}. */
  public String decision() {
    return replacements.isEmpty() ? "delete" : "replace";
  }
}
