package sh.karpenter.controller.nodeclaim.disruption;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.controller.runtime.writes.StatusConditions;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;

/**
 * The {@code nodeclaim.disruption} controller (upstream nodeclaim/disruption), keyed by NodeClaim
 * name: keeps the two conditions the disruption controller chooses candidates by.
 *
 * <ul>
 *   <li>{@code Drifted=True} with the {@link Drift} reason on a launched NodeClaim that drifted; the
 *       condition is removed when it no longer has (or is not launched), and re-checked every {@link
 *       Drift#RECHECK}. When the provider cannot say (an error), the condition is left as it is.
 *   <li>{@code Consolidatable=True} once {@link Consolidatable} holds; removed otherwise, with a
 *       requeue at the instant it will hold.
 * </ul>
 *
 * Deleting NodeClaims, NodeClaims of other providers and NodeClaims whose NodePool is gone are left
 * alone. The conditions are written with an update of the status locked to the resourceVersion read;
 * on a conflict the NodeClaim is read again from the API server and judged afresh. Enqueue it on
 * NodeClaim changes, on changes of its NodePool ({@link #nodePoolHandler}) and of its Node.
 */
public final class NodeClaimDisruption implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(NodeClaimDisruption.class);

  public static final String NAME = "nodeclaim.disruption";

  private final KubernetesClient client;
  private final Informers informers;
  private final CloudProvider cloudProvider;
  private final Clock clock;
  private final Metrics metrics;
  private final Drift drift;

  public NodeClaimDisruption(KubernetesClient client, Informers informers, CloudProvider cloudProvider, Clock clock, Metrics metrics) {
    this.client = client;
    this.informers = informers;
    this.cloudProvider = cloudProvider;
    this.clock = clock;
    this.metrics = metrics;
    this.drift = new Drift(cloudProvider, clock);
  }

  /**
   * The NodePool informer handler: enqueues the pool's NodeClaims (from the informer cache) when the
   * pool appears, goes, or changes its spec or annotations; status-only updates (the counter's, every
   * few seconds) are ignored, as nothing judged here depends on them.
   */
  public static ResourceEventHandler<NodePool> nodePoolHandler(Informers informers, Consumer<String> enqueue) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(NodePool pool) {
        nodeClaimsOf(informers, pool).forEach(enqueue);
      }

      @Override
      public void onUpdate(NodePool old, NodePool pool) {
        if (!Objects.equals(old.getMetadata().getGeneration(), pool.getMetadata().getGeneration())
            || !Objects.equals(old.getMetadata().getAnnotations(), pool.getMetadata().getAnnotations())) {
          nodeClaimsOf(informers, pool).forEach(enqueue);
        }
      }

      @Override
      public void onDelete(NodePool pool, boolean deletedFinalStateUnknown) {
        nodeClaimsOf(informers, pool).forEach(enqueue);
      }
    };
  }

  private static Stream<String> nodeClaimsOf(Informers informers, NodePool pool) {
    String name = pool.getMetadata().getName();
    return informers.nodeClaims().getStore().list().stream()
        .filter(claim -> name.equals(NodeClaims.nodePool(claim)))
        .map(claim -> claim.getMetadata().getName());
  }

  @Override
  public Result reconcile(String name) {
    return OptimisticWrites.retryOnConflict(NodeClaims.get(client, informers, name), nodeClaim -> {
      if (nodeClaim == null || Metadata.deleting(nodeClaim) || !NodeClaims.isManaged(nodeClaim, cloudProvider)) {
        return Result.done();
      }
      NodePool pool = informers.nodePools().getStore().getByKey(NodeClaims.nodePool(nodeClaim));
      return pool == null ? Result.done() : reconcile(nodeClaim, pool);
    }, () -> {
      LOG.debug("nodeclaim {} changed while reconciling disruption conditions, retrying with a fresh copy", name);
      return NodeClaims.fresh(client, name);
    });
  }

  private Result reconcile(NodeClaim nodeClaim, NodePool pool) {
    Instant now = clock.instant();
    List<Condition> before = nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getConditions();
    Long generation = nodeClaim.getMetadata().getGeneration();
    List<Condition> after = before;
    RuntimeException failure = null;
    Result result = Result.done();

    if (!Conditions.isTrue(before, ConditionTypes.LAUNCHED)) {
      after = Conditions.clear(after, ConditionTypes.DRIFTED);
    } else {
      try {
        String reason = drift.reason(pool, nodeClaim);
        after = reason.isEmpty()
            ? Conditions.clear(after, ConditionTypes.DRIFTED)
            : Conditions.set(after, ConditionTypes.DRIFTED, Conditions.TRUE, StatusConditions.reason(reason, ConditionTypes.DRIFTED),
                StatusConditions.truncate(reason), now, generation);
        result = Result.requeueAfter(Drift.RECHECK);
      } catch (NodeClaimNotFoundException e) {
        LOG.debug("nodeclaim {}: instance gone, drift not judged: {}", nodeClaim.getMetadata().getName(), e.getMessage());
      } catch (RuntimeException e) {
        failure = e; // leave Drifted as it is, still write Consolidatable, then back off
      }
    }

    Consolidatable.Verdict verdict = Consolidatable.at(nodeClaim, pool, now);
    after = verdict.consolidatable()
        ? Conditions.set(after, ConditionTypes.CONSOLIDATABLE, Conditions.TRUE, ConditionTypes.CONSOLIDATABLE, "", now, generation)
        : Conditions.clear(after, ConditionTypes.CONSOLIDATABLE);
    if (verdict.flipsIn() != null) {
      result = result.min(Result.requeueAfter(verdict.flipsIn()));
    }

    write(nodeClaim, before, after, now);
    if (failure != null) {
      throw failure;
    }
    return result;
  }

  /** Writes the conditions when they changed (locked to the resourceVersion read) and counts the transitions. */
  private void write(NodeClaim stored, List<Condition> before, List<Condition> after, Instant now) {
    NodeClaim written = StatusConditions.write(client, metrics, stored, after, now);
    if (written != null && written != stored) {
      logChange(stored, before, after, ConditionTypes.DRIFTED);
      logChange(stored, before, after, ConditionTypes.CONSOLIDATABLE);
    }
  }

  private static void logChange(NodeClaim nodeClaim, List<Condition> before, List<Condition> after, String type) {
    var was = Conditions.get(before, type).map(Condition::getReason);
    var is = Conditions.get(after, type).map(Condition::getReason);
    if (!was.equals(is)) {
      LOG.debug("{} {}{} nodeclaim={} nodepool={}", is.isPresent() ? "marking" : "removing", type, is.map(r -> " reason=" + r).orElse(""),
          nodeClaim.getMetadata().getName(), NodeClaims.nodePool(nodeClaim));
    }
  }
}
