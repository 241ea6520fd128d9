package sh.karpenter.api.v1;

/** A reason Karpenter disrupts a node for, as named in disruption budgets. */
public enum DisruptionReason {
  Underutilized,
  Empty,
  Drifted
}
