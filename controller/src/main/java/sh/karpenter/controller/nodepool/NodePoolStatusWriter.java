package sh.karpenter.controller.nodepool;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Clock;
import java.time.Instant;
import java.util.function.BiConsumer;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.v1.NodePoolStatus;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.controller.runtime.writes.StatusConditions;

/**
 * Writes a NodePool's status for the NodePool controllers: applies a change to a copy, writes it
 * through the status subresource only when something changed, locked to the resourceVersion read,
 * and on a conflict re-reads the NodePool from the API server and applies the change again. Condition
 * transitions are counted once written.
 */
final class NodePoolStatusWriter {
  static final String KIND = "nodepool";

  private final KubernetesClient client;
  private final Informers informers;
  private final Clock clock;
  private final Metrics metrics;
  private final KubernetesSerialization serialization;

  NodePoolStatusWriter(KubernetesClient client, Informers informers, Clock clock, Metrics metrics) {
    this.client = client;
    this.informers = informers;
    this.clock = clock;
    this.metrics = metrics;
    this.serialization = client.getKubernetesSerialization();
  }

  /** The NodePool from the cache, else from the API server; null when it does not exist. */
  NodePool get(String name) {
    NodePool cached = informers.nodePools().getStore().getByKey(name);
    return cached != null ? cached : client.resources(NodePool.class).withName(name).get();
  }

  /**
   * Applies {@code change} (given the working copy, whose status is never null, and the time) and
   * writes the status if it changed.
   *
   * @return true when a write happened
   */
  boolean update(String name, BiConsumer<NodePool, Instant> change) {
    return OptimisticWrites.retryOnConflict(get(name), stored -> {
      if (stored == null) {
        return false;
      }
      Instant now = clock.instant();
      NodePool working = serialization.clone(stored);
      if (working.getStatus() == null) {
        working.setStatus(new NodePoolStatus());
      }
      change.accept(working, now);
      working.getStatus().setConditions(StatusConditions.sorted(working.getStatus().getConditions()));
      if (json(working.getStatus()).equals(json(normalized(stored)))) {
        return false;
      }
      try {
        client.resources(NodePool.class).resource(working).updateStatus();
      } catch (RuntimeException e) {
        if (OptimisticWrites.isNotFound(e)) {
          return false;
        }
        throw e;
      }
      StatusConditions.recordTransitions(metrics, KIND,
          stored.getStatus() == null ? null : stored.getStatus().getConditions(), working.getStatus().getConditions(), now);
      return true;
    }, () -> client.resources(NodePool.class).withName(name).get());
  }

  private NodePoolStatus normalized(NodePool pool) {
    NodePoolStatus status = pool.getStatus() == null ? new NodePoolStatus() : serialization.clone(pool.getStatus());
    status.setConditions(StatusConditions.sorted(status.getConditions()));
    return status;
  }

  private JsonNode json(Object value) {
    return serialization.convertValue(value, JsonNode.class);
  }
}
