package sh.karpenter.controller.nodepool;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.List;
import java.util.stream.Collectors;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.validation.ValidationError;
import sh.karpenter.api.validation.Validator;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;

/**
 * The {@code nodepool.validation} controller, keyed by NodePool name: runs upstream's runtime
 * validation (the rules the CRD cannot express: qualified label and taint keys, label-value syntax of
 * requirement values, a taint key and effect repeated across taints and startupTaints) through api's
 * {@link Validator} and sets {@code ValidationSucceeded}; an invalid NodePool also gets a Warning
 * event naming the fields.
 */
public final class NodePoolValidation implements Reconciler<String> {
  public static final String NAME = "nodepool.validation";
  /** Condition reason and event reason of an invalid NodePool (upstream's condition reason). */
  public static final String VALIDATION_FAILED = "NodePoolValidationFailed";
  private static final int MAX_MESSAGE = 4096;

  private final NodePoolStatusWriter writer;
  private final EventRecorder events;

  public NodePoolValidation(KubernetesClient client, Informers informers, Clock clock, EventRecorder events, Metrics metrics) {
    this.writer = new NodePoolStatusWriter(client, informers, clock, metrics);
    this.events = events;
  }

  @Override
  public Result reconcile(String name) {
    NodePool pool = writer.get(name);
    if (pool == null) {
      return Result.done();
    }
    String problems = problems(pool);
    if (problems.isEmpty()) {
      writer.update(name, (working, now) ->
          NodePoolConditions.set(working, ConditionTypes.VALIDATION_SUCCEEDED, Conditions.TRUE, ConditionTypes.VALIDATION_SUCCEEDED, "", now));
    } else {
      writer.update(name, (working, now) ->
          NodePoolConditions.set(working, ConditionTypes.VALIDATION_SUCCEEDED, Conditions.FALSE, VALIDATION_FAILED, problems, now));
      events.warning(pool, VALIDATION_FAILED, problems);
    }
    return Result.done();
  }

  /** The validation errors as {@code field: message; ...}, or "" when the NodePool is valid. */
  static String problems(NodePool pool) {
    List<ValidationError> errors = Validator.standard().validateNodePool(asManifest(pool), "NodePool/" + pool.getMetadata().getName());
    String joined = errors.stream()
        .map(e -> e.fieldPath().isEmpty() ? e.message() : e.fieldPath() + ": " + e.message())
        .collect(Collectors.joining("; "));
    return joined.length() <= MAX_MESSAGE ? joined : joined.substring(0, MAX_MESSAGE) + "...";
  }

  /** The NodePool as a manifest would have it: name and spec only (server fields and status are not validated). */
  private static NodePool asManifest(NodePool pool) {
    NodePool manifest = new NodePool();
    manifest.setMetadata(new ObjectMetaBuilder().withName(pool.getMetadata().getName()).build());
    manifest.setSpec(pool.getSpec());
    return manifest;
  }
}
