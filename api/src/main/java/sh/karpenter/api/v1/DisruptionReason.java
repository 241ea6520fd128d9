package sh.karpenter.api.v1;

/**
 * A reason Karpenter disrupts a node for, as named in disruption budgets. {@link #Unhealthy} paces node
 * repair (upstream v1.15), which this project does not run yet; budgets may name it all the same.
 */
public enum DisruptionReason {
  Underutilized,
  Empty,
  Drifted,
  Unhealthy
}
