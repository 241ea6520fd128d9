package sh.karpenter.controller.nodeclaim.lifecycle;

import static sh.karpenter.api.v1.ConditionTypes.INITIALIZED;
import static sh.karpenter.api.v1.ConditionTypes.LAUNCHED;
import static sh.karpenter.api.v1.ConditionTypes.REGISTERED;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.math.BigDecimal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * Initialization: a registered NodeClaim is initialized once its Node is Ready, its startupTaints and
 * the known ephemeral taints are gone, and every extended resource it requested shows non-zero
 * allocatable (a device plugin has registered it). Then the Node is labelled {@code
 * karpenter.sh/initialized=true} and {@code Initialized=True} is set.
 */
final class Initialization implements Step {
  private static final Logger LOG = LoggerFactory.getLogger(Initialization.class);

  /** How often to look again at a Node that is not initialized yet (Node events normally come first). */
  static final Duration POLL = Duration.ofSeconds(5);

  /** Why a Node is not initialized yet: the {@code Initialized} condition's reason and message. */
  record Blocker(String reason, String message) {}

  private final KubernetesClient client;
  private final Informers informers;

  Initialization(KubernetesClient client, Informers informers) {
    this.client = client;
    this.informers = informers;
  }

  @Override
  public Result reconcile(LifecycleState state) {
    if (state.isTrue(INITIALIZED)) {
      return Result.done();
    }
    if (!state.isTrue(LAUNCHED)) {
      state.setCondition(INITIALIZED, Conditions.UNKNOWN, "NotLaunched", "Node not launched");
      return Result.done();
    }
    if (!state.isTrue(REGISTERED)) {
      state.setCondition(INITIALIZED, Conditions.UNKNOWN, "NotRegistered", "Node not registered with cluster");
      return Result.done();
    }
    NodeClaim nodeClaim = state.nodeClaim();
    Node node = state.node();
    if (node == null) {
      List<Node> nodes = NodeClaims.nodesFor(informers, Metadata.providerId(nodeClaim));
      node = nodes.size() == 1 ? nodes.getFirst() : null;
    }
    if (node == null) {
      state.setCondition(INITIALIZED, Conditions.UNKNOWN, "NodeNotFound", "Node not registered with cluster");
      return Result.requeueAfter(POLL);
    }
    Optional<Blocker> blocker = blocker(node, nodeClaim);
    if (blocker.isPresent()) {
      state.setCondition(INITIALIZED, Conditions.UNKNOWN, blocker.get().reason(), blocker.get().message());
      return Result.requeueAfter(POLL);
    }
    if (!"true".equals(labels(node).get(Labels.NODE_INITIALIZED))) {
      try {
        // Adding one label needs no lock: a merge patch leaves the other labels alone.
        OptimisticWrites.mergePatch(client.nodes().withName(node.getMetadata().getName()), client.getKubernetesSerialization(), null,
            OptimisticWrites.metadata(Map.of("labels", Map.of(Labels.NODE_INITIALIZED, "true"))));
      } catch (RuntimeException e) {
        if (OptimisticWrites.isNotFound(e)) {
          state.setCondition(INITIALIZED, Conditions.UNKNOWN, "NodeNotFound", "Node not registered with cluster");
          return Result.requeueAfter(POLL);
        }
        state.fail(e);
        return Result.done();
      }
    }
    state.setCondition(INITIALIZED, Conditions.TRUE, INITIALIZED, "");
    String name = nodeClaim.getMetadata().getName();
    Node initialized = node;
    state.afterWrite(() -> LOG.atInfo().setMessage("initialized nodeclaim").addKeyValue("NodeClaim", LogValues.ref(name))
        .addKeyValue("Node", LogValues.ref(initialized.getMetadata().getName()))
        .addKeyValue("allocatable", initialized.getStatus() == null ? null : initialized.getStatus().getAllocatable()).log());
    return Result.done();
  }

  /** What still keeps the Node from being initialized, or empty when nothing does. */
  static Optional<Blocker> blocker(Node node, NodeClaim nodeClaim) {
    if (!Metadata.ready(node)) {
      return Optional.of(new Blocker("NodeNotReady", "Node status is NotReady"));
    }
    List<Taint> taints = node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
    List<Taint> startupTaints =
        nodeClaim.getSpec() == null || nodeClaim.getSpec().getStartupTaints() == null ? List.of() : nodeClaim.getSpec().getStartupTaints();
    for (Taint startup : startupTaints) {
      Optional<Taint> present = taints.stream().filter(t -> TaintSync.matches(t, startup)).findFirst();
      if (present.isPresent()) {
        return Optional.of(new Blocker("StartupTaintsExist", "StartupTaint \"" + format(present.get()) + "\" still exists"));
      }
    }
    for (Taint taint : taints) {
      if (taint.getKey() != null && TaintKeys.isKnownEphemeral(taint.getKey())) {
        return Optional.of(new Blocker("KnownEphemeralTaintsExist", "KnownEphemeralTaint \"" + format(taint) + "\" still exists"));
      }
    }
    Map<String, Quantity> requests = nodeClaim.getSpec() == null || nodeClaim.getSpec().getResources() == null
        || nodeClaim.getSpec().getResources().getRequests() == null ? Map.of() : nodeClaim.getSpec().getResources().getRequests();
    Map<String, Quantity> allocatable =
        node.getStatus() == null || node.getStatus().getAllocatable() == null ? Map.of() : node.getStatus().getAllocatable();
    for (Map.Entry<String, Quantity> request : requests.entrySet()) {
      if (isExtended(request.getKey()) && !isZero(request.getValue()) && isZero(allocatable.get(request.getKey()))) {
        return Optional.of(new Blocker("ResourceNotRegistered", "Resource \"" + request.getKey() + "\" was requested but not registered"));
      }
    }
    return Optional.empty();
  }

  /**
   * Kubernetes' extended resources: names with a domain outside {@code kubernetes.io} (device plugin
   * resources such as {@code nvidia.com/gpu}), as opposed to cpu, memory, pods, ephemeral-storage and
   * hugepages, which the kubelet reports from the start.
   */
  static boolean isExtended(String name) {
    int slash = name.indexOf('/');
    if (slash < 0 || name.startsWith("requests.")) {
      return false;
    }
    String domain = name.substring(0, slash);
    return !domain.equals("kubernetes.io") && !domain.endsWith(".kubernetes.io");
  }

  private static boolean isZero(Quantity quantity) {
    if (quantity == null) {
      return true;
    }
    try {
      return Quantity.getAmountInBytes(quantity).compareTo(BigDecimal.ZERO) == 0;
    } catch (IllegalArgumentException | ArithmeticException e) {
      return true;
    }
  }

  private static String format(Taint taint) {
    String value = taint.getValue() == null || taint.getValue().isEmpty() ? "" : "=" + taint.getValue();
    return taint.getKey() + value + ":" + taint.getEffect();
  }

  private static Map<String, String> labels(Node node) {
    return node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
  }
}
