package sh.karpenter.controller.disruption;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.snapshot.BoundPod;
import sh.karpenter.controller.snapshot.NodePoolConverter;
import sh.karpenter.controller.snapshot.PodDisruptionBudgets;
import sh.karpenter.controller.state.DisruptionView;
import sh.karpenter.core.disruption.DisruptionInput;
import sh.karpenter.core.disruption.DisruptionOptions;
import sh.karpenter.core.disruption.Drift;
import sh.karpenter.core.disruption.NodeHealth;
import sh.karpenter.core.disruption.PodBlocker;
import sh.karpenter.core.disruption.PoolPolicy;
import sh.karpenter.core.disruption.StateNode;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.wellknown.Annotations;

/**
 * Converts a {@link DisruptionView} of cluster state into core's {@link DisruptionInput}: every node
 * as a {@link StateNode} (the scheduler's view provisioning uses, plus the NodeClaim's expiry, pod
 * event time, {@code Consolidatable} and {@code Drifted} conditions, the Node's readiness, deletion
 * and {@code InstanceTerminating}, deletion marks,
 * nominations, the node's {@code do-not-disrupt} annotation, its reschedulable pods and the pods that
 * block its disruption, and for node repair the Node's conditions and {@code do-not-repair}), every NodePool's {@code spec.disruption} as a {@link PoolPolicy} ({@link
 * NodePoolConverter#disruptionPolicy}), and the provisioning snapshot's scheduler input for simulations.
 */
public final class DisruptionInputs {
  private static final Logger LOG = LoggerFactory.getLogger(DisruptionInputs.class);
  /** The CRD default of {@code expireAfter}, for a NodeClaim that carries none. */
  static final Duration DEFAULT_EXPIRE_AFTER = Duration.ofHours(720);

  private DisruptionInputs() {}

  /**
   * The decision input for {@code view}.
   *
   * @param queued whether a NodeClaim (by name) is a candidate of a command the orchestration queue
   *     holds: such nodes count as marked for deletion, so they are never chosen twice
   */
  public static DisruptionInput of(
      DisruptionView view, Predicate<String> queued, SchedulerOptions scheduler, Instant now, DisruptionOptions options) {
    PodDisruptionBudgets pdbs = PodDisruptionBudgets.of(view.podDisruptionBudgets());
    List<StateNode> nodes = new ArrayList<>(view.nodes().size());
    for (DisruptionView.NodeView node : view.nodes()) {
      nodes.add(stateNode(node, queued, pdbs, now));
    }
    Map<String, PoolPolicy> pools = new LinkedHashMap<>();
    view.nodePools().forEach((name, pool) -> pools.put(name, NodePoolConverter.disruptionPolicy(pool)));
    return new DisruptionInput(nodes, pools, view.scheduling().cluster().schedulingInput(scheduler), now, options);
  }

  /** One node as disruption sees it. */
  static StateNode stateNode(DisruptionView.NodeView view, Predicate<String> queued, PodDisruptionBudgets pdbs, Instant now) {
    NodeClaim claim = view.nodeClaim();
    Node node = view.object();
    String claimName = claim == null ? null : claim.getMetadata().getName();
    List<Condition> conditions = claim == null || claim.getStatus() == null ? null : claim.getStatus().getConditions();
    List<sh.karpenter.core.pod.Pod> reschedulable = new ArrayList<>();
    List<PodBlocker> blockers = new ArrayList<>();
    for (BoundPod bound : view.pods()) {
      Pod pod = bound.object();
      sh.karpenter.core.pod.Pod converted = bound.pod();
      String key = converted.key();
      if (Pods.reschedulable(pod)) {
        reschedulable.add(converted);
      }
      if (!Pods.active(pod)) {
        continue;
      }
      if (Pods.doNotDisrupt(pod, now)) {
        blockers.add(new PodBlocker(key, "pod " + key + " has \"" + Annotations.DO_NOT_DISRUPT + "\" annotation"));
        continue;
      }
      // Pods that will not be evicted (mirror pods, pods tolerating the disrupted taint) ignore PDBs.
      if (Pods.mirror(pod) || converted.tolerations().stream().anyMatch(t -> t.tolerates(Pods.DISRUPTED))) {
        continue;
      }
      pdbs.blocksDisruption(pod).ifPresent(reason -> blockers.add(new PodBlocker(key, reason)));
    }
    boolean instanceTerminating = Conditions.isTrue(conditions, ConditionTypes.INSTANCE_TERMINATING);
    // As the provisioning snapshot sees it: the Node or the NodeClaim is deleting. Upstream's Deleted()
    // ignores a managed node's Node, but Node termination deletes the NodeClaim at once.
    boolean deleting = (node != null && Metadata.deleting(node)) || (claim != null && Metadata.deleting(claim)) || instanceTerminating;
    return new StateNode(
        view.node(),
        claimName,
        createdAt(claim != null ? claim : node, now),
        claim == null || claim.getStatus() == null ? null : time(claim.getStatus().getLastPodEventTime()),
        Conditions.isTrue(conditions, ConditionTypes.INITIALIZED) ? Conditions.lastTransition(conditions, ConditionTypes.INITIALIZED).orElse(null) : null,
        expireAfter(claim),
        Conditions.isTrue(conditions, ConditionTypes.CONSOLIDATABLE),
        drift(conditions),
        node != null && Metadata.ready(node),
        deleting,
        instanceTerminating,
        view.markedForDeletion() || (claimName != null && queued.test(claimName)),
        view.nominated(),
        node != null && "true".equals(Metadata.annotations(node).get(Annotations.DO_NOT_DISRUPT)),
        claim != null && claim.getSpec() != null && claim.getSpec().getTerminationGracePeriod() != null,
        reschedulable,
        blockers,
        health(node, claim, now));
  }

  /**
   * What node repair reads of the Node: its conditions, its creation, and {@code
   * karpenter.sh/do-not-repair: "true"} on it or its NodeClaim; null without a Node.
   */
  static NodeHealth health(Node node, NodeClaim claim, Instant now) {
    if (node == null) {
      return null;
    }
    List<NodeHealth.Condition> conditions = new ArrayList<>();
    if (node.getStatus() != null && node.getStatus().getConditions() != null) {
      for (NodeCondition condition : node.getStatus().getConditions()) {
        conditions.add(new NodeHealth.Condition(condition.getType(), condition.getStatus(), time(condition.getLastTransitionTime())));
      }
    }
    boolean doNotRepair = "true".equals(Metadata.annotations(node).get(Annotations.DO_NOT_REPAIR))
        || (claim != null && "true".equals(Metadata.annotations(claim).get(Annotations.DO_NOT_REPAIR)));
    return new NodeHealth(conditions, createdAt(node, now), doNotRepair);
  }

  /** {@code spec.expireAfter}: null for Never, upstream's 720h default when absent. */
  private static Duration expireAfter(NodeClaim claim) {
    if (claim == null) {
      return null;
    }
    var expireAfter = claim.getSpec() == null ? null : claim.getSpec().getExpireAfter();
    return expireAfter == null ? DEFAULT_EXPIRE_AFTER : expireAfter.duration();
  }

  /** The {@code Drifted=True} condition, or null. */
  private static Drift drift(List<Condition> conditions) {
    Optional<Condition> drifted = Conditions.get(conditions, ConditionTypes.DRIFTED).filter(c -> Conditions.TRUE.equals(c.getStatus()));
    return drifted.map(c -> new Drift(c.getReason(), time(c.getLastTransitionTime()))).orElse(null);
  }

  private static Instant createdAt(HasMetadata object, Instant now) {
    Instant created = object == null ? null : time(object.getMetadata().getCreationTimestamp());
    return created == null ? now : created;
  }

  /** An RFC 3339 time, or null when absent or unreadable. */
  private static Instant time(String text) {
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      LOG.debug("ignoring unreadable time {}", text);
      return null;
    }
  }

}
