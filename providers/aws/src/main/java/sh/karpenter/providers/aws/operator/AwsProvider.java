package sh.karpenter.providers.aws.operator;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.controller.operator.OperatorExtension;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.providers.aws.ami.AmiProvider;
import sh.karpenter.providers.aws.ami.KubernetesVersion;
import sh.karpenter.providers.aws.ami.SsmParameters;
import sh.karpenter.providers.aws.amifamily.ClusterInfo;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;
import sh.karpenter.providers.aws.cloudprovider.AwsCloudProvider;
import sh.karpenter.providers.aws.fleet.CreateFleetBatcher;
import sh.karpenter.providers.aws.instance.DescribeInstancesBatcher;
import sh.karpenter.providers.aws.fleet.LaunchSubnets;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.providers.aws.instanceprofile.InstanceProfileProvider;
import sh.karpenter.providers.aws.instancestatus.InstanceStatusProvider;
import sh.karpenter.providers.aws.interruption.InstanceStatusController;
import sh.karpenter.providers.aws.interruption.InterruptionController;
import sh.karpenter.providers.aws.instancetype.InstanceTypeProvider;
import sh.karpenter.providers.aws.launchtemplate.LaunchTemplateProvider;
import sh.karpenter.providers.aws.metrics.CloudProviderMetrics;
import sh.karpenter.providers.aws.nodeclass.NodeClassExtension;
import sh.karpenter.providers.aws.nodeclass.NodeClassProviders;
import sh.karpenter.providers.aws.nodeclass.NodeClassSettings;
import sh.karpenter.providers.aws.pricing.PricingProvider;
import sh.karpenter.providers.aws.sdk.AwsSdk;
import sh.karpenter.providers.aws.securitygroup.SecurityGroupProvider;
import sh.karpenter.providers.aws.sqs.SqsProvider;
import sh.karpenter.providers.aws.subnet.SubnetProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.regions.providers.DefaultAwsRegionProviderChain;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * The AWS provider assembled for the controller (upstream's {@code pkg/operator/operator.go}): SDK
 * clients, the caches and providers, the {@link AwsCloudProvider} and the Operator extensions that
 * add the EC2NodeClass controllers, the instance-type and pricing refresh loops, the leaked-instance
 * garbage collection, the instance-status controller and the interruption controller (with {@code
 * --interruption-queue}). Build it with
 * {@link #create}, hand {@link #cloudProvider()} and {@link #extensions()} to the Operator, close it
 * after the Operator.
 */
public final class AwsProvider implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AwsProvider.class);

  /**
   * The AWS settings of {@code karpenter controller} (upstream's AWS options; docs/behaviour/aws.md#settings).
   *
   * @param clusterName {@code --cluster-name}, required: tags, discovery, user data
   * @param clusterEndpoint {@code --cluster-endpoint}, or empty for the API server the controller talks to
   * @param clusterCaBundle {@code --cluster-ca-bundle} (base64), or empty for the controller's own CA
   * @param serviceCidr {@code --cluster-service-cidr}, the cluster's service CIDR that AL2023 nodes need
   *     (upstream reads it from EKS DescribeCluster); empty when unknown
   * @param vmMemoryOverheadPercent {@code --vm-memory-overhead-percent}
   * @param reservedEnis {@code --reserved-enis}
   * @param ssmParameterPrefix where the public SSM parameters of AMI aliases live ({@code /aws/service/...}
   *     below it); "" on AWS, another prefix against an emulator that refuses {@code /aws/}
   * @param subnetRefresh {@code --subnet-refresh-interval}
   * @param securityGroupRefresh {@code --security-group-refresh-interval}
   * @param amiRefresh {@code --ami-refresh-interval}
   * @param interruptionQueue {@code --interruption-queue}: the SQS queue of interruption events, or empty
   *     for no interruption handling (docs/behaviour/aws-interruption.md)
   */
  public record Settings(
      String clusterName,
      Optional<String> clusterEndpoint,
      Optional<String> clusterCaBundle,
      Optional<String> serviceCidr,
      double vmMemoryOverheadPercent,
      int reservedEnis,
      String ssmParameterPrefix,
      Duration subnetRefresh,
      Duration securityGroupRefresh,
      Duration amiRefresh,
      Optional<String> interruptionQueue) {
    public Settings {
      interruptionQueue = interruptionQueue == null ? Optional.empty() : interruptionQueue.filter(q -> !q.isBlank());
      if (clusterName == null || clusterName.isBlank()) {
        throw new IllegalArgumentException("--cluster-name: required with --cloud-provider aws (the cluster's name for discovery and tags)");
      }
      if (vmMemoryOverheadPercent < 0 || vmMemoryOverheadPercent >= 1) {
        throw new IllegalArgumentException("--vm-memory-overhead-percent: " + vmMemoryOverheadPercent + " is not in [0, 1)");
      }
      if (reservedEnis < 0) {
        throw new IllegalArgumentException("--reserved-enis: " + reservedEnis + " is negative");
      }
    }
  }

  private final Ec2Client ec2;
  private final SsmClient ssm;
  private final IamClient iam;
  private final SqsClient sqs; // null without an interruption queue
  private final CreateFleetBatcher batcher;
  private final DescribeInstancesBatcher describeBatcher;
  private final UnavailableOfferings unavailableOfferings;
  private final AwsCloudProvider cloudProvider;
  private final List<OperatorExtension> extensions;

  private AwsProvider(Ec2Client ec2, SsmClient ssm, IamClient iam, SqsClient sqs, CreateFleetBatcher batcher,
      DescribeInstancesBatcher describeBatcher, UnavailableOfferings unavailableOfferings, AwsCloudProvider cloudProvider, List<OperatorExtension> extensions) {
    this.unavailableOfferings = unavailableOfferings;
    this.ec2 = ec2;
    this.ssm = ssm;
    this.iam = iam;
    this.sqs = sqs;
    this.batcher = batcher;
    this.describeBatcher = describeBatcher;
    this.cloudProvider = cloudProvider;
    this.extensions = extensions;
  }

  /**
   * Builds every part, reads the cluster's Kubernetes version, kube-dns address and CA from the API
   * server and the client, and refreshes prices and instance types once before returning (a failure
   * is logged; the refresh loops try again).
   */
  public static AwsProvider create(KubernetesClient client, AwsSdk sdk, Settings settings, Clock clock) {
    return create(client, sdk, settings, clock, Tuning.DEFAULT);
  }

  /**
   * The periods of the provider's loops, which upstream fixes and tests shorten.
   *
   * @param garbageCollection the leaked-instance garbage collection's periods and minimum age
   * @param interruptionQueueWait the interruption queue's long-poll wait (tests shorten it so that
   *     closing does not wait 20 s)
   * @param instanceStatusInterval between two DescribeInstanceStatus polls
   */
  public record Tuning(InstanceGarbageCollection.Settings garbageCollection, Duration interruptionQueueWait, Duration instanceStatusInterval) {
    public static final Tuning DEFAULT =
        new Tuning(InstanceGarbageCollection.Settings.DEFAULT, SqsProvider.WAIT_TIME, InstanceStatusController.INTERVAL);
  }

  /**
   * {@link #create(KubernetesClient, AwsSdk, Settings, Clock)} with other periods ({@link Tuning#DEFAULT}
   * in production).
   */
  public static AwsProvider create(KubernetesClient client, AwsSdk sdk, Settings settings, Clock clock, Tuning tuning) {
    Region region = sdk.region().orElseGet(() -> new DefaultAwsRegionProviderChain().getRegion());
    Ec2Client ec2 = sdk.ec2();
    SsmClient ssm = sdk.ssm();
    IamClient iam = sdk.iam();
    String kubernetesVersion = KubernetesVersion.of(client);
    String caBundle = settings.clusterCaBundle().orElseGet(() -> caBundle(client.getConfiguration()));
    ClusterInfo cluster = new ClusterInfo(settings.clusterName(),
        settings.clusterEndpoint().orElse(client.getConfiguration().getMasterUrl().replaceAll("/$", "")),
        caBundle, settings.serviceCidr().orElse(null), kubeDnsIp(client));
    LOG.info("AWS provider: cluster {} in {}, Kubernetes {}, endpoint {}, service CIDR {}, kube-dns {}", cluster.name(), region.id(),
        kubernetesVersion, cluster.endpoint(), cluster.serviceCidr() == null ? "unknown" : cluster.serviceCidr(),
        cluster.kubeDnsIp() == null ? "not found" : cluster.kubeDnsIp());

    UnavailableOfferings unavailable = new UnavailableOfferings(clock);
    PricingProvider pricing = new PricingProvider(ec2, region.id(), clock);
    InstanceTypeProvider instanceTypes = new InstanceTypeProvider(ec2, region.id(), pricing, unavailable,
        new InstanceTypeProvider.Settings(settings.vmMemoryOverheadPercent(), settings.reservedEnis()), clock);
    LaunchTemplateProvider launchTemplates = new LaunchTemplateProvider(ec2, cluster);
    CreateFleetBatcher batcher = new CreateFleetBatcher(ec2::createFleet, CreateFleetBatcher.DEFAULT_WINDOW);
    DescribeInstancesBatcher describeBatcher = new DescribeInstancesBatcher(ec2::describeInstances, DescribeInstancesBatcher.DEFAULT_WINDOW);
    InstanceProvider instances = new InstanceProvider(ec2, cluster.name(), launchTemplates, new LaunchSubnets(ec2, clock), batcher, describeBatcher,
        unavailable);
    NodeClassExtension nodeClasses = new NodeClassExtension(
        new NodeClassProviders(
            new SubnetProvider(ec2, clock, settings.subnetRefresh()),
            new SecurityGroupProvider(ec2, clock, settings.securityGroupRefresh()),
            new AmiProvider(ec2, new SsmParameters(ssm, settings.ssmParameterPrefix(), clock), () -> kubernetesVersion, clock,
                settings.amiRefresh()),
            new InstanceProfileProvider(iam, clock)),
        new NodeClassSettings(cluster.name(), region.id(), Optional.ofNullable(caBundle)),
        List.of(launchTemplates::deleteAll));
    AwsCloudProvider cloudProvider = new AwsCloudProvider(name -> nodeClass(nodeClasses, name), instanceTypes, instances);

    refresh("prices", pricing::refresh);
    refresh("instance types", instanceTypes::refresh);
    OperatorExtension refreshLoops = context -> {
      context.loop("providers.pricing", () -> Result.requeueAfter(pricing.refresh()));
      context.loop("providers.instancetype", () -> Result.requeueAfter(instanceTypes.refresh()));
    };
    InstanceGarbageCollection leakedInstances = new InstanceGarbageCollection(instances, tuning.garbageCollection(), clock);
    CloudProviderMetrics metrics = new CloudProviderMetrics(cloudProvider::instanceTypes, pricing::onDemandPricesLive, pricing::spotPricesLive);
    InstanceStatusController instanceStatus = new InstanceStatusController(new InstanceStatusProvider(ec2, clock), clock,
        tuning.instanceStatusInterval());
    List<OperatorExtension> extensions = new ArrayList<>(List.of(nodeClasses, refreshLoops, leakedInstances, metrics, instanceStatus));
    SqsClient sqs = null;
    if (settings.interruptionQueue().isPresent()) {
      sqs = sdk.sqs();
      extensions.add(new InterruptionController(new SqsProvider(sqs, settings.interruptionQueue().get(), tuning.interruptionQueueWait()), unavailable,
          clock));
      LOG.info("AWS provider: interruption handling from the queue {}", settings.interruptionQueue().get());
    }
    return new AwsProvider(ec2, ssm, iam, sqs, batcher, describeBatcher, unavailable, cloudProvider, List.copyOf(extensions));
  }

  /** The offerings marked unavailable (launch failures for lack of capacity, spot interruptions). */
  public UnavailableOfferings unavailableOfferings() {
    return unavailableOfferings;
  }

  public AwsCloudProvider cloudProvider() {
    return cloudProvider;
  }

  /**
   * The EC2NodeClass controllers, the refresh loops, the instance garbage collection, the provider's
   * metrics, the instance-status controller and, with an interruption queue, the interruption
   * controller, for the Operator.
   */
  public List<OperatorExtension> extensions() {
    return extensions;
  }

  @Override
  public void close() {
    batcher.close();
    describeBatcher.close();
    ec2.close();
    ssm.close();
    iam.close();
    if (sqs != null) {
      sqs.close();
    }
  }

  private static Optional<EC2NodeClass> nodeClass(NodeClassExtension extension, String name) {
    var informer = extension.nodeClasses();
    return informer == null ? Optional.empty() : Optional.ofNullable(informer.getStore().getByKey(name));
  }

  private static void refresh(String what, java.util.concurrent.Callable<Duration> refresh) {
    try {
      refresh.call();
    } catch (Exception e) {
      LOG.error("AWS provider: first refresh of {} failed (the refresh loop retries): {}", what, e.getMessage());
    }
  }

  /** The CA the controller trusts for the API server, base64, or null (nodes then need {@code --cluster-ca-bundle}). */
  static String caBundle(Config config) {
    try {
      if (config.getCaCertData() != null && !config.getCaCertData().isBlank()) {
        return config.getCaCertData().trim();
      }
      if (config.getCaCertFile() != null) {
        byte[] pem = Files.readAllBytes(Path.of(config.getCaCertFile()));
        return Base64.getEncoder().encodeToString(pem);
      }
    } catch (IOException e) {
      LOG.warn("AWS provider: cannot read the cluster CA {}: {}", config.getCaCertFile(), e.getMessage());
    }
    return null;
  }

  /** kube-system/kube-dns's cluster IP (upstream's default clusterDNS), or null when there is none. */
  static String kubeDnsIp(KubernetesClient client) {
    try {
      Service dns = client.services().inNamespace("kube-system").withName("kube-dns").get();
      String ip = dns == null || dns.getSpec() == null ? null : dns.getSpec().getClusterIP();
      return ip == null || ip.isBlank() || ip.equals("None") ? null : ip;
    } catch (KubernetesClientException e) {
      LOG.warn("AWS provider: cannot read kube-system/kube-dns: {}", e.getMessage());
      return null;
    }
  }
}
