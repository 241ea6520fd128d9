package sh.karpenter.core.pod;

import java.util.Objects;
import sh.karpenter.core.requirements.Requirements;

/** A preferred node-affinity term: requirements (frozen) with a weight in 1..100. */
public record WeightedRequirements(int weight, Requirements requirements) {
  public WeightedRequirements {
    requirements = Objects.requireNonNull(requirements, "requirements").frozen();
  }
}
