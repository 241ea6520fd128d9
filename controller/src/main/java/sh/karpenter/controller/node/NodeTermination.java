package sh.karpenter.controller.node;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.nodeclaim.NodeClaims;
import sh.karpenter.controller.nodeclaim.ObjectWrites;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.wellknown.Finalizers;
import sh.karpenter.core.wellknown.Labels;

/**
 * The {@code node.termination} controller, keyed by Node name: honours the {@code
 * karpenter.sh/termination} finalizer of a deleted Node by deleting its NodeClaim (if it still
 * exists), calling the cloud provider's delete until the instance is gone, and removing the finalizer.
 *
 * <p>MINIMAL: it does not taint or drain the Node, wait for VolumeAttachments, or honour the
 * terminationGracePeriod (karpenter-behaviour.md §6 steps 3–6); pods on the Node are left to the
 * Kubernetes garbage collector. The disruption work replaces this class with the full termination
 * flow.
 */
public final class NodeTermination implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(NodeTermination.class);

  /** Controller name, as upstream. */
  public static final String NAME = "node.termination";
  /** How often to look again while the instance is still going away. */
  static final Duration POLL = Duration.ofSeconds(5);
  private static final int ATTEMPTS = 3;

  private final KubernetesClient client;
  private final Informers informers;
  private final CloudProvider cloudProvider;
  private final Metrics metrics;

  public NodeTermination(KubernetesClient client, Informers informers, CloudProvider cloudProvider, Metrics metrics) {
    this.client = client;
    this.informers = informers;
    this.cloudProvider = cloudProvider;
    this.metrics = metrics;
  }

  @Override
  public Result reconcile(String name) {
    Node node = informers.nodes().getStore().getByKey(name);
    if (node == null) {
      node = client.nodes().withName(name).get();
    }
    if (node == null || !ObjectWrites.isDeleting(node) || !ObjectWrites.hasFinalizer(node, Finalizers.TERMINATION)) {
      return Result.done();
    }
    String providerId = node.getSpec() == null || node.getSpec().getProviderID() == null ? "" : node.getSpec().getProviderID();
    for (NodeClaim nodeClaim : NodeClaims.forProviderId(informers, providerId)) {
      if (!ObjectWrites.isDeleting(nodeClaim)) {
        LOG.info("node {}: deleting nodeclaim {}", name, nodeClaim.getMetadata().getName());
        try {
          client.resources(NodeClaim.class).withName(nodeClaim.getMetadata().getName()).delete();
        } catch (RuntimeException e) {
          if (!ObjectWrites.isNotFound(e)) {
            throw e;
          }
        }
      }
    }
    if (!providerId.isEmpty()) {
      try {
        cloudProvider.delete(providerId);
        return Result.requeueAfter(POLL);
      } catch (NodeClaimNotFoundException e) {
        // The instance is gone.
      }
    }
    removeFinalizer(node);
    LOG.info("deleted node {}", name);
    String nodePool = node.getMetadata().getLabels() == null ? "" : node.getMetadata().getLabels().getOrDefault(Labels.NODE_POOL, "");
    metrics.nodeTerminated(nodePool);
    return Result.done();
  }

  private void removeFinalizer(Node node) {
    Node current = node;
    for (int attempt = 1; ; attempt++) {
      try {
        ObjectWrites.mergePatch(client.nodes().withName(current.getMetadata().getName()), client.getKubernetesSerialization(),
            current.getMetadata().getResourceVersion(),
            ObjectWrites.metadata(Map.of("finalizers", ObjectWrites.withoutFinalizer(current, Finalizers.TERMINATION))));
        return;
      } catch (RuntimeException e) {
        if (ObjectWrites.isNotFound(e)) {
          return;
        }
        if (!ObjectWrites.isConflict(e) || attempt == ATTEMPTS) {
          throw e;
        }
        current = client.nodes().withName(current.getMetadata().getName()).get();
        if (current == null || !ObjectWrites.hasFinalizer(current, Finalizers.TERMINATION)) {
          return;
        }
      }
    }
  }
}
