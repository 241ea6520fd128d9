package sh.karpenter.providers.aws.ami;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.AMISelectorTerm;
import sh.karpenter.api.aws.v1.Alias;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.providers.aws.expiring.ExpiringCache;
import sh.karpenter.providers.aws.expiring.RefreshIntervals;
import sh.karpenter.providers.aws.selector.SelectorFilters;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Image;

/**
 * The AMIs an EC2NodeClass's {@code amiSelectorTerms} select (upstream's amifamily
 * {@code DefaultProvider.List}), newest first.
 *
 * <ul>
 *   <li>an {@code alias} resolves through the family's public SSM parameters for the cluster's
 *       Kubernetes version ({@link AliasParameters}); parameters that do not exist are skipped, and
 *       when none resolves the selection fails ("failed to discover any AMIs for alias");
 *   <li>{@code id} terms (and {@code ssmParameter} terms, through their parameter's value) make one
 *       {@code image-id} query; a missing parameter or a value that is not an {@code ami-} ID is skipped;
 *   <li>any other term is one query: {@code name} (owners {@code self} and {@code amazon} unless
 *       {@code owner} is set), {@code owner}, tags.
 * </ul>
 *
 * Images whose architecture is neither {@code x86_64} nor {@code arm64} are dropped. An image yields
 * one entry per requirement set (an AL2023 NVIDIA image and its standard sibling differ by variant);
 * when two images have the same requirements, the non-deprecated, then newer, then lexically greater
 * name wins. Results are cached per class generation for {@link #TTL}. Thread-safe.
 */
public final class AmiProvider {
  /** Upstream's {@code DefaultTTL}. */
  public static final Duration TTL = Duration.ofMinutes(1);
  private static final Logger LOG = LoggerFactory.getLogger(AmiProvider.class);

  private final Ec2Client ec2;
  private final SsmParameters ssm;
  private final Supplier<String> kubernetesVersion;
  private final Clock clock;
  private final ExpiringCache<String, List<ResolvedAmi>> cache;

  /**
   * @param kubernetesVersion the cluster's {@code major.minor} (upstream discovers it from the API
   *     server's {@code /version}); read on every selection, so it may change
   */
  public AmiProvider(Ec2Client ec2, SsmParameters ssm, Supplier<String> kubernetesVersion, Clock clock) {
    this(ec2, ssm, kubernetesVersion, clock, TTL);
  }

  /**
   * @param refreshInterval how long a selection is cached (upstream's {@code --ami-refresh-interval},
   *     at least 1 minute)
   */
  public AmiProvider(Ec2Client ec2, SsmParameters ssm, Supplier<String> kubernetesVersion, Clock clock, Duration refreshInterval) {
    this.ec2 = ec2;
    this.ssm = ssm;
    this.kubernetesVersion = kubernetesVersion;
    this.clock = clock;
    this.cache = new ExpiringCache<>(clock, RefreshIntervals.checked("--ami-refresh-interval", refreshInterval));
  }

  /** The selected AMIs, newest first (then by ID). */
  public synchronized List<ResolvedAmi> list(EC2NodeClass nodeClass) {
    List<DescribeImageQuery> queries = queries(nodeClass);
    String key = SelectorFilters.nodeClassKey(nodeClass);
    Optional<List<ResolvedAmi>> cached = cache.get(key);
    if (cached.isPresent()) {
      return cached.get();
    }
    Map<String, ResolvedAmi> byRequirements = new LinkedHashMap<>();
    long now = clock.instant().getEpochSecond();
    for (DescribeImageQuery query : queries) {
      Iterable<Image> images;
      try {
        images = ec2.describeImagesPaginator(query.request()).images();
        for (Image image : images) {
          Optional<String> arch = AmiRequirements.architecture(image.architectureAsString());
          if (arch.isEmpty()) {
            continue;
          }
          boolean deprecated = epochSeconds(image.deprecationTime(), Long.MAX_VALUE) <= now;
          for (List<NodeSelectorRequirement> requirements : query.requirementsFor(image.imageId(), arch.get())) {
            ResolvedAmi candidate = new ResolvedAmi(nullToEmpty(image.name()), image.imageId(), nullToEmpty(image.creationDate()), deprecated, requirements);
            byRequirements.merge(AmiRequirements.setKey(requirements), candidate, (kept, other) -> compare(kept, other) <= 0 ? kept : other);
          }
        }
      } catch (RuntimeException e) {
        throw new IllegalStateException("describing images with filters " + query.filters() + ": " + e.getMessage(), e);
      }
    }
    List<ResolvedAmi> result = newestFirst(byRequirements.values());
    cache.put(key, result);
    LOG.debug("resolved amis nodeclass={} ids={}", nodeClass.getMetadata().getName(), result.stream().map(ResolvedAmi::id).distinct().toList());
    return result;
  }

  /**
   * The {@code DescribeImages} queries of the class's terms (upstream's {@code DescribeImageQueries}).
   *
   * @throws UnsupportedAliasException when the alias does not support the cluster's Kubernetes version
   */
  public List<DescribeImageQuery> queries(EC2NodeClass nodeClass) {
    Optional<Alias> alias = nodeClass.alias();
    if (alias.isPresent()) {
      return List.of(aliasQuery(alias.get()));
    }
    List<DescribeImageQuery> queries = new ArrayList<>();
    List<String> ids = new ArrayList<>();
    for (AMISelectorTerm term : nodeClass.getSpec().getAmiSelectorTerms() == null ? List.<AMISelectorTerm>of() : nodeClass.getSpec().getAmiSelectorTerms()) {
      if (!empty(term.getId())) {
        ids.add(term.getId());
      } else if (!empty(term.getSsmParameter())) {
        Optional<String> value;
        try {
          value = ssm.getCustom(term.getSsmParameter());
        } catch (RuntimeException e) {
          throw new IllegalStateException("resolving ssm parameter " + term.getSsmParameter() + ": " + e.getMessage(), e);
        }
        if (value.isEmpty()) {
          LOG.debug("ssm parameter not found ssmParameter={}", term.getSsmParameter());
        } else if (!value.get().startsWith("ami-")) {
          LOG.debug("ssm parameter value is an invalid AMI ID ssmParameter={} id={}", term.getSsmParameter(), value.get());
        } else {
          ids.add(value.get());
        }
      } else {
        queries.add(termQuery(term));
      }
    }
    if (!ids.isEmpty()) {
      queries.add(new DescribeImageQuery(List.of(SelectorFilters.filter("image-id", ids)), List.of(), Map.of()));
    }
    return queries;
  }

  /** The query of a term selecting by name, owner and tags. */
  static DescribeImageQuery termQuery(AMISelectorTerm term) {
    List<Filter> filters = new ArrayList<>();
    List<String> owners = empty(term.getOwner()) ? List.of() : List.of(term.getOwner());
    if (!empty(term.getName())) {
      owners = empty(term.getOwner()) ? List.of("self", "amazon") : owners;
      filters.add(SelectorFilters.filter("name", term.getName()));
    }
    filters.addAll(SelectorFilters.tags(term.getTags()));
    return new DescribeImageQuery(filters, owners, Map.of());
  }

  private DescribeImageQuery aliasQuery(Alias alias) {
    Map<String, List<List<NodeSelectorRequirement>>> known = new LinkedHashMap<>();
    for (AliasParameters.Parameter parameter : AliasParameters.of(alias, kubernetesVersion.get())) {
      Optional<String> imageId;
      try {
        imageId = ssm.getPublic(parameter.path());
      } catch (RuntimeException e) {
        LOG.debug("reading ssm parameter failed parameter={} error={}", parameter.path(), e.toString());
        imageId = Optional.empty();
      }
      // Upstream keeps the last variants seen for an image named by two parameters.
      imageId.ifPresent(id -> known.put(id, parameter.requirementSets()));
    }
    if (known.isEmpty()) {
      throw new IllegalStateException("failed to discover any AMIs for alias " + alias);
    }
    return new DescribeImageQuery(List.of(SelectorFilters.filter("image-id", List.copyOf(known.keySet()))), List.of(), known);
  }

  /** Newest creation date first, then by ID (upstream's {@code AMIs.Sort}). */
  public static List<ResolvedAmi> newestFirst(java.util.Collection<ResolvedAmi> amis) {
    return amis.stream()
        .sorted(Comparator.comparingLong((ResolvedAmi a) -> epochSeconds(a.creationDate(), Long.MIN_VALUE)).reversed()
            .thenComparing(ResolvedAmi::id))
        .toList();
  }

  /** Negative when {@code i} is preferred over {@code j} (upstream's {@code compareAMI}). */
  static int compare(ResolvedAmi i, ResolvedAmi j) {
    if (i.deprecated() != j.deprecated()) {
      return i.deprecated() ? 1 : -1;
    }
    long iCreated = epochSeconds(i.creationDate(), Long.MIN_VALUE);
    long jCreated = epochSeconds(j.creationDate(), Long.MIN_VALUE);
    if (iCreated != jCreated) {
      return iCreated > jCreated ? -1 : 1;
    }
    if (!i.name().equals(j.name())) {
      return i.name().compareTo(j.name()) > 0 ? -1 : 1;
    }
    return 0;
  }

  private static long epochSeconds(String rfc3339, long absent) {
    if (rfc3339 == null || rfc3339.isEmpty()) {
      return absent;
    }
    try {
      return Instant.parse(rfc3339).getEpochSecond();
    } catch (DateTimeParseException e) {
      return absent;
    }
  }

  private static boolean empty(String s) {
    return s == null || s.isEmpty();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
