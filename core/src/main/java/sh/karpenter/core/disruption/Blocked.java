package sh.karpenter.core.disruption;

/**
 * A node that was not disrupted, and why, for people: the {@code Unconsolidatable} or
 * {@code DisruptionBlocked} event on its Node and NodeClaim.
 *
 * @param event {@code Unconsolidatable} or {@code DisruptionBlocked}
 * @param message names the pod, constraint or budget that blocked it
 */
public record Blocked(String nodeName, String nodeClaimName, String event, String message) {}
