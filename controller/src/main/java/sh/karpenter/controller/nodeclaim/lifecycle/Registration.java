package sh.karpenter.controller.nodeclaim.lifecycle;

import static sh.karpenter.api.v1.ConditionTypes.LAUNCHED;
import static sh.karpenter.api.v1.ConditionTypes.REGISTERED;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.nodepool.NodePoolRegistrationHealth;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.core.wellknown.Finalizers;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * Registration: finds the Node that joined with the NodeClaim's providerID and makes it Karpenter's:
 * the NodeClaim's labels, annotations and taints ({@link TaintSync}), the termination finalizer and an
 * owner reference to the NodeClaim; then removes {@code karpenter.sh/unregistered}, labels the Node
 * {@code karpenter.sh/registered=true} and sets {@code Registered=True} and {@code status.nodeName}.
 * Once that is written, the registration counts towards the NodePool's registration health.
 */
final class Registration implements Step {
  private static final Logger LOG = LoggerFactory.getLogger(Registration.class);

  /** How often to look again for a Node that has not joined yet (Node events normally come first). */
  static final Duration POLL = Duration.ofSeconds(5);
  static final String NODE_NOT_FOUND = "NodeNotFound";
  static final String MULTIPLE_NODES_FOUND = "MultipleNodesFound";
  /** Event reason (docs/behaviour/observability.md#events). */
  static final String UNREGISTERED_TAINT_MISSING = "UnregisteredTaintMissing";

  private final KubernetesClient client;
  private final Informers informers;
  private final EventRecorder events;
  private final Metrics metrics;
  private final NodePoolRegistrationHealth registrationHealth;

  Registration(KubernetesClient client, Informers informers, EventRecorder events, Metrics metrics,
      NodePoolRegistrationHealth registrationHealth) {
    this.client = client;
    this.informers = informers;
    this.events = events;
    this.metrics = metrics;
    this.registrationHealth = registrationHealth;
  }

  @Override
  public Result reconcile(LifecycleState state) {
    if (!Conditions.isUnknown(state.conditions(), REGISTERED) || !state.isTrue(LAUNCHED)) {
      return Result.done();
    }
    NodeClaim nodeClaim = state.nodeClaim();
    List<Node> nodes = NodeClaims.nodesFor(informers, Metadata.providerId(nodeClaim));
    if (nodes.isEmpty()) {
      state.setCondition(REGISTERED, Conditions.UNKNOWN, NODE_NOT_FOUND, "Node not registered with cluster");
      return Result.requeueAfter(POLL);
    }
    if (nodes.size() > 1) {
      state.setCondition(REGISTERED, Conditions.FALSE, MULTIPLE_NODES_FOUND, "Invariant violated, matched multiple nodes");
      return Result.done();
    }
    Node node = nodes.getFirst();
    String name = nodeClaim.getMetadata().getName();
    if (!isRegistered(node) && !TaintSync.hasUnregisteredTaint(node)) {
      LOG.atError().setMessage("node lacks the " + TaintKeys.UNREGISTERED + " taint that prevents registration-related races")
          .addKeyValue("NodeClaim", LogValues.ref(name)).addKeyValue("Node", LogValues.ref(node.getMetadata().getName())).log();
      events.warning(nodeClaim, UNREGISTERED_TAINT_MISSING, "Missing " + TaintKeys.UNREGISTERED
          + " taint which prevents registration related race conditions on Karpenter-managed nodes");
    }
    Node synced;
    try {
      synced = sync(node, nodeClaim);
    } catch (RuntimeException e) {
      state.fail(new IllegalStateException("syncing node " + node.getMetadata().getName() + " for nodeclaim " + name + ": " + e.getMessage(), e));
      return Result.done();
    }
    if (synced == null) {
      state.setCondition(REGISTERED, Conditions.UNKNOWN, NODE_NOT_FOUND, "Node not registered with cluster");
      return Result.requeueAfter(POLL);
    }
    state.node(synced);
    state.status().setNodeName(synced.getMetadata().getName());
    state.setCondition(REGISTERED, Conditions.TRUE, REGISTERED, "");
    String nodePool = NodeClaims.nodePool(nodeClaim);
    state.afterWrite(() -> {
      LOG.atInfo().setMessage("registered nodeclaim").addKeyValue("NodeClaim", LogValues.ref(name))
          .addKeyValue("Node", LogValues.ref(synced.getMetadata().getName())).log();
      metrics.nodeCreated(nodePool);
      registrationHealth.registered(nodeClaim);
    });
    return Result.done();
  }

  /** Patches the Node until it carries what {@link #syncPatch} asks for; null when the Node vanished. */
  private Node sync(Node node, NodeClaim nodeClaim) {
    String name = node.getMetadata().getName();
    return OptimisticWrites.retryOnConflict(node, current -> {
      if (current == null) {
        return null;
      }
      Map<String, Object> patch = syncPatch(current, nodeClaim);
      if (patch.isEmpty()) {
        return current;
      }
      try {
        return OptimisticWrites.mergePatch(client.nodes().withName(name),
            client.getKubernetesSerialization(), current.getMetadata().getResourceVersion(), patch);
      } catch (RuntimeException e) {
        if (OptimisticWrites.isNotFound(e)) {
          return null;
        }
        throw e;
      }
    }, () -> client.nodes().withName(name).get());
  }

  /**
   * The merge patch (without resourceVersion) that registers {@code node} for {@code nodeClaim}: only
   * the fields that change. Empty when the Node is already in sync.
   */
  static Map<String, Object> syncPatch(Node node, NodeClaim nodeClaim) {
    Map<String, Object> metadata = new LinkedHashMap<>();
    Map<String, String> labels = merged(node.getMetadata().getLabels(), nodeClaim.getMetadata().getLabels());
    labels.put(Labels.NODE_REGISTERED, "true");
    if (!labels.equals(orEmpty(node.getMetadata().getLabels()))) {
      metadata.put("labels", labels);
    }
    Map<String, String> annotations = merged(node.getMetadata().getAnnotations(), nodeClaim.getMetadata().getAnnotations());
    if (!annotations.equals(orEmpty(node.getMetadata().getAnnotations()))) {
      metadata.put("annotations", annotations);
    }
    if (!Metadata.hasFinalizer(node, Finalizers.TERMINATION)) {
      metadata.put("finalizers", OptimisticWrites.withFinalizer(node, Finalizers.TERMINATION));
    }
    List<OwnerReference> owners =
        new ArrayList<>(node.getMetadata().getOwnerReferences() == null ? List.of() : node.getMetadata().getOwnerReferences());
    if (owners.stream().noneMatch(o -> Objects.equals(o.getUid(), nodeClaim.getMetadata().getUid()))) {
      owners.add(NodeClaims.ownerReference(nodeClaim));
      metadata.put("ownerReferences", owners);
    }
    Map<String, Object> patch = new LinkedHashMap<>();
    if (!metadata.isEmpty()) {
      patch.put("metadata", metadata);
    }
    var taints = TaintSync.registered(node, nodeClaim);
    var current = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    if (!taints.equals(current)) {
      patch.put("spec", Map.of("taints", taints));
    }
    return patch;
  }

  static boolean isRegistered(Node node) {
    return "true".equals(orEmpty(node.getMetadata().getLabels()).get(Labels.NODE_REGISTERED));
  }

  private static Map<String, String> merged(Map<String, String> base, Map<String, String> overrides) {
    Map<String, String> merged = new LinkedHashMap<>(orEmpty(base));
    merged.putAll(orEmpty(overrides));
    return merged;
  }

  private static Map<String, String> orEmpty(Map<String, String> map) {
    return map == null ? Map.of() : map;
  }
}
