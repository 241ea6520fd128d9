package sh.karpenter.controller.disruption;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.provisioning.NodeClaimCreate;
import sh.karpenter.controller.provisioning.NodeClaimFactory;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.controller.runtime.writes.StatusConditions;
import sh.karpenter.core.disruption.Reason;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * {@link DisruptionActions} on the API server. Node taints are merge-patched and NodeClaim status
 * conditions updated with optimistic locking on a fresh read, retried a few times on conflict (the
 * lifecycle controller writes the same objects). Replacements are written by {@link
 * NodeClaimFactory} from their NodePool, exactly as provisioning writes NodeClaims.
 */
public final class KubernetesDisruptionActions implements DisruptionActions {
  private static final String NO_SCHEDULE = "NoSchedule";

  private final KubernetesClient client;
  private final Informers informers;
  private final Metrics metrics;
  private final Clock clock;

  public KubernetesDisruptionActions(KubernetesClient client, Informers informers, Metrics metrics, Clock clock) {
    this.client = client;
    this.informers = informers;
    this.metrics = metrics;
    this.clock = clock;
  }

  @Override
  public void markDisrupted(String nodeName, String nodeClaimName, Reason reason) {
    OptimisticWrites.retryOnConflict(() -> taint(nodeName, true));
    OptimisticWrites.retryOnConflict(() -> disruptionReason(nodeClaimName, reason));
  }

  @Override
  public void unmarkDisrupted(String nodeName, String nodeClaimName) {
    if (nodeName != null) {
      OptimisticWrites.retryOnConflict(() -> taint(nodeName, false));
    }
    if (nodeClaimName != null) {
      OptimisticWrites.retryOnConflict(() -> disruptionReason(nodeClaimName, null));
    }
  }

  @Override
  public void whyNotDisrupted(String nodeClaimName, String reason, String message) {
    OptimisticWrites.retryOnConflict(() -> {
      NodeClaim claim = NodeClaims.fresh(client, nodeClaimName);
      if (claim == null) {
        return;
      }
      List<Condition> before = claim.getStatus() == null ? null : claim.getStatus().getConditions();
      var existing = Conditions.get(before, ConditionTypes.WHY_NOT_DISRUPTED);
      if (reason == null ? existing.isEmpty()
          : existing.isPresent() && reason.equals(existing.get().getReason()) && message.equals(existing.get().getMessage())) {
        return;
      }
      Instant now = clock.instant();
      List<Condition> after = reason == null
          ? Conditions.clear(before, ConditionTypes.WHY_NOT_DISRUPTED)
          : Conditions.set(before, ConditionTypes.WHY_NOT_DISRUPTED, Conditions.TRUE, reason, message, now, claim.getMetadata().getGeneration());
      StatusConditions.write(client, metrics, claim, after, now);
    });
  }

  @Override
  public NodeClaim create(PlannedNodeClaim replacement) {
    NodePool pool = informers.nodePools().getStore().getByKey(replacement.nodePoolName());
    if (pool == null) {
      pool = client.resources(NodePool.class).withName(replacement.nodePoolName()).get();
    }
    if (pool == null) {
      throw new IllegalStateException("NodePool " + replacement.nodePoolName() + " of the replacement is gone");
    }
    return NodeClaimCreate.create(client, NodeClaimFactory.create(replacement, pool));
  }

  @Override
  public void delete(String nodeClaimName) {
    OptimisticWrites.deleteAt(client.resources(NodeClaim.class).withName(nodeClaimName), null);
  }

  @Override
  public Optional<NodeClaim> nodeClaim(String name) {
    return Optional.ofNullable(NodeClaims.get(client, informers, name));
  }

  @Override
  public Optional<Node> node(String name) {
    Node cached = informers.nodes().getStore().getByKey(name);
    return Optional.ofNullable(cached != null ? cached : client.nodes().withName(name).get());
  }

  /** Adds or removes {@code karpenter.sh/disrupted:NoSchedule}; a missing Node fails only an addition. */
  private void taint(String nodeName, boolean present) {
    Node node = client.nodes().withName(nodeName).get();
    if (node == null) {
      if (present) {
        throw new IllegalStateException("Node " + nodeName + " is gone");
      }
      return;
    }
    if (hasDisruptedTaint(node) == present) {
      return;
    }
    List<Taint> updated = new ArrayList<>(node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints());
    if (present) {
      updated.add(new TaintBuilder().withKey(TaintKeys.DISRUPTED).withEffect(NO_SCHEDULE).build());
    } else {
      updated.removeIf(KubernetesDisruptionActions::isDisrupted);
    }
    OptimisticWrites.mergePatch(client.nodes().withName(nodeName), client.getKubernetesSerialization(),
        node.getMetadata().getResourceVersion(), Map.of("spec", Map.of("taints", updated)));
  }

  /** Sets {@code DisruptionReason=True} with the reason, or removes the condition when {@code reason} is null. */
  private void disruptionReason(String nodeClaimName, Reason reason) {
    NodeClaim claim = NodeClaims.fresh(client, nodeClaimName);
    if (claim == null) {
      if (reason != null) {
        throw new IllegalStateException("NodeClaim " + nodeClaimName + " is gone");
      }
      return;
    }
    List<Condition> before = claim.getStatus() == null ? null : claim.getStatus().getConditions();
    if (reason == null && Conditions.get(before, ConditionTypes.DISRUPTION_REASON).isEmpty()) {
      return;
    }
    Instant now = clock.instant();
    List<Condition> after = reason == null
        ? Conditions.clear(before, ConditionTypes.DISRUPTION_REASON)
        : Conditions.set(before, ConditionTypes.DISRUPTION_REASON, Conditions.TRUE, reason.apiName(), reason.apiName(), now,
            claim.getMetadata().getGeneration());
    if (StatusConditions.write(client, metrics, claim, after, now) == null && reason != null) {
      throw new IllegalStateException("NodeClaim " + nodeClaimName + " is gone");
    }
  }

  /** True when the Node carries {@code karpenter.sh/disrupted:NoSchedule}. */
  static boolean hasDisruptedTaint(Node node) {
    return node.getSpec() != null && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream().anyMatch(KubernetesDisruptionActions::isDisrupted);
  }

  private static boolean isDisrupted(Taint taint) {
    return TaintKeys.DISRUPTED.equals(taint.getKey()) && NO_SCHEDULE.equals(taint.getEffect());
  }
}
