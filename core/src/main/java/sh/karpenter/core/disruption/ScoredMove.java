package sh.karpenter.core.disruption;

import java.util.List;

/**
 * A Balanced-policy move and its score (docs/behaviour/disruption.md#balanced-policy): approved
 * when score ≥ 1/k.
 */
public record ScoredMove(String nodePoolName, List<String> nodeClaimNames, double score, boolean approved) {
  /** The score a move needs to be approved: {@code 1/k} with upstream's {@code BalancedK} ({@code k = 2}). */
  public static final double THRESHOLD = 1.0 / Balanced.K;

  public ScoredMove {
    nodeClaimNames = List.copyOf(nodeClaimNames);
  }
}
