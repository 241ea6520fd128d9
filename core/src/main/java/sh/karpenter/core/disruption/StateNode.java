package sh.karpenter.core.disruption;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.ExistingNode;

/**
 * One node as disruption sees it: the scheduler's view of it plus what decides whether and how it may
 * be disrupted. Nodes Karpenter does not manage have a null {@code nodeClaimName}; they still host
 * rescheduled pods in simulations.
 *
 * @param node the scheduler's view (labels, taints, allocatable, bound pods, initialized, NodePool)
 * @param nodeClaimName the NodeClaim, or null for an unmanaged node
 * @param createdAt the NodeClaim's creation (expiry and remaining lifetime count from it)
 * @param lastPodEventAt {@code status.lastPodEventTime}, or null
 * @param initializedAt when the NodeClaim's {@code Initialized} condition turned true, or null when it
 *     is not true (with {@code lastPodEventAt}, the node's {@link ConsolidateAfter} window)
 * @param expireAfter null for {@code Never}
 * @param consolidatable the NodeClaim's {@code Consolidatable=True}
 * @param drift the NodeClaim's {@code Drifted=True} condition, or null
 * @param ready the Node's {@code Ready} condition is {@code True} (false without a Node); a managed,
 *     initialized node that is not Ready uses up every disruption budget but {@link Reason#UNHEALTHY}'s
 * @param deleting the Node or NodeClaim has a deletion timestamp, or the NodeClaim is {@code
 *     InstanceTerminating=True} (upstream's {@code StateNode.Deleted()}, which for a managed node looks
 *     at the NodeClaim only; Node termination deletes the NodeClaim at once)
 * @param instanceTerminating the NodeClaim's {@code InstanceTerminating=True}: its instance is being
 *     deleted, and the node counts towards no budget any more
 * @param markedForDeletion an orchestration command holds it
 * @param nominated pods were recently nominated to it by provisioning
 * @param doNotDisrupt the Node carries {@code karpenter.sh/do-not-disrupt: "true"}
 * @param hasTerminationGracePeriod the NodeClaim has {@code spec.terminationGracePeriod} (drift may then
 *     proceed past blocking pods)
 * @param reschedulablePods bound pods that would need a new home (not DaemonSet, mirror or finished pods)
 * @param blockers pods that block voluntary disruption
 * @param health what node repair reads of the Node, or null when there is no Node object (an
 *     in-flight NodeClaim)
 */
public record StateNode(
    ExistingNode node,
    String nodeClaimName,
    Instant createdAt,
    Instant lastPodEventAt,
    Instant initializedAt,
    Duration expireAfter,
    boolean consolidatable,
    Drift drift,
    boolean ready,
    boolean deleting,
    boolean instanceTerminating,
    boolean markedForDeletion,
    boolean nominated,
    boolean doNotDisrupt,
    boolean hasTerminationGracePeriod,
    List<Pod> reschedulablePods,
    List<PodBlocker> blockers,
    NodeHealth health) {
  public StateNode {
    Objects.requireNonNull(node, "node");
    reschedulablePods = reschedulablePods == null ? List.of() : List.copyOf(reschedulablePods);
    blockers = blockers == null ? List.of() : List.copyOf(blockers);
  }

  public String name() {
    return node.name();
  }

  public String nodePoolName() {
    return node.nodePoolName();
  }

  public boolean managed() {
    return nodeClaimName != null;
  }
}
