package sh.karpenter.core.disruption;

/**
 * A node that was not disrupted, and why, for people: the {@code Unconsolidatable}, {@code
 * DisruptionBlocked} or {@code NodeRepairBlocked} event on its Node and NodeClaim.
 *
 * @param event {@code Unconsolidatable}, {@code DisruptionBlocked} or {@code NodeRepairBlocked} (node
 *     repair withheld because too much of the node's NodePool is unhealthy; also on the NodePool)
 * @param message names the pod, constraint or budget that blocked it
 * @param why the class of the reason ({@link WhyNot}, docs/behaviour/disruption.md#why-not)
 */
public record Blocked(String nodeName, String nodeClaimName, String event, String message, WhyNot why) {
  /** The event of a node whose repair the per-NodePool unhealthy breaker withholds. */
  public static final String NODE_REPAIR_BLOCKED = "NodeRepairBlocked";

  /** An entry whose class follows from its event and message ({@link WhyNot#classify}). */
  public Blocked(String nodeName, String nodeClaimName, String event, String message) {
    this(nodeName, nodeClaimName, event, message, WhyNot.classify(event, message));
  }
}
