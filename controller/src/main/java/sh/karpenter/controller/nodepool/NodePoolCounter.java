package sh.karpenter.controller.nodepool;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * The {@code nodepool.counter} controller, keyed by NodePool name: writes {@code status.resources}
 * (the summed capacity of the pool's Nodes and of its launched NodeClaims that have no Node yet, plus
 * their count as {@code nodes}) and {@code status.nodes}, which limits and the scale subresource read,
 * and publishes the pool's usage and limit gauges. Requeues every {@link #PERIOD}, as upstream.
 */
public final class NodePoolCounter implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(NodePoolCounter.class);

  public static final String NAME = "nodepool.counter";
  static final Duration PERIOD = Duration.ofSeconds(5);
  /** The resource that counts nodes in {@code status.resources} and {@code spec.limits}. */
  static final String NODES = "nodes";
  /** Resources always reported, even at zero (upstream's BaseResources). */
  private static final Set<String> BASE =
      Set.of(ResourceNames.CPU, ResourceNames.MEMORY, ResourceNames.PODS, ResourceNames.EPHEMERAL_STORAGE, NODES);

  /** What a pool's nodes add up to. */
  record Usage(Resources resources, long nodes) {
    /** {@code status.resources}: every base resource (0 when absent), each other one, and {@code nodes}. */
    Map<String, Quantity> asStatus() {
      Map<String, Quantity> status = new TreeMap<>();
      for (String name : BASE) {
        status.put(name, new Quantity("0"));
      }
      resources.toQuantities().forEach((name, value) -> status.put(name, new Quantity(value)));
      status.put(NODES, new Quantity(Long.toString(nodes)));
      return status;
    }
  }

  private final Informers informers;
  private final Metrics metrics;
  private final NodePoolStatusWriter writer;

  public NodePoolCounter(KubernetesClient client, Informers informers, Clock clock, Metrics metrics) {
    this.informers = informers;
    this.metrics = metrics;
    this.writer = new NodePoolStatusWriter(client, informers, clock, metrics);
  }

  @Override
  public Result reconcile(String name) {
    NodePool pool = writer.get(name);
    if (pool == null) {
      metrics.nodePoolDeleted(name);
      return Result.done();
    }
    if (!informers.hasSynced()) {
      // A partial cache would write a count that is too low.
      return Result.requeueAfter(Duration.ofSeconds(1));
    }
    Usage usage = usage(name, informers.nodes().getStore().list(), informers.nodeClaims().getStore().list());
    usage.asStatus().forEach((resource, quantity) ->
        metrics.nodePoolUsage(name, resource, milli(resource, quantity) / 1000.0));
    if (pool.getSpec() != null && pool.getSpec().getLimits() != null) {
      pool.getSpec().getLimits().forEach((resource, quantity) ->
          metrics.nodePoolLimit(name, resource, milli(resource, quantity) / 1000.0));
    }
    Map<String, Quantity> resources = usage.asStatus();
    writer.update(name, (working, now) -> {
      working.getStatus().setResources(resources);
      working.getStatus().setNodes(usage.nodes());
    });
    return Result.requeueAfter(PERIOD);
  }

  /**
   * The usage of pool {@code nodePool}: the capacity ({@code status.capacity}, else allocatable) of
   * every Node labelled with it, plus {@code status.capacity} of every launched NodeClaim labelled
   * with it whose providerID no Node carries yet.
   */
  static Usage usage(String nodePool, Collection<Node> nodes, Collection<NodeClaim> nodeClaims) {
    Resources total = Resources.EMPTY;
    long count = 0;
    Set<String> providerIds = new HashSet<>();
    for (Node node : nodes) {
      if (node.getSpec() != null && node.getSpec().getProviderID() != null) {
        providerIds.add(node.getSpec().getProviderID());
      }
      if (!nodePool.equals(label(node.getMetadata().getLabels()))) {
        continue;
      }
      var status = node.getStatus();
      Map<String, Quantity> capacity = status == null ? null
          : status.getCapacity() != null && !status.getCapacity().isEmpty() ? status.getCapacity() : status.getAllocatable();
      total = total.plus(resources(capacity, "node " + node.getMetadata().getName()));
      count++;
    }
    for (NodeClaim nodeClaim : nodeClaims) {
      String providerId = Metadata.providerId(nodeClaim);
      if (providerId.isEmpty() || providerIds.contains(providerId) || !nodePool.equals(NodeClaims.nodePool(nodeClaim))) {
        continue;
      }
      total = total.plus(resources(nodeClaim.getStatus().getCapacity(), "nodeclaim " + nodeClaim.getMetadata().getName()));
      count++;
    }
    return new Usage(total, count);
  }

  private static Resources resources(Map<String, Quantity> list, String origin) {
    if (list == null) {
      return Resources.EMPTY;
    }
    Resources.Builder builder = Resources.builder();
    list.forEach((name, quantity) -> {
      try {
        builder.quantity(name, quantity.toString());
      } catch (IllegalArgumentException | ArithmeticException e) {
        LOG.warn("{}: ignoring invalid capacity {}={}", origin, name, quantity);
      }
    });
    return builder.build();
  }

  private static double milli(String resource, Quantity quantity) {
    try {
      return Resources.builder().quantity(resource, quantity.toString()).build().milli(resource);
    } catch (IllegalArgumentException | ArithmeticException e) {
      return 0;
    }
  }

  private static String label(Map<String, String> labels) {
    return labels == null ? null : labels.get(Labels.NODE_POOL);
  }
}
