package sh.karpenter.core.pod;

import java.util.Objects;

/** A preferred pod (anti-)affinity term with its weight in 1..100. */
public record WeightedPodAffinityTerm(int weight, PodAffinityTerm term) {
  public WeightedPodAffinityTerm {
    Objects.requireNonNull(term, "term");
  }
}
