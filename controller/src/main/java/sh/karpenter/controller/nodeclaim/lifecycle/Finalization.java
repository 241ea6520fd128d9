package sh.karpenter.controller.nodeclaim.lifecycle;

import static sh.karpenter.api.v1.ConditionTypes.INSTANCE_TERMINATING;
import static sh.karpenter.api.v1.ConditionTypes.REGISTERED;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.controller.runtime.writes.StatusConditions;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Finalizers;

/**
 * NodeClaim finalization, under the {@code karpenter.sh/termination} finalizer: delete the Node(s),
 * only when the NodeClaim registered, and wait for them to go; call the cloud provider's delete until
 * it answers NotFound, holding {@code InstanceTerminating=True} meanwhile; then remove the finalizer.
 * Also annotates the termination timestamp (deletionTimestamp + terminationGracePeriod) the Node's
 * drain works against.
 *
 * <p>Writes are locked to the resourceVersion read; a 409 propagates to {@link NodeClaimLifecycle},
 * which re-reads and runs finalization again (every step here is idempotent).
 */
final class Finalization {
  private static final Logger LOG = LoggerFactory.getLogger(Finalization.class);

  /** How often to look again while Nodes or the instance are still going away. */
  static final Duration POLL = Duration.ofSeconds(5);

  private final KubernetesClient client;
  private final Informers informers;
  private final CloudProvider cloudProvider;
  private final LaunchCache cache;
  private final Clock clock;
  private final Metrics metrics;

  Finalization(KubernetesClient client, Informers informers, CloudProvider cloudProvider, LaunchCache cache, Clock clock, Metrics metrics) {
    this.client = client;
    this.informers = informers;
    this.cloudProvider = cloudProvider;
    this.cache = cache;
    this.clock = clock;
    this.metrics = metrics;
  }

  Result reconcile(NodeClaim nodeClaim) {
    if (!Metadata.hasFinalizer(nodeClaim, Finalizers.TERMINATION)) {
      return Result.done();
    }
    String name = nodeClaim.getMetadata().getName();
    nodeClaim = annotateTerminationTimestamp(nodeClaim);
    if (Conditions.isTrue(conditions(nodeClaim), REGISTERED)) {
      List<Node> nodes = nodes(nodeClaim);
      for (Node node : nodes) {
        if (!Metadata.deleting(node)) {
          LOG.atInfo().setMessage("deleting node").addKeyValue("NodeClaim", LogValues.ref(name))
              .addKeyValue("Node", LogValues.ref(node.getMetadata().getName())).log();
          delete(node);
        }
      }
      if (!nodes.isEmpty()) {
        return Result.requeueAfter(POLL);
      }
    }
    String providerId = Metadata.providerId(nodeClaim);
    if (providerId.isEmpty()) {
      providerId = cache.get(nodeClaim.getMetadata().getUid()).map(Instance::providerId).orElse("");
    }
    if (!providerId.isEmpty()) {
      boolean gone = false;
      try {
        cloudProvider.delete(providerId);
      } catch (NodeClaimNotFoundException e) {
        gone = true;
      }
      if (!Conditions.isTrue(conditions(nodeClaim), INSTANCE_TERMINATING)) {
        nodeClaim = instanceTerminating(nodeClaim);
        if (nodeClaim == null) {
          return Result.done();
        }
      }
      if (!gone) {
        return Result.requeueAfter(POLL);
      }
    }
    try {
      OptimisticWrites.mergePatch(client.resources(NodeClaim.class).withName(name), client.getKubernetesSerialization(),
          nodeClaim.getMetadata().getResourceVersion(),
          OptimisticWrites.metadata(Map.of("finalizers", OptimisticWrites.withoutFinalizer(nodeClaim, Finalizers.TERMINATION))));
    } catch (RuntimeException e) {
      if (!OptimisticWrites.isNotFound(e)) {
        throw e;
      }
    }
    cache.remove(nodeClaim.getMetadata().getUid());
    LOG.atInfo().setMessage("deleted nodeclaim").addKeyValue("NodeClaim", LogValues.ref(name)).log();
    metrics.nodeClaimTerminated(NodeClaims.nodePool(nodeClaim), NodeClaims.capacityType(nodeClaim));
    return Result.done();
  }

  /** The Nodes of the NodeClaim: those with its providerID, or the one named in {@code status.nodeName}. */
  private List<Node> nodes(NodeClaim nodeClaim) {
    List<Node> nodes = new ArrayList<>(NodeClaims.nodesFor(informers, Metadata.providerId(nodeClaim)));
    String nodeName = nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getNodeName();
    if (nodes.isEmpty() && nodeName != null && !nodeName.isEmpty()) {
      // The cache may not have seen the Node yet; never leave a registered Node behind.
      Node node = client.nodes().withName(nodeName).get();
      if (node != null) {
        nodes.add(node);
      }
    }
    return nodes;
  }

  private void delete(Node node) {
    try {
      client.nodes().withName(node.getMetadata().getName()).delete();
    } catch (RuntimeException e) {
      if (!OptimisticWrites.isNotFound(e)) {
        throw e;
      }
    }
  }

  private NodeClaim instanceTerminating(NodeClaim nodeClaim) {
    var before = nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getConditions();
    Instant now = clock.instant();
    return StatusConditions.write(client, metrics, nodeClaim, Conditions.set(
        before, INSTANCE_TERMINATING, Conditions.TRUE, INSTANCE_TERMINATING, "", now, nodeClaim.getMetadata().getGeneration()), now);
  }

  /**
   * Sets {@code karpenter.sh/nodeclaim-termination-timestamp} to deletionTimestamp +
   * terminationGracePeriod once, when the NodeClaim has a terminationGracePeriod.
   */
  private NodeClaim annotateTerminationTimestamp(NodeClaim nodeClaim) {
    var annotations = nodeClaim.getMetadata().getAnnotations();
    if (annotations != null && annotations.containsKey(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP)) {
      return nodeClaim;
    }
    if (nodeClaim.getSpec() == null || nodeClaim.getSpec().getTerminationGracePeriod() == null) {
      return nodeClaim;
    }
    Instant deletion = Instant.parse(nodeClaim.getMetadata().getDeletionTimestamp());
    String terminationTime = deletion.plus(nodeClaim.getSpec().getTerminationGracePeriod().duration()).toString();
    try {
      return OptimisticWrites.mergePatch(client.resources(NodeClaim.class).withName(nodeClaim.getMetadata().getName()),
          client.getKubernetesSerialization(), nodeClaim.getMetadata().getResourceVersion(),
          OptimisticWrites.metadata(Map.of("annotations", Map.of(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP, terminationTime))));
    } catch (RuntimeException e) {
      if (OptimisticWrites.isNotFound(e)) {
        return nodeClaim;
      }
      throw e;
    }
  }

  private static List<Condition> conditions(NodeClaim nodeClaim) {
    return nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getConditions();
  }
}
