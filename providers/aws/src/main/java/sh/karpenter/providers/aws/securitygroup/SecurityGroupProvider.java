package sh.karpenter.providers.aws.securitygroup;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.SecurityGroupSelectorTerm;
import sh.karpenter.providers.aws.expiring.ExpiringCache;
import sh.karpenter.providers.aws.expiring.RefreshIntervals;
import sh.karpenter.providers.aws.selector.SelectorFilters;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeSecurityGroupsRequest;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.SecurityGroup;

/**
 * The security groups an EC2NodeClass's {@code securityGroupSelectorTerms} select (upstream's
 * security group {@code DefaultProvider.List}): one {@code DescribeSecurityGroups} per tag term, one
 * for every {@code id} term together and one for every {@code name} term together, merged by group ID
 * and cached per class generation for {@link #TTL}. Thread-safe.
 */
public final class SecurityGroupProvider {
  /** Upstream's {@code DefaultTTL}. */
  public static final Duration TTL = Duration.ofMinutes(1);
  private static final Logger LOG = LoggerFactory.getLogger(SecurityGroupProvider.class);

  private final Ec2Client ec2;
  private final ExpiringCache<String, List<SecurityGroup>> cache;
  private final Map<String, List<String>> lastSeen = new ConcurrentHashMap<>();

  /** A provider refreshing every {@link #TTL} (upstream's default). */
  public SecurityGroupProvider(Ec2Client ec2, Clock clock) {
    this(ec2, clock, TTL);
  }

  /**
   * @param refreshInterval how long a selection is cached (upstream's {@code --security-group-refresh-interval}, at least 1 minute)
   */
  public SecurityGroupProvider(Ec2Client ec2, Clock clock, Duration refreshInterval) {
    this.ec2 = ec2;
    this.cache = new ExpiringCache<>(clock, RefreshIntervals.checked("--security-group-refresh-interval", refreshInterval));
  }

  /** The filter sets of the terms: the tag terms in order, then all IDs ({@code group-id}), then all names ({@code group-name}). */
  public static List<List<Filter>> filterSets(List<SecurityGroupSelectorTerm> terms) {
    List<List<Filter>> sets = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    List<String> names = new ArrayList<>();
    for (SecurityGroupSelectorTerm term : terms == null ? List.<SecurityGroupSelectorTerm>of() : terms) {
      if (term.getId() != null && !term.getId().isEmpty()) {
        ids.add(term.getId());
      } else if (term.getName() != null && !term.getName().isEmpty()) {
        names.add(term.getName());
      } else {
        sets.add(SelectorFilters.tags(term.getTags()));
      }
    }
    if (!ids.isEmpty()) {
      sets.add(List.of(SelectorFilters.filter("group-id", ids)));
    }
    if (!names.isEmpty()) {
      sets.add(List.of(SelectorFilters.filter("group-name", names)));
    }
    return sets;
  }

  /** The selected security groups, sorted by group ID (the status's order). */
  public synchronized List<SecurityGroup> list(EC2NodeClass nodeClass) {
    String key = SelectorFilters.nodeClassKey(nodeClass);
    var cached = cache.get(key);
    if (cached.isPresent()) {
      return cached.get();
    }
    List<List<Filter>> filterSets = filterSets(nodeClass.getSpec().getSecurityGroupSelectorTerms());
    Map<String, SecurityGroup> groups = new LinkedHashMap<>();
    for (List<Filter> filters : filterSets) {
      DescribeSecurityGroupsRequest request = DescribeSecurityGroupsRequest.builder().filters(filters).maxResults(500).build();
      try {
        ec2.describeSecurityGroupsPaginator(request).securityGroups().forEach(group -> groups.put(group.groupId(), group));
      } catch (RuntimeException e) {
        throw new IllegalStateException("describing security groups with filters " + filters + ": " + e.getMessage(), e);
      }
    }
    List<SecurityGroup> result = groups.values().stream().sorted(Comparator.comparing(SecurityGroup::groupId)).toList();
    cache.put(key, result);
    List<String> ids = result.stream().map(SecurityGroup::groupId).toList();
    if (!ids.equals(lastSeen.put(nodeClass.getMetadata().getName(), ids))) {
      LOG.debug("discovered security groups nodeclass={} security-groups={}", nodeClass.getMetadata().getName(), ids);
    }
    return result;
  }
}
