package sh.karpenter.controller.provisioning;

import io.fabric8.kubernetes.api.model.Binding;
import io.fabric8.kubernetes.api.model.BindingBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.controller.state.PodRef;
import sh.karpenter.core.wellknown.TaintKeys;

/**
 * The {@code provisioner.prebind} controller (flag {@code --prebind}), keyed by NodeClaim name: binds
 * the pods the provisioner planned onto a new NodeClaim to its Node as soon as the Node registers,
 * instead of waiting for kube-scheduler to retry them once the Node is Ready ("Karpenter optimistically
 * creates the Node object and binds the pod").
 *
 * <p>It binds only after registration removed {@code karpenter.sh/unregistered:NoExecute}; earlier the
 * taint-eviction controller would evict the pods again. It does not wait for the Node to be Ready: the
 * known ephemeral taints (not-ready, unreachable, uninitialized, {@code readiness.k8s.io/*}) do not
 * hold a binding back, that wait is what pre-binding saves. Every other taint does unless the pod
 * tolerates it — startup taints in particular exist to keep pods off until an agent (a CNI, say) is
 * ready, so pods wait for them like kube-scheduler would. Each Binding
 * goes to the pod's {@code pods/binding} subresource with the pod's UID, so the API server refuses
 * to bind a later pod of the same name; a pod kube-scheduler bound first is answered with 409
 * Conflict, which is fine. Pods that are gone, replaced, bound, terminating, finished, or that do not
 * tolerate a taint that holds them back are left alone (to kube-scheduler). The prebindings
 * of a NodeClaim are dropped once handled, or when the NodeClaim or its Node is deleted.
 */
public final class Prebinder implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(Prebinder.class);

  /** Controller name (metrics, logs). */
  public static final String NAME = "provisioner.prebind";
  /** Safety net while waiting for the Node to register: Node and NodeClaim events normally come first. */
  static final Duration NODE_POLL = Duration.ofSeconds(5);

  /** Why a recorded pod is not bound; {@link #BIND} when it should be. */
  enum Decision {
    BIND,
    GONE,
    REPLACED,
    BOUND,
    TERMINATING,
    FINISHED,
    UNTOLERATED
  }

  /** What the API server answered to a Binding. */
  private enum Outcome {
    BOUND,
    CONFLICT,
    GONE,
    FAILED
  }

  private final KubernetesClient client;
  private final Informers informers;
  private final ClusterState state;
  private final Clock clock;

  /** Upstream has no event reason for a binding Karpenter made, so outcomes are logged, not published. */
  public Prebinder(KubernetesClient client, Informers informers, ClusterState state, Clock clock) {
    this.client = client;
    this.informers = informers;
    this.state = state;
    this.clock = clock;
  }

  @Override
  public Result reconcile(String name) {
    List<PodRef> refs = state.prebindings(name);
    if (refs.isEmpty()) {
      return Result.done();
    }
    NodeClaim claim = NodeClaims.get(client, informers, name);
    if (claim == null || Metadata.deleting(claim)) {
      state.takePrebindings(name);
      LOG.debug("nodeclaim {} is gone or deleting; dropped {} prebindings", name, refs.size());
      return Result.done();
    }
    List<Node> nodes = NodeClaims.nodesFor(informers, Metadata.providerId(claim));
    if (nodes.size() > 1) {
      state.takePrebindings(name);
      LOG.warn("nodeclaim {} matches {} nodes; leaving its {} pods to kube-scheduler", name, nodes.size(), refs.size());
      return Result.done();
    }
    Node node = nodes.isEmpty() ? null : nodes.getFirst();
    if (node != null && Metadata.deleting(node)) {
      state.takePrebindings(name);
      LOG.debug("node {} of nodeclaim {} is deleting; dropped {} prebindings", node.getMetadata().getName(), name, refs.size());
      return Result.done();
    }
    if (node == null || !registered(node)) {
      if (refs.stream().noneMatch(ref -> decide(ref, pod(ref), null) == Decision.BIND)) {
        state.takePrebindings(name); // kube-scheduler or someone else took care of every pod meanwhile
        return Result.done();
      }
      return Result.requeueAfter(NODE_POLL);
    }
    return bind(claim, node, refs);
  }

  private Result bind(NodeClaim claim, Node node, List<PodRef> refs) {
    String name = claim.getMetadata().getName();
    String nodeName = node.getMetadata().getName();
    Map<Decision, Integer> skipped = new EnumMap<>(Decision.class);
    List<PodRef> toBind = new ArrayList<>();
    for (PodRef ref : refs) {
      Decision decision = decide(ref, pod(ref), node);
      if (decision == Decision.BIND) {
        toBind.add(ref);
      } else {
        skipped.merge(decision, 1, Integer::sum);
      }
    }
    List<Future<Outcome>> futures = new ArrayList<>(toBind.size());
    try (ExecutorService executor = Executors.newVirtualThreadPerTaskExecutor()) {
      for (PodRef ref : toBind) {
        futures.add(executor.submit(() -> bindOne(ref, nodeName)));
      }
    }
    Map<Outcome, Integer> outcomes = new EnumMap<>(Outcome.class);
    List<PodRef> failed = new ArrayList<>();
    for (int i = 0; i < toBind.size(); i++) {
      Outcome outcome;
      try {
        outcome = futures.get(i).get();
      } catch (Exception e) {
        outcome = Outcome.FAILED;
      }
      outcomes.merge(outcome, 1, Integer::sum);
      if (outcome == Outcome.FAILED) {
        failed.add(toBind.get(i));
      }
    }
    state.takePrebindings(name);
    LOG.info("prebound pods nodeClaim={} node={} bound={} alreadyBoundOrReplaced={} gone={} skipped={} failed={} sinceCreation={}",
        name, nodeName, outcomes.getOrDefault(Outcome.BOUND, 0), outcomes.getOrDefault(Outcome.CONFLICT, 0),
        outcomes.getOrDefault(Outcome.GONE, 0), skipped, failed.size(), sinceCreation(claim));
    if (!failed.isEmpty()) {
      state.prebind(name, failed);
      throw new IllegalStateException("binding " + failed.size() + " pods to node " + nodeName + " failed; retrying");
    }
    return Result.done();
  }

  private Outcome bindOne(PodRef ref, String nodeName) {
    Binding binding = new BindingBuilder()
        .withNewMetadata().withNamespace(ref.namespace()).withName(ref.name()).withUid(ref.uid()).endMetadata()
        .withNewTarget().withApiVersion("v1").withKind("Node").withName(nodeName).endTarget()
        .build();
    try {
      // The pods/binding subresource, not the bindings() collection: only the subresource holds the
      // binding to metadata.uid (the collection ignores it), and fabric8 has no DSL for it.
      client.raw("/api/v1/namespaces/" + ref.namespace() + "/pods/" + ref.name() + "/binding", "POST", binding);
      return Outcome.BOUND;
    } catch (KubernetesClientException e) {
      if (e.getCode() == 409) {
        // already assigned (kube-scheduler got there first), another pod of that name, or terminating
        LOG.debug("pod {} not bound to {}: {}", ref.key(), nodeName, e.getMessage());
        return Outcome.CONFLICT;
      }
      if (e.getCode() == 404) {
        return Outcome.GONE;
      }
      LOG.warn("binding pod {} to node {}: {}", ref.key(), nodeName, e.getMessage());
      return Outcome.FAILED;
    } catch (RuntimeException e) {
      LOG.warn("binding pod {} to node {}: {}", ref.key(), nodeName, e.toString());
      return Outcome.FAILED;
    }
  }

  private Pod pod(PodRef ref) {
    return informers.pods().getStore().getByKey(ref.key());
  }

  /**
   * Whether to bind the recorded pod (as the informer has it, null when gone) to the Node; with a
   * null Node only the pod itself is judged.
   */
  static Decision decide(PodRef ref, Pod pod, Node node) {
    if (pod == null) {
      return Decision.GONE;
    }
    if (!Objects.equals(ref.uid(), pod.getMetadata().getUid())) {
      return Decision.REPLACED;
    }
    if (Pods.bound(pod)) {
      return Decision.BOUND;
    }
    if (Pods.terminating(pod)) {
      return Decision.TERMINATING;
    }
    if (Pods.terminal(pod)) {
      return Decision.FINISHED;
    }
    if (node != null && !toleratesForBinding(pod, node)) {
      return Decision.UNTOLERATED;
    }
    return Decision.BIND;
  }

  /** Registered as far as binding is concerned: {@code karpenter.sh/unregistered} is gone. */
  static boolean registered(Node node) {
    return taints(node).stream().noneMatch(t -> TaintKeys.UNREGISTERED.equals(t.getKey()));
  }

  /**
   * Whether the pod tolerates every taint on the Node that should keep it off: every {@code NoExecute}
   * taint (the taint-eviction controller would evict it right after the binding) and every {@code
   * NoSchedule} taint that is not one of the known ephemeral ones the Node sheds on becoming Ready.
   * {@code PreferNoSchedule} never keeps a pod off.
   */
  static boolean toleratesForBinding(Pod pod, Node node) {
    List<Toleration> tolerations = pod.getSpec() == null || pod.getSpec().getTolerations() == null
        ? List.of()
        : pod.getSpec().getTolerations();
    return taints(node).stream()
        .filter(t -> "NoExecute".equals(t.getEffect()) || ("NoSchedule".equals(t.getEffect()) && !TaintKeys.isKnownEphemeral(t.getKey())))
        .allMatch(t -> tolerations.stream().anyMatch(toleration -> tolerates(toleration, t)));
  }

  /**
   * Kubernetes' {@code Toleration.ToleratesTaint}, through core's {@link
   * sh.karpenter.core.taints.Toleration#tolerates}; a toleration or taint core cannot parse (an
   * unknown operator or effect) tolerates nothing.
   */
  static boolean tolerates(Toleration toleration, Taint taint) {
    try {
      String effect = toleration.getEffect();
      var coreToleration = new sh.karpenter.core.taints.Toleration(
          toleration.getKey(),
          sh.karpenter.core.taints.Toleration.Operator.parse(toleration.getOperator()),
          toleration.getValue(),
          effect == null || effect.isEmpty() ? null : sh.karpenter.core.taints.Taint.Effect.parse(effect),
          null);
      var coreTaint = new sh.karpenter.core.taints.Taint(
          Objects.requireNonNullElse(taint.getKey(), ""), taint.getValue(), sh.karpenter.core.taints.Taint.Effect.parse(taint.getEffect()));
      return coreToleration.tolerates(coreTaint);
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private static List<Taint> taints(Node node) {
    return node.getSpec() == null || node.getSpec().getTaints() == null ? List.of() : node.getSpec().getTaints();
  }

  private Duration sinceCreation(NodeClaim claim) {
    String created = claim.getMetadata().getCreationTimestamp();
    if (created == null) {
      return Duration.ZERO;
    }
    try {
      return Duration.between(OffsetDateTime.parse(created).toInstant(), clock.instant());
    } catch (DateTimeParseException e) {
      return Duration.ZERO;
    }
  }
}
