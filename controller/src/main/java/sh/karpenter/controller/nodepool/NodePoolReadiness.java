package sh.karpenter.controller.nodepool;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;

/**
 * The {@code nodepool.readiness} controller, keyed by NodePool name: sets {@code NodeClassReady} from
 * the NodeClass the pool's {@code nodeClassRef} names, looked up generically by group, kind and name
 * (the API server's preferred version of the group): True when it exists, is not being deleted and its
 * {@code Ready} condition is not False; else False with the reason.
 *
 * <p>Unlike upstream, a NodeClass whose {@code Ready} is Unknown or missing counts as ready: nothing in
 * this port maintains NodeClass status (the KWOKNodeClass CRD only defaults it to Ready=True). No
 * informer watches NodeClasses, so the result requeues every {@link #RECHECK}.
 */
public final class NodePoolReadiness implements Reconciler<String> {
  public static final String NAME = "nodepool.readiness";
  /** How often a NodeClass is looked at again. */
  static final Duration RECHECK = Duration.ofSeconds(30);

  /** The NodeClassReady verdict. */
  record Verdict(String status, String reason, String message) {}

  private final NodeClasses nodeClasses;
  private final NodePoolStatusWriter writer;

  public NodePoolReadiness(KubernetesClient client, Informers informers, Clock clock, Metrics metrics) {
    this.nodeClasses = new NodeClasses(client);
    this.writer = new NodePoolStatusWriter(client, informers, clock, metrics);
  }

  @Override
  public Result reconcile(String name) {
    NodePool pool = writer.get(name);
    if (pool == null) {
      return Result.done();
    }
    Verdict verdict = verdict(nodeClassRef(pool));
    writer.update(name, (working, now) ->
        NodePoolConditions.set(working, ConditionTypes.NODE_CLASS_READY, verdict.status(), verdict.reason(), verdict.message(), now));
    return Result.requeueAfter(RECHECK);
  }

  /** The pool's {@code spec.template.spec.nodeClassRef}, or null. */
  public static NodeClassReference nodeClassRef(NodePool pool) {
    var spec = pool.getSpec();
    if (spec == null || spec.getTemplate() == null || spec.getTemplate().getSpec() == null) {
      return null;
    }
    return spec.getTemplate().getSpec().getNodeClassRef();
  }

  private Verdict verdict(NodeClassReference ref) {
    if (!NodeClasses.complete(ref)) {
      return new Verdict(Conditions.FALSE, "NodeClassNotFound", "nodeClassRef is incomplete");
    }
    return verdict(nodeClasses.get(ref));
  }

  /** The verdict on a NodeClass object (null when it does not exist). */
  static Verdict verdict(GenericKubernetesResource nodeClass) {
    if (nodeClass == null) {
      return new Verdict(Conditions.FALSE, "NodeClassNotFound", "NodeClass not found on cluster");
    }
    if (Metadata.deleting(nodeClass)) {
      return new Verdict(Conditions.FALSE, "NodeClassTerminating", "NodeClass is Terminating");
    }
    Map<String, Object> ready = readyCondition(nodeClass);
    if (ready != null && Conditions.FALSE.equals(ready.get("status"))) {
      String reason = ready.get("reason") instanceof String r && !r.isEmpty() ? r : "NodeClassNotReady";
      String message = ready.get("message") instanceof String m ? m : "";
      return new Verdict(Conditions.FALSE, reason, message);
    }
    return new Verdict(Conditions.TRUE, ConditionTypes.NODE_CLASS_READY, "");
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> readyCondition(GenericKubernetesResource nodeClass) {
    Object status = nodeClass.getAdditionalProperties().get("status");
    if (!(status instanceof Map<?, ?> statusMap) || !(statusMap.get("conditions") instanceof List<?> conditions)) {
      return null;
    }
    for (Object condition : conditions) {
      if (condition instanceof Map<?, ?> map && ConditionTypes.READY.equals(map.get("type"))) {
        return (Map<String, Object>) map;
      }
    }
    return null;
  }

}
