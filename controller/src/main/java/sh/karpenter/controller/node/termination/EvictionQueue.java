package sh.karpenter.controller.node.termination;

import io.fabric8.kubernetes.api.model.DeleteOptionsBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.Eviction;
import io.fabric8.kubernetes.api.model.policy.v1.EvictionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.RequestConfigBuilder;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.runtime.BucketRateLimiter;
import sh.karpenter.controller.runtime.Controller;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.ExponentialFailureRateLimiter;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.LogValues;
import sh.karpenter.controller.runtime.MaxOfRateLimiter;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.RateLimiter;
import sh.karpenter.controller.runtime.ReconcileObserver;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.TokenBucket;
import sh.karpenter.controller.runtime.WorkQueue;

/**
 * Upstream's eviction queue ({@code node/termination/terminator}): the drain hands it pods, one item
 * per pod, and its own workers call the Eviction API ({@code policy/v1} Eviction with a UID
 * precondition, so a pod recreated under the same name is never evicted by mistake), so a slow or
 * refused eviction never holds a {@code node.termination} worker.
 *
 * <ul>
 *   <li>200: evicted; counted in {@code karpenter_pods_drained_total} under the NodeClaim's
 *       disruption reason and published as an {@code Evicted} event on the pod;
 *   <li>404 (gone) or 409 (a different pod by now): done;
 *   <li>429 (a PodDisruptionBudget refuses): retried with per-item backoff, 100 ms doubling to 10 s,
 *       and a {@code FailedDraining} event on the Node;
 *   <li>anything else: retried the same way.
 * </ul>
 *
 * <p>Every answer is counted in {@code karpenter_pods_eviction_requests_total{code}}. A pod stays in
 * the queue (and is not added twice) until its eviction succeeded or it went away, however often the
 * drain offers it. Evictions are sent without the client's own retries, which would otherwise sit on
 * a 429 for about 20 seconds.
 *
 * <p>{@link #controller()} runs the workers: start and close it with the other controllers.
 */
public final class EvictionQueue implements Reconciler<String> {
  private static final Logger LOG = LoggerFactory.getLogger(EvictionQueue.class);

  /** Controller name, as upstream. */
  public static final String NAME = "eviction-queue";
  /** Per-item backoff: first retry after 100 ms ... */
  static final Duration BASE_DELAY = Duration.ofMillis(100);
  /** ... doubling up to 10 s. */
  static final Duration MAX_DELAY = Duration.ofSeconds(10);
  /** Concurrent evictions, as upstream. */
  static final int WORKERS = 100;

  private static final int OK = 200;
  private static final int TOO_MANY_REQUESTS = 429;

  private final KubernetesClient evictions;
  private final Informers informers;
  private final EventRecorder events;
  private final Metrics metrics;
  private final Set<String> queued = ConcurrentHashMap.newKeySet();
  private final Controller<String> controller;

  public EvictionQueue(
      KubernetesClient client, Informers informers, Clock clock, EventRecorder events, Metrics metrics, ReconcileObserver observer) {
    this.evictions = client
        .newClient(new RequestConfigBuilder(client.getConfiguration().getRequestConfig()).withRequestRetryBackoffLimit(0).build())
        .adapt(KubernetesClient.class);
    this.informers = informers;
    this.events = events;
    this.metrics = metrics;
    RateLimiter<String> rateLimiter = new MaxOfRateLimiter<>(
        new ExponentialFailureRateLimiter<>(BASE_DELAY, MAX_DELAY),
        new BucketRateLimiter<>(new TokenBucket(RateLimiter.DEFAULT_QPS, RateLimiter.DEFAULT_BURST, clock)));
    WorkQueue<String> queue = new WorkQueue<>(NAME, clock, rateLimiter, depth -> observer.queueDepth(NAME, depth));
    this.controller = new Controller<>(NAME, this, WORKERS, queue, observer, clock, Controller.DEFAULT_CLOSE_TIMEOUT);
  }

  /** The workers; start and close them with the operator's other controllers. */
  public Controller<String> controller() {
    return controller;
  }

  /** Queues the pod's eviction unless it is queued already. */
  public void add(Pod pod) {
    String key = key(pod);
    if (queued.add(key)) {
      controller.enqueue(key);
    }
  }

  /** The queue's item for a pod: {@code namespace/name/uid}, none of which can contain a slash. */
  static String key(Pod pod) {
    return Pods.key(pod) + "/" + pod.getMetadata().getUid();
  }

  @Override
  public Result reconcile(String key) {
    int uidAt = key.lastIndexOf('/');
    String podKey = key.substring(0, uidAt);
    String uid = key.substring(uidAt + 1);
    Pod pod = informers.pods().getStore().getByKey(podKey);
    if (pod == null || !uid.equals(pod.getMetadata().getUid()) || Pods.terminating(pod) || Pods.terminal(pod)) {
      queued.remove(key);
      return Result.done();
    }
    int code = evict(pod, uid);
    if (code > 0) {
      metrics.disruption().evictionRequest(code);
    }
    switch (code) {
      case OK -> {
        LOG.atInfo().setMessage("evicted pod").addKeyValue("Pod", LogValues.ref(pod)).log();
        String reason = disruptionReason(pod);
        metrics.disruption().podDrained(reason);
        events.normal(pod, "Evicted", "Evicted pod");
        queued.remove(key);
        return Result.done();
      }
      case 404, 409 -> {
        queued.remove(key);
        return Result.done();
      }
      case TOO_MANY_REQUESTS -> {
        events.warning(nodeOf(pod), "FailedDraining", "Failed to drain node, evicting pod " + podKey + " violates a PDB");
        return Result.requeueAfter(Duration.ZERO);
      }
      default -> {
        return Result.requeueAfter(Duration.ZERO);
      }
    }
  }

  /** Calls the Eviction API once; the HTTP status, or 0 when no answer came. */
  private int evict(Pod pod, String uid) {
    Eviction eviction = new EvictionBuilder()
        .withNewMetadata().withName(pod.getMetadata().getName()).withNamespace(pod.getMetadata().getNamespace()).endMetadata()
        .withDeleteOptions(new DeleteOptionsBuilder().withNewPreconditions().withUid(uid).endPreconditions().build())
        .build();
    try {
      return evictions.pods().inNamespace(pod.getMetadata().getNamespace()).withName(pod.getMetadata().getName()).evict(eviction)
          ? OK
          : TOO_MANY_REQUESTS; // fabric8 answers false exactly on 429
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404 && e.getCode() != 409) {
        LOG.atWarn().setMessage("evicting pod failed").addKeyValue("Pod", LogValues.ref(pod))
            .addKeyValue("error", String.valueOf(e.getMessage())).log();
      }
      return e.getCode();
    }
  }

  /** The {@code DisruptionReason} of the pod's NodeClaim when set, else "". */
  private String disruptionReason(Pod pod) {
    Node node = node(pod);
    String providerId = node == null || node.getSpec() == null ? null : node.getSpec().getProviderID();
    List<NodeClaim> nodeClaims = NodeClaims.forProviderId(informers, providerId);
    return NodeTermination.disruptionReason(nodeClaims.isEmpty() ? null : nodeClaims.getFirst());
  }

  /** The pod's Node for events, or the pod itself when the Node is not in the cache. */
  private HasMetadata nodeOf(Pod pod) {
    Node node = node(pod);
    return node == null ? pod : node;
  }

  private Node node(Pod pod) {
    String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
    return nodeName == null ? null : informers.nodes().getStore().getByKey(nodeName);
  }
}
