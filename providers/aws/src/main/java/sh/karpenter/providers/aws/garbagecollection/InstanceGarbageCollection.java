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
import java.util.List;
import java.util.Set;
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
 */
public final class InstanceGarbageCollection implements OperatorExtension {
  public static final String NAME = "instance.garbagecollection";
  /** Successful rounds run at the start period before the loop slows down (upstream's 20). */
  public static final int STARTUP_ROUNDS = 20;
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
        providerId -> NodeClaims.nodesFor(informers, providerId), client));
  }

  /** One round; the instances are listed first (see the class comment). */
  Result reconcile(Supplier<List<AwsInstance>> list, Supplier<Collection<NodeClaim>> nodeClaims,
      java.util.function.Function<String, List<Node>> nodesFor, KubernetesClient client) {
    List<AwsInstance> cloud = list.get();
    List<AwsInstance> leaked = leaked(cloud, providerIds(nodeClaims.get()), clock.instant(), settings.minAge());
    RuntimeException failure = null;
    for (AwsInstance instance : leaked) {
      try {
        collect(instance, nodesFor.apply(instance.providerId()), client);
      } catch (RuntimeException e) {
        LOG.error("garbage collecting instance {} failed: {}", instance.providerId(), e.getMessage());
        failure = failure == null ? e : failure;
      }
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

  private void collect(AwsInstance instance, List<Node> nodes, KubernetesClient client) {
    try {
      instances.delete(instance.providerId());
    } catch (NodeClaimNotFoundException e) {
      return;
    }
    LOG.info("garbage collected instance {} ({}): no NodeClaim references it", instance.providerId(), instance.instanceType());
    for (Node node : nodes) {
      try {
        client.nodes().withName(node.getMetadata().getName()).delete();
        LOG.info("garbage collected node {} of instance {}", node.getMetadata().getName(), instance.providerId());
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          throw e;
        }
      }
    }
  }
}
