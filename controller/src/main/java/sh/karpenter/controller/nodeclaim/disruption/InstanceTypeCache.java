package sh.karpenter.controller.nodeclaim.disruption;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.instancetype.InstanceType;

/**
 * The instance types the cloud provider offers each NodePool, as instance-type drift reads them:
 * fetched at most once per {@link #TTL} per NodePool and NodeClass, so that re-checking every
 * NodeClaim of a large pool every few minutes does not ask the provider each time. Thread-safe.
 */
final class InstanceTypeCache {
  /** docs/behaviour/options.md: the instance-type drift lookup is cached for 30 minutes. */
  static final Duration TTL = Duration.ofMinutes(30);

  private record Key(String nodePool, NodeClassRef nodeClassRef) {}

  private record Entry(List<InstanceType> types, Instant fetched) {}

  private final CloudProvider cloudProvider;
  private final Clock clock;
  private final Map<Key, Entry> entries = new ConcurrentHashMap<>();

  InstanceTypeCache(CloudProvider cloudProvider, Clock clock) {
    this.cloudProvider = cloudProvider;
    this.clock = clock;
  }

  /** The pool's instance types, from the cache while younger than {@link #TTL}. */
  List<InstanceType> get(String nodePool, NodeClassRef nodeClassRef) {
    Instant now = clock.instant();
    entries.values().removeIf(e -> expired(e, now));
    return entries.compute(new Key(nodePool, nodeClassRef), (key, entry) ->
        entry != null && !expired(entry, now)
            ? entry
            : new Entry(List.copyOf(cloudProvider.instanceTypes(nodePool, nodeClassRef)), now)).types();
  }

  private static boolean expired(Entry entry, Instant now) {
    return !entry.fetched().plus(TTL).isAfter(now);
  }
}
