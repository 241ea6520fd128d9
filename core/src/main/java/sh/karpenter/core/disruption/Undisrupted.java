package sh.karpenter.core.disruption;

/**
 * A managed node a disruption pass left alone and its one current reason
 * (docs/behaviour/disruption.md#why-not).
 *
 * @param nodeName the Node, or the NodeClaim's name for an in-flight NodeClaim without a Node
 * @param nodePoolName null when the node names none
 * @param message for people, naming the object that holds the node (pod, PDB, NodePool, budget)
 */
public record Undisrupted(String nodeName, String nodeClaimName, String nodePoolName, WhyNot why, String message) {}
