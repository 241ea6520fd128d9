package sh.karpenter.controller.nodeclaim.lifecycle;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;

/**
 * One reconcile of one NodeClaim: the working copy the steps change, the time they all use, and what
 * must happen only once the changes are written (metrics, logs), so that a write that fails with a
 * conflict and is retried does not count twice.
 */
final class LifecycleState {
  private final NodeClaim nodeClaim;
  private final Instant now;
  private final List<Runnable> afterWrite = new ArrayList<>();
  private boolean deleted;
  private RuntimeException failure;
  private Node node;

  LifecycleState(NodeClaim nodeClaim, Instant now) {
    this.nodeClaim = nodeClaim;
    this.now = now;
    if (nodeClaim.getStatus() == null) {
      nodeClaim.setStatus(new NodeClaimStatus());
    }
  }

  /** The working copy (never the informer's object). */
  NodeClaim nodeClaim() {
    return nodeClaim;
  }

  NodeClaimStatus status() {
    return nodeClaim.getStatus();
  }

  Instant now() {
    return now;
  }

  List<Condition> conditions() {
    return status().getConditions();
  }

  boolean isTrue(String type) {
    return Conditions.isTrue(conditions(), type);
  }

  void setCondition(String type, String status, String reason, String message) {
    status().setConditions(
        Conditions.set(conditions(), type, status, reason, message, now, nodeClaim.getMetadata().getGeneration()));
  }

  /** Runs {@code action} after the NodeClaim's changes are written (or, if it was deleted, at the end). */
  void afterWrite(Runnable action) {
    afterWrite.add(action);
  }

  List<Runnable> afterWriteActions() {
    return afterWrite;
  }

  /** The NodeClaim was deleted by a step: later steps and the status write are skipped. */
  void markDeleted() {
    deleted = true;
  }

  boolean deleted() {
    return deleted;
  }

  /** A step failed: the reconcile writes what it has, then throws this for the runtime's backoff. */
  void fail(RuntimeException e) {
    if (failure == null) {
      failure = e;
    } else {
      failure.addSuppressed(e);
    }
  }

  RuntimeException failure() {
    return failure;
  }

  /** The registered Node as the last step saw it, so later steps need not look it up again. */
  Node node() {
    return node;
  }

  void node(Node node) {
    this.node = node;
  }
}
