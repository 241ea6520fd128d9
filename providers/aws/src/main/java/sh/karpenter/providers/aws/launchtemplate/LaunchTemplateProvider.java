package sh.karpenter.providers.aws.launchtemplate;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.AwsTags;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.providers.aws.amifamily.ClusterInfo;
import sh.karpenter.providers.aws.amifamily.ResolvedLaunchTemplate;
import sh.karpenter.providers.aws.amifamily.Resolver;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeLaunchTemplatesResponse;
import software.amazon.awssdk.services.ec2.model.Filter;

/**
 * Ensures the launch templates a launch needs exist (upstream's {@code launchtemplate.DefaultProvider}):
 * resolves them ({@link Resolver}), then for each name looks in its cache, else asks EC2 by name
 * (DescribeLaunchTemplates), else creates it (CreateLaunchTemplate); a create that loses a race to
 * another controller finds the winner's template by name. Thread-safe: each name is ensured once at a
 * time.
 */
public final class LaunchTemplateProvider {
  private static final Logger LOG = LoggerFactory.getLogger(LaunchTemplateProvider.class);

  private final Ec2Client ec2;
  private final ClusterInfo cluster;
  /** name → the template in EC2. */
  private final Map<String, software.amazon.awssdk.services.ec2.model.LaunchTemplate> cache = new ConcurrentHashMap<>();
  private final Map<String, Object> locks = new ConcurrentHashMap<>();

  public LaunchTemplateProvider(Ec2Client ec2, ClusterInfo cluster) {
    this.ec2 = Objects.requireNonNull(ec2, "ec2");
    this.cluster = Objects.requireNonNull(cluster, "cluster");
  }

  public ClusterInfo cluster() {
    return cluster;
  }

  /**
   * The launch templates for launching {@code instanceTypes} of {@code capacityType} from the
   * NodeClass (upstream's {@code EnsureAll}).
   *
   * @param labels the node's labels
   * @param taints the NodeClaim's taints then startup taints
   * @param tags the launch's tags
   * @throws IllegalArgumentException when the templates cannot be resolved ({@link Resolver#resolve})
   * @throws software.amazon.awssdk.core.exception.SdkException when EC2 fails
   */
  public List<LaunchTemplate> ensureAll(
      EC2NodeClass nodeClass,
      List<InstanceType> instanceTypes,
      String capacityType,
      Map<String, String> labels,
      List<Taint> taints,
      Map<String, String> tags) {
    List<LaunchTemplate> templates = new ArrayList<>();
    for (ResolvedLaunchTemplate resolved : Resolver.resolve(nodeClass, cluster, instanceTypes, capacityType, labels, taints, tags)) {
      software.amazon.awssdk.services.ec2.model.LaunchTemplate lt = ensure(resolved);
      templates.add(new LaunchTemplate(lt.launchTemplateName(), lt.launchTemplateId(), resolved.amiId(), resolved.instanceTypes()));
    }
    return templates;
  }

  private software.amazon.awssdk.services.ec2.model.LaunchTemplate ensure(ResolvedLaunchTemplate resolved) {
    String name = LaunchTemplateRequests.name(resolved);
    software.amazon.awssdk.services.ec2.model.LaunchTemplate cached = cache.get(name);
    if (cached != null) {
      return cached;
    }
    synchronized (locks.computeIfAbsent(name, n -> new Object())) {
      cached = cache.get(name);
      if (cached != null) {
        return cached;
      }
      software.amazon.awssdk.services.ec2.model.LaunchTemplate lt = describe(name);
      if (lt == null) {
        try {
          lt = ec2.createLaunchTemplate(LaunchTemplateRequests.create(resolved)).launchTemplate();
          LOG.debug("created launch template {} ({})", name, lt.launchTemplateId());
        } catch (AwsServiceException e) {
          if (!"InvalidLaunchTemplateName.AlreadyExistsException".equals(errorCode(e))) {
            throw e;
          }
          lt = describe(name);
          if (lt == null) {
            throw e;
          }
        }
      } else {
        LOG.debug("discovered launch template {} ({})", name, lt.launchTemplateId());
      }
      cache.put(name, lt);
      return lt;
    }
  }

  /** The template named {@code name} in EC2, or null when there is none. */
  private software.amazon.awssdk.services.ec2.model.LaunchTemplate describe(String name) {
    try {
      DescribeLaunchTemplatesResponse out = ec2.describeLaunchTemplates(r -> r.launchTemplateNames(name));
      if (out.launchTemplates().size() > 1) {
        throw new IllegalStateException("expected to find one launch template named " + name + ", found " + out.launchTemplates().size());
      }
      return out.launchTemplates().isEmpty() ? null : out.launchTemplates().get(0);
    } catch (AwsServiceException e) {
      if (isNotFound(e)) {
        return null;
      }
      throw e;
    }
  }

  /**
   * Forgets a cached template, so the next launch describes or re-creates it (upstream's {@code
   * InvalidateCache}, called when CreateFleet says a template is gone).
   */
  public void invalidate(String name) {
    if (cache.remove(name) != null) {
      LOG.debug("invalidating launch template {} in the cache because it no longer exists", name);
    }
  }

  /** Forgets every cached template. */
  public void invalidateAll() {
    cache.clear();
  }

  /**
   * Deletes every launch template of the NodeClass in this cluster (tagged {@code
   * eks:eks-cluster-name=<cluster>} and {@code karpenter.k8s.aws/ec2nodeclass=<name>}), upstream's
   * {@code DeleteAll}, which the NodeClass's termination runs.
   *
   * @return the names deleted
   * @throws software.amazon.awssdk.core.exception.SdkException from the first failed call (the
   *     others are still tried)
   */
  public List<String> deleteAll(EC2NodeClass nodeClass) {
    String nodeClassName = nodeClass.getMetadata().getName();
    List<String> names = new ArrayList<>();
    ec2.describeLaunchTemplatesPaginator(r -> r
            .filters(
                Filter.builder().name("tag:" + AwsTags.EKS_CLUSTER_NAME).values(cluster.name()).build(),
                Filter.builder().name("tag:" + AwsTags.NODE_CLASS).values(nodeClassName).build())
            .maxResults(200))
        .launchTemplates()
        .forEach(lt -> names.add(lt.launchTemplateName()));
    RuntimeException first = null;
    List<String> deleted = new ArrayList<>();
    for (String name : names) {
      try {
        ec2.deleteLaunchTemplate(r -> r.launchTemplateName(name));
        deleted.add(name);
      } catch (AwsServiceException e) {
        if (isNotFound(e)) {
          deleted.add(name);
        } else if (first == null) {
          first = e;
        }
      }
      cache.remove(name);
    }
    if (!deleted.isEmpty()) {
      LOG.debug("deleted launch templates {} of EC2NodeClass {}", deleted, nodeClassName);
    }
    if (first != null) {
      throw first;
    }
    return deleted;
  }

  static String errorCode(AwsServiceException e) {
    return e.awsErrorDetails() == null ? "" : String.valueOf(e.awsErrorDetails().errorCode());
  }

  /** EC2's answer for a launch template name or ID it does not know. */
  static boolean isNotFound(AwsServiceException e) {
    String code = errorCode(e);
    return code.equals("InvalidLaunchTemplateName.NotFoundException") || code.equals("InvalidLaunchTemplateId.NotFound");
  }
}
