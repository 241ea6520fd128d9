package sh.karpenter.core.disruption;

import java.util.List;

/** A Balanced-policy move and its score (§5.9): approved when score ≥ 1/k. */
public record ScoredMove(String nodePoolName, List<String> nodeClaimNames, double score, boolean approved) {
  public ScoredMove {
    nodeClaimNames = List.copyOf(nodeClaimNames);
  }
}
