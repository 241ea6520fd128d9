package sh.karpenter.core.disruption;

import java.util.List;

/**
 * A Balanced-policy move and its score (docs/behaviour/disruption.md#balanced-policy): approved
 * when score ≥ 1/k.
 */
public record ScoredMove(String nodePoolName, List<String> nodeClaimNames, double score, boolean approved) {
  public ScoredMove {
    nodeClaimNames = List.copyOf(nodeClaimNames);
  }
}
