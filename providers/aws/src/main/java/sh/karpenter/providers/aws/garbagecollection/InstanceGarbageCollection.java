package sh.karpenter.providers.aws.garbagecollection;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.operator.OperatorContext;
import sh.karpenter.controller.operator.OperatorExtension;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.providers.aws.instance.AwsInstance;
import sh.karpenter.providers.aws.instance.InstanceProvider;

/**
 * Terminates leaked instances (upstream's AWS {@code garbagecollection.Controller}, named {@code
 * instance.garbagecollection}): a leader-only singleton loop that lists this cluster's Karpenter
 * instances, terminates each one older than {@link Settings#minAge()} whose provider ID no NodeClaim
 * carries, and deletes the Node that points at it. It lists the instances before reading the
 * NodeClaims, as upstream does, so a NodeClaim that appears during a slow list still protects its
 * instance. The loop runs every {@link Settings#startupPeriod()} for its first {@value
 * #STARTUP_ROUNDS} successful rounds, then every {@link Settings#period()}.
 *
 * <p>The Nodes of a collected instance are looked up in the informer, which may not hold a Node created
 * just before the round. So each collected provider ID is remembered for {@link #NODE_SWEEP} and every
 * later round deletes the Nodes that have appeared for it (unless a NodeClaim now claims it); the
 * instance itself is terminating by then and no longer listed.
 */
public final class InstanceGarbageCollection implements OperatorExtension {
  public static final String NAME = "instance.garbagecollection";
  /** Successful rounds run at the start period before the loop slows down (upstream's 20). */
  public static final int STARTUP_ROUNDS = 20;
  /** How long the Nodes of a collected instance are still swept on later rounds. */
  public static final Duration NODE_SWEEP = Duration.ofMinutes(5);
  private static final Logger LOG = LoggerFactory.getLogger(InstanceGarbageCollection.class);

  /**
   * @param startupPeriod between the first {@value #STARTUP_ROUNDS} successful rounds (upstream 10 s)
   * @param period between later rounds (upstream 2 min)
   * @param minAge instances younger than this (by launch time) are never collected (upstream 30 s):
   *     their NodeClaim may not carry the provider ID yet
   */
  public record Settings(Duration startupPeriod, Duration period, Duration minAge) {
    public static final Settings DEFAULT = new Settings(Duration.ofSeconds(10), Duration.ofMinutes(2), Duration.ofSeconds(30));

    public Settings {
      if (startupPeriod.isNegative() || startupPeriod.isZero() || period.isNegative() || period.isZero() || minAge.isNegative()) {
        throw new IllegalArgumentException("instance garbage collection: periods must be positive and the minimum age not negative: " + startupPeriod
            + ", " + period + ", " + minAge);
      }
    }
  }

  private final InstanceProvider instances;
  private final Settings settings;
  private final Clock clock;
  private int successfulRounds;
  /** Provider IDs of collected instances, with when they were collected; only the loop's thread touches it. */
  private final Map<String, Instant> collected = new LinkedHashMap<>();

  public InstanceGarbageCollection(InstanceProvider instances, Settings settings, Clock clock) {
    this.instances = instances;
    this.settings = settings;
    this.clock = clock;
  }

  @Override
  public void register(OperatorContext context) {
    KubernetesClient client = context.client();
    Informers informers = context.informers();
    context.loop(NAME, () -> reconcile(instances::listAws, () -> informers.nodeClaims().getStore().list(),
        providerId -> NodeClaims.nodesFor(informers, providerId), instances::delete, name -> deleteNode(client, name)));
  }

  /** One round; the instances are listed first (see the class comment). */
  Result reconcile(Supplier<List<AwsInstance>> list, Supplier<Collection<NodeClaim>> nodeClaims,
      Function<String, List<Node>> nodesFor, Consumer<String> terminate, Consumer<String> deleteNode) {
    List<AwsInstance> cloud = list.get();
    Set<String> claimed = providerIds(nodeClaims.get());
    Instant now = clock.instant();
    List<AwsInstance> leaked = leaked(cloud, claimed, now, settings.minAge());
    RuntimeException failure = null;
    for (AwsInstance instance : leaked) {
      try {
        collect(instance, terminate);
      } catch (RuntimeException e) {
        LOG.error("garbage collecting instance {} failed: {}", instance.providerId(), e.getMessage());
        failure = failure == null ? e : failure;
      }
    }
    try {
      sweepNodes(claimed, now, nodesFor, deleteNode);
    } catch (RuntimeException e) {
      LOG.error("deleting the Nodes of collected instances failed: {}", e.getMessage());
      failure = failure == null ? e : failure;
    }
    if (failure != null) {
      throw failure;
    }
    successfulRounds++;
    return Result.requeueAfter(successfulRounds <= STARTUP_ROUNDS ? settings.startupPeriod() : settings.period());
  }

  /**
   * The instances to terminate: not already terminating, launched more than {@code minAge} before
   * {@code now}, and with a provider ID no NodeClaim carries.
   */
  public static List<AwsInstance> leaked(List<AwsInstance> instances, Set<String> claimedProviderIds, Instant now, Duration minAge) {
    List<AwsInstance> out = new ArrayList<>();
    for (AwsInstance instance : instances) {
      if (instance.terminating() || claimedProviderIds.contains(instance.providerId())) {
        continue;
      }
      if (instance.launchTime() != null && Duration.between(instance.launchTime(), now).compareTo(minAge) > 0) {
        out.add(instance);
      }
    }
    return out;
  }

  /** The non-empty provider IDs of these NodeClaims. */
  public static Set<String> providerIds(Collection<NodeClaim> nodeClaims) {
    Set<String> ids = new HashSet<>();
    for (NodeClaim claim : nodeClaims) {
      String id = claim.getStatus() == null ? null : claim.getStatus().getProviderID();
      if (id != null && !id.isEmpty()) {
        ids.add(id);
      }
    }
    return ids;
  }

  private void collect(AwsInstance instance, Consumer<String> terminate) {
    try {
      terminate.accept(instance.providerId());
    } catch (NodeClaimNotFoundException e) {
      return;
    }
    LOG.info("garbage collected instance {} ({}): no NodeClaim references it", instance.providerId(), instance.instanceType());
    collected.put(instance.providerId(), clock.instant());
  }

  /**
   * Deletes the Nodes (not already being deleted) of the instances collected within {@link #NODE_SWEEP},
   * this round's included, that no NodeClaim claims, and forgets the older ones.
   */
  private void sweepNodes(Set<String> claimed, Instant now, Function<String, List<Node>> nodesFor, Consumer<String> deleteNode) {
    collected.values().removeIf(at -> Duration.between(at, now).compareTo(NODE_SWEEP) > 0);
    for (String providerId : collected.keySet()) {
      if (!claimed.contains(providerId)) {
        for (Node node : nodesFor.apply(providerId)) {
          if (node.getMetadata().getDeletionTimestamp() != null) {
            continue;
          }
          deleteNode.accept(node.getMetadata().getName());
          LOG.info("garbage collected node {} of instance {}", node.getMetadata().getName(), providerId);
        }
      }
    }
  }

  /** The provider IDs whose Nodes later rounds still delete. */
  Set<String> collectedProviderIds() {
    return Set.copyOf(collected.keySet());
  }

  private static void deleteNode(KubernetesClient client, String name) {
    try {
      client.nodes().withName(name).delete();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        throw e;
      }
    }
  }
}
