package sh.karpenter.controller.nodepool;

import java.time.Instant;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.runtime.writes.StatusConditions;

/** Sets one of a NodePool's conditions and recomputes its {@code Ready} root condition. */
final class NodePoolConditions {
  private NodePoolConditions() {}

  /** Sets the condition on the working copy (whose status is not null) and rolls {@code Ready} up. */
  static void set(NodePool pool, String type, String status, String reason, String message, Instant now) {
    Long generation = pool.getMetadata().getGeneration();
    var conditions = Conditions.set(pool.getStatus().getConditions(), type, status, reason, message, now, generation);
    pool.getStatus().setConditions(StatusConditions.rollUp(conditions, StatusConditions.NODE_POOL_DEPENDENTS, now, generation));
  }
}
