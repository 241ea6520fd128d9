package sh.karpenter.providers.aws.subnet;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.SubnetSelectorTerm;
import sh.karpenter.providers.aws.expiring.ExpiringCache;
import sh.karpenter.providers.aws.expiring.RefreshIntervals;
import sh.karpenter.providers.aws.selector.SelectorFilters;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeSubnetsRequest;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Subnet;

/**
 * The subnets an EC2NodeClass's {@code subnetSelectorTerms} select (upstream's subnet
 * {@code DefaultProvider.List}): one {@code DescribeSubnets} per tag term, plus one for every
 * {@code id} term together, results merged by subnet ID and cached per class generation for
 * {@link #TTL}. Thread-safe.
 */
public final class SubnetProvider {
  /** Upstream's {@code DefaultTTL}. */
  public static final Duration TTL = Duration.ofMinutes(1);
  private static final Logger LOG = LoggerFactory.getLogger(SubnetProvider.class);

  private final Ec2Client ec2;
  private final ExpiringCache<String, List<Subnet>> cache;
  private final Map<String, List<String>> lastSeen = new java.util.concurrent.ConcurrentHashMap<>();

  /** A provider refreshing every {@link #TTL} (upstream's default). */
  public SubnetProvider(Ec2Client ec2, Clock clock) {
    this(ec2, clock, TTL);
  }

  /**
   * @param refreshInterval how long a selection is cached (upstream's {@code --subnet-refresh-interval}, at least 1 minute)
   */
  public SubnetProvider(Ec2Client ec2, Clock clock, Duration refreshInterval) {
    this.ec2 = ec2;
    this.cache = new ExpiringCache<>(clock, RefreshIntervals.checked("--subnet-refresh-interval", refreshInterval));
  }

  /** The filter sets of the terms, one {@code DescribeSubnets} each: the tag terms in order, then all IDs. */
  public static List<List<Filter>> filterSets(List<SubnetSelectorTerm> terms) {
    List<List<Filter>> sets = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (SubnetSelectorTerm term : terms == null ? List.<SubnetSelectorTerm>of() : terms) {
      if (term.getId() != null && !term.getId().isEmpty()) {
        ids.add(term.getId());
      } else {
        sets.add(SelectorFilters.tags(term.getTags()));
      }
    }
    if (!ids.isEmpty()) {
      sets.add(List.of(SelectorFilters.filter("subnet-id", ids)));
    }
    return sets;
  }

  /** The selected subnets, in no particular order ({@link #byAvailableAddresses} orders them as the status lists them). */
  public synchronized List<Subnet> list(EC2NodeClass nodeClass) {
    List<List<Filter>> filterSets = filterSets(nodeClass.getSpec().getSubnetSelectorTerms());
    if (filterSets.isEmpty()) {
      return List.of();
    }
    String key = SelectorFilters.nodeClassKey(nodeClass);
    var cached = cache.get(key);
    if (cached.isPresent()) {
      return cached.get();
    }
    Map<String, Subnet> subnets = new LinkedHashMap<>();
    for (List<Filter> filters : filterSets) {
      DescribeSubnetsRequest request = DescribeSubnetsRequest.builder().filters(filters).maxResults(500).build();
      try {
        ec2.describeSubnetsPaginator(request).subnets().forEach(subnet -> subnets.put(subnet.subnetId(), subnet));
      } catch (RuntimeException e) {
        throw new IllegalStateException("describing subnets with filters " + filters + ": " + e.getMessage(), e);
      }
    }
    List<Subnet> result = List.copyOf(subnets.values());
    cache.put(key, result);
    List<String> ids = result.stream().map(Subnet::subnetId).sorted().toList();
    if (!ids.equals(lastSeen.put(nodeClass.getMetadata().getName(), ids))) {
      LOG.debug("discovered subnets nodeclass={} subnets={}", nodeClass.getMetadata().getName(), ids);
    }
    return result;
  }

  /** Upstream's status order: most available IP addresses first, then by subnet ID. */
  public static List<Subnet> byAvailableAddresses(List<Subnet> subnets) {
    return subnets.stream()
        .sorted(Comparator.comparing((Subnet s) -> s.availableIpAddressCount() == null ? 0 : s.availableIpAddressCount()).reversed()
            .thenComparing(Subnet::subnetId))
        .toList();
  }
}
