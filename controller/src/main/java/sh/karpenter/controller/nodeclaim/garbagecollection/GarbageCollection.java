package sh.karpenter.controller.nodeclaim.garbagecollection;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;

/**
 * The {@code nodeclaim.garbagecollection} loop (upstream nodeclaim/garbagecollection,
 * docs/behaviour/nodeclaim-lifecycle.md#garbage-collection), run every {@link #PERIOD} as a
 * singleton. Each pass reconciles the NodeClaims with what the cloud provider lists, both ways:
 *
 * <ol>
 *   <li>a Registered NodeClaim whose instance the provider no longer lists, and whose Node is not
 *       Ready (or gone), is deleted, {@value #PARALLELISM} at a time, counting {@code
 *       karpenter_nodeclaims_disrupted_total{reason="garbage_collected"}}. A Ready Node means the
 *       kubelet still runs, whatever the provider says; unregistered NodeClaims are left to the
 *       registration timeout. NodeClaims are listed before instances, so one launched in between is
 *       never judged;
 *   <li>an instance that no NodeClaim references by {@code status.providerID} is terminated once it
 *       was seen unreferenced on two passes at least one period apart ({@link LeakedInstances}), and
 *       the API server (not only the cache) confirms that no NodeClaim references it. This collects
 *       the instances of launches whose NodeClaim never recorded them: the controller restarted
 *       between Create and the status write, or the NodeClaim was deleted meanwhile.
 * </ol>
 *
 * A pass that failed for some NodeClaims or instances throws after finishing the others, so the
 * loop backs off and retries.
 */
public final class GarbageCollection {
  private static final Logger LOG = LoggerFactory.getLogger(GarbageCollection.class);

  public static final String NAME = "nodeclaim.garbagecollection";
  /** Upstream's period, the default of {@code Options.garbageCollectionPeriod} (docs/behaviour/options.md). */
  public static final Duration PERIOD = Duration.ofMinutes(2);
  /** {@code karpenter_nodeclaims_disrupted_total} reason. */
  public static final String METRIC_REASON = "garbage_collected";
  static final int PARALLELISM = 20;

  private final KubernetesClient client;
  private final Informers informers;
  private final CloudProvider cloudProvider;
  private final Clock clock;
  private final Metrics metrics;
  private final Duration period;
  private final LeakedInstances leaked;

  /** A loop with upstream's {@link #PERIOD}. */
  public GarbageCollection(KubernetesClient client, Informers informers, CloudProvider cloudProvider, Clock clock, Metrics metrics) {
    this(client, informers, cloudProvider, clock, metrics, PERIOD);
  }

  /** A loop run every {@code period}; an instance unreferenced for at least {@code period} is a leak. */
  public GarbageCollection(KubernetesClient client, Informers informers, CloudProvider cloudProvider, Clock clock, Metrics metrics,
      Duration period) {
    this.period = period;
    this.leaked = new LeakedInstances(period);
    this.client = client;
    this.informers = informers;
    this.cloudProvider = cloudProvider;
    this.clock = clock;
    this.metrics = metrics;
  }

  /** One pass; the loop body of {@link sh.karpenter.controller.runtime.SingletonLoop}. */
  public synchronized Result reconcile() {
    if (!informers.nodeClaims().hasSynced() || !informers.nodes().hasSynced()) {
      return Result.requeueAfter(period);
    }
    List<NodeClaim> nodeClaims = informers.nodeClaims().getStore().list();
    List<Instance> instances = cloudProvider.list();
    Set<String> listed = instances.stream().map(Instance::providerId).collect(Collectors.toSet());
    List<RuntimeException> failures = new ArrayList<>();

    List<NodeClaim> vanished = nodeClaims.stream()
        .filter(claim -> NodeClaims.isManaged(claim, cloudProvider) && instanceVanished(claim, listed, NodeClaims.nodesFor(informers,
            Metadata.providerId(claim))))
        .toList();
    inParallel(vanished, this::collect, failures);

    Set<String> referenced = nodeClaims.stream().map(Metadata::providerId).collect(Collectors.toSet());
    Set<String> unreferenced = listed.stream().filter(id -> !referenced.contains(id)).collect(Collectors.toSet());
    List<String> leakedIds = leaked.observe(unreferenced, clock.instant());
    if (!leakedIds.isEmpty()) {
      Set<String> confirmed = client.resources(NodeClaim.class).list().getItems().stream()
          .map(Metadata::providerId).collect(Collectors.toSet());
      List<String> toTerminate = leakedIds.stream().filter(id -> !confirmed.contains(id)).toList();
      leakedIds.stream().filter(confirmed::contains).forEach(leaked::forget);
      inParallel(toTerminate, this::terminate, failures);
    }

    if (!failures.isEmpty()) {
      RuntimeException failure = failures.get(0);
      failures.subList(1, failures.size()).forEach(failure::addSuppressed);
      throw failure;
    }
    return Result.requeueAfter(period);
  }

  /**
   * Whether the NodeClaim is registered, not deleting, its instance is not among {@code
   * listedInstances} and none of its Nodes is Ready: the instance is gone and nothing runs there.
   */
  static boolean instanceVanished(NodeClaim nodeClaim, Set<String> listedInstances, List<Node> nodes) {
    String providerId = Metadata.providerId(nodeClaim);
    return !providerId.isEmpty()
        && !Metadata.deleting(nodeClaim)
        && Conditions.isTrue(nodeClaim.getStatus().getConditions(), ConditionTypes.REGISTERED)
        && !listedInstances.contains(providerId)
        && nodes.stream().noneMatch(Metadata::ready);
  }

  /** Deletes a NodeClaim whose instance vanished; a conflict (it changed since the cache read) waits for the next pass. */
  private void collect(NodeClaim nodeClaim) {
    String name = nodeClaim.getMetadata().getName();
    try {
      OptimisticWrites.deleteAt(client.resources(NodeClaim.class).withName(name), nodeClaim.getMetadata().getResourceVersion());
    } catch (RuntimeException e) {
      if (OptimisticWrites.isConflict(e)) {
        return;
      }
      throw e;
    }
    LOG.info("garbage collecting nodeclaim {} with no cloudprovider representation (provider-id {}, nodepool {})",
        name, Metadata.providerId(nodeClaim), NodeClaims.nodePool(nodeClaim));
    metrics.nodeClaimDisrupted(DisruptionLabels.of(nodeClaim, METRIC_REASON));
  }

  /** Terminates a leaked instance; it stays remembered, so later passes repeat the call until it is gone. */
  private void terminate(String providerId) {
    LOG.info("terminating leaked instance {}: no NodeClaim has referenced it for at least {}", providerId, period);
    try {
      cloudProvider.delete(providerId);
    } catch (NodeClaimNotFoundException e) {
      leaked.forget(providerId);
    }
  }

  /** Runs {@code action} on every item, at most {@value #PARALLELISM} at once, collecting failures. */
  private static <T> void inParallel(Collection<T> items, Consumer<T> action, List<RuntimeException> failures) {
    if (items.isEmpty()) {
      return;
    }
    List<RuntimeException> collected = new ArrayList<>();
    try (ExecutorService executor = Executors.newFixedThreadPool(Math.min(PARALLELISM, items.size()), Thread.ofVirtual().factory())) {
      for (T item : items) {
        executor.execute(() -> {
          try {
            action.accept(item);
          } catch (RuntimeException e) {
            synchronized (collected) {
              collected.add(e);
            }
          }
        });
      }
    }
    failures.addAll(collected);
  }
}
