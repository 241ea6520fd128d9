package sh.karpenter.controller.nodepool;

import static sh.karpenter.api.v1.ConditionTypes.LAUNCHED;
import static sh.karpenter.api.v1.ConditionTypes.NODE_REGISTRATION_HEALTHY;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.StatusConditions;
import sh.karpenter.controller.state.nodepoolhealth.NodePoolHealth;
import sh.karpenter.controller.state.nodepoolhealth.Status;
import sh.karpenter.core.cloudprovider.CloudProvider;

/**
 * A NodePool's {@code NodeRegistrationHealthy} condition, from the pool's recent launch outcomes in
 * {@link NodePoolHealth} (docs/behaviour/nodeclaim-lifecycle.md#registration-health).
 *
 * <p>The NodeClaim lifecycle reports outcomes: {@link #registered} when a NodeClaim of the pool
 * registers (sets True once the outcomes would be healthy), {@link #failed} when liveness deletes one
 * that did not launch or register in time (sets False once they would be unhealthy, with the reason
 * of a failed launch or {@code RegistrationFailed}). Only NodeClaims the pool owns count (upstream
 * lifecycle's {@code updateNodePoolRegistrationHealth}).
 *
 * <p>As the {@code nodepool.registrationhealth} controller, keyed by NodePool name (upstream
 * nodepool/registrationhealth), it sets the condition Unknown and forgets the outcomes when the pool
 * has no such condition yet, or its spec or its NodeClass's spec changed since (the condition's
 * {@code observedGeneration} and {@code status.nodeClassObservedGeneration}); after a restart it
 * re-creates the outcomes from the condition. Pools whose NodeClass kind the cloud provider does not
 * support, or whose NodeClass does not exist, are left alone. No informer watches NodeClasses, so it
 * requeues every {@link NodePoolReadiness#RECHECK}.
 *
 * <p>The condition is not one of {@code Ready}'s dependents, so it never makes a pool unready, and the
 * provisioner does not read it (as upstream v1.15).
 */
public final class NodePoolRegistrationHealth implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(NodePoolRegistrationHealth.class);

  public static final String NAME = "nodepool.registrationhealth";
  /** Reason of a False condition after NodeClaims launched but their Nodes did not register. */
  static final String REGISTRATION_FAILED = "RegistrationFailed";
  /** operatorpkg's reason and message of a condition set Unknown. */
  static final String AWAITING_RECONCILIATION = "AwaitingReconciliation";
  static final String AWAITING_MESSAGE = "object is awaiting reconciliation";

  private final CloudProvider cloudProvider;
  private final NodeClasses nodeClasses;
  private final NodePoolStatusWriter writer;
  private final NodePoolHealth health;

  public NodePoolRegistrationHealth(KubernetesClient client, Informers informers, CloudProvider cloudProvider, Clock clock,
      Metrics metrics, NodePoolHealth health) {
    this.cloudProvider = cloudProvider;
    this.nodeClasses = new NodeClasses(client);
    this.writer = new NodePoolStatusWriter(client, informers, clock, metrics);
    this.health = health;
  }

  @Override
  public Result reconcile(String name) {
    NodePool pool = writer.get(name);
    if (pool == null) {
      return Result.done();
    }
    NodeClassReference ref = NodePoolReadiness.nodeClassRef(pool);
    if (!NodeClasses.complete(ref) || !NodeClaims.supports(cloudProvider, ref)) {
      return Result.done();
    }
    GenericKubernetesResource nodeClass = nodeClasses.get(ref);
    if (nodeClass != null) {
      long nodeClassGeneration = orZero(nodeClass.getMetadata().getGeneration());
      writer.update(name, (working, now) -> observe(working, nodeClassGeneration, health, now));
    }
    return Result.requeueAfter(NodePoolReadiness.RECHECK);
  }

  /**
   * What the controller does to the working copy of a pool whose NodeClass is at {@code
   * nodeClassGeneration}: re-creates empty outcomes from the condition, resets condition and outcomes
   * when the pool or its NodeClass changed, and records the NodeClass generation.
   */
  static void observe(NodePool working, long nodeClassGeneration, NodePoolHealth health, Instant now) {
    String uid = working.getMetadata().getUid();
    Optional<Condition> condition = condition(working);
    if (health.status(uid) == Status.UNKNOWN) {
      // A restart: the condition remembers what the lost outcomes said.
      condition.map(Condition::getStatus).ifPresent(status -> {
        if (Conditions.TRUE.equals(status)) {
          health.setStatus(uid, Status.HEALTHY);
        } else if (Conditions.FALSE.equals(status)) {
          health.setStatus(uid, Status.UNHEALTHY);
        }
      });
    }
    if (condition.isEmpty()
        || orZero(working.getStatus().getNodeClassObservedGeneration()) != nodeClassGeneration
        || !Objects.equals(working.getMetadata().getGeneration(), condition.get().getObservedGeneration())) {
      NodePoolConditions.set(working, NODE_REGISTRATION_HEALTHY, Conditions.UNKNOWN, AWAITING_RECONCILIATION, AWAITING_MESSAGE, now);
      health.setStatus(uid, Status.UNKNOWN);
    }
    working.getStatus().setNodeClassObservedGeneration(nodeClassGeneration);
  }

  /** A NodeClaim registered its Node. */
  public void registered(NodeClaim nodeClaim) {
    record(nodeClaim, true);
  }

  /** Liveness deleted a NodeClaim that did not launch or whose Node did not register in time. */
  public void failed(NodeClaim nodeClaim) {
    record(nodeClaim, false);
  }

  /**
   * Writes the condition the outcome leads to, then records the outcome. A failed write is logged
   * and the outcome dropped, as upstream drops it when its patch fails.
   */
  private void record(NodeClaim nodeClaim, boolean registered) {
    String poolName = NodeClaims.nodePool(nodeClaim);
    if (poolName.isEmpty()) {
      return;
    }
    NodePool pool = writer.get(poolName);
    if (pool == null || !ownedBy(nodeClaim, pool)) {
      return;
    }
    String uid = pool.getMetadata().getUid();
    try {
      writer.update(poolName, (working, now) -> {
        if (uid.equals(working.getMetadata().getUid())) {
          outcome(working, nodeClaim, registered, health.dryRun(uid, registered), now);
        }
      });
    } catch (RuntimeException e) {
      LOG.atWarn().setMessage("updating the registration health of the nodepool failed")
          .addKeyValue("NodePool", LogValues.ref(poolName)).addKeyValue("NodeClaim", LogValues.ref(nodeClaim.getMetadata().getName()))
          .addKeyValue("error", e.getMessage()).log();
      return;
    }
    health.update(uid, registered);
  }

  /**
   * What an outcome does to the working copy of the pool, given the status the pool's outcomes would
   * have with it: a registration that leaves them Healthy sets True; a failure that leaves them
   * Unhealthy sets False unless it is False already (a NodeClaim that launched: {@code
   * RegistrationFailed}; one that did not: its {@code Launched} reason and message). Anything else
   * leaves the condition as it is.
   */
  static void outcome(NodePool working, NodeClaim nodeClaim, boolean registered, Status after, Instant now) {
    if (registered) {
      if (after == Status.HEALTHY) {
        NodePoolConditions.set(working, NODE_REGISTRATION_HEALTHY, Conditions.TRUE, NODE_REGISTRATION_HEALTHY, "", now);
      }
      return;
    }
    if (after != Status.UNHEALTHY || condition(working).map(c -> Conditions.FALSE.equals(c.getStatus())).orElse(false)) {
      return;
    }
    List<Condition> claimConditions = nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getConditions();
    Optional<Condition> launched = Conditions.get(claimConditions, LAUNCHED);
    if (Conditions.isTrue(claimConditions, LAUNCHED) || launched.isEmpty()) {
      NodePoolConditions.set(working, NODE_REGISTRATION_HEALTHY, Conditions.FALSE, REGISTRATION_FAILED, "Failed to register node", now);
    } else {
      NodePoolConditions.set(working, NODE_REGISTRATION_HEALTHY, Conditions.FALSE,
          StatusConditions.reason(launched.get().getReason(), "LaunchFailed"), launched.get().getMessage(), now);
    }
  }

  /** Whether the NodeClaim has an owner reference to this very pool (kind and UID). */
  static boolean ownedBy(NodeClaim nodeClaim, NodePool pool) {
    List<OwnerReference> owners = nodeClaim.getMetadata().getOwnerReferences();
    return owners != null && owners.stream()
        .anyMatch(o -> NodePool.KIND.equals(o.getKind()) && Objects.equals(o.getUid(), pool.getMetadata().getUid()));
  }

  private static Optional<Condition> condition(NodePool pool) {
    return Conditions.get(pool.getStatus() == null ? null : pool.getStatus().getConditions(), NODE_REGISTRATION_HEALTHY);
  }

  private static long orZero(Long value) {
    return value == null ? 0 : value;
  }
}
