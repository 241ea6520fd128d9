package sh.karpenter.cli;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.slf4j.bridge.SLF4JBridgeHandler;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.cli.logging.ZapEncoder;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.ControllerClient;
import sh.karpenter.controller.snapshot.SchedulerConfig;
import sh.karpenter.controller.snapshot.SnapshotInputException;
import sh.karpenter.core.catalog.AwsCatalogOptions;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulerOptions.MinValuesPolicy;
import sh.karpenter.core.scheduling.SchedulerOptions.PreferencePolicy;
import sh.karpenter.controller.runtime.KubernetesEventRecorder;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.OperatorExtension;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.providers.aws.operator.AwsProvider;
import sh.karpenter.providers.aws.sdk.AwsSdk;
import sh.karpenter.providers.kwok.KwokCloudProvider;

/**
 * {@code karpenter controller}: runs Karpenter against a cluster. Flags and environment variables
 * follow upstream's (docs/behaviour/options.md); each flag's default comes from its environment variable when set.
 *
 * <p>A bad flag or kubeconfig ends the command before it starts, with exit code 2 and one line
 * naming the flag or file ({@link Kubeconfigs}). Once configured, it waits for the API server,
 * logging the address it tries and why it failed until it answers.
 */
@Command(
    name = "controller",
    description = "Run the Karpenter controller against a cluster (provisioning and NodeClaim lifecycle).",
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class ControllerCommand implements Callable<Integer> {
  static final int BAD_INPUT = 2;

  /** The logger, made on first use: picocli creates every command when any one runs, and `plan` logs nothing. */
  private static final class Log {
    static final Logger LOG = LoggerFactory.getLogger(ControllerCommand.class);
  }
  /** The longest wait between two attempts to reach the API server. */
  private static final Duration MAX_RETRY_DELAY = Duration.ofSeconds(30);

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(names = "--kubeconfig", paramLabel = "FILE", defaultValue = "${env:KUBECONFIG}",
      description = "kubeconfig of the cluster (default: $KUBECONFIG, else in-cluster or ~/.kube/config).")
  Path kubeconfig;

  @Option(names = "--cloud-provider", paramLabel = "NAME", defaultValue = "${env:CLOUD_PROVIDER:-kwok}",
      description = "Cloud provider: kwok (nodes are KWOK-managed Node objects) or aws (EC2; credentials, region and endpoints from the AWS SDK's default chain). Default: ${DEFAULT-VALUE}.")
  String cloudProvider;

  @CommandLine.Mixin
  AwsFlags aws = new AwsFlags();

  /** Upstream AWS provider's flags and environment variables (docs/behaviour/aws.md#settings). */
  static final class AwsFlags {
    @Option(names = "--cluster-name", defaultValue = "${env:CLUSTER_NAME:-}",
        description = "[required with aws] The cluster's name, for discovery and tags.")
    String clusterName = "";

    @Option(names = "--cluster-endpoint", defaultValue = "${env:CLUSTER_ENDPOINT:-}",
        description = "API server URL new nodes join (default: the one this controller uses).")
    String clusterEndpoint = "";

    @Option(names = "--cluster-ca-bundle", defaultValue = "${env:CLUSTER_CA_BUNDLE:-}",
        description = "Base64 CA bundle new nodes trust (default: the CA this controller trusts).")
    String clusterCaBundle = "";

    @Option(names = "--cluster-service-cidr", defaultValue = "${env:CLUSTER_SERVICE_CIDR:-}",
        description = "The cluster's service CIDR, which AL2023 nodes need (upstream reads it from EKS DescribeCluster; not an upstream flag).")
    String serviceCidr = "";

    @Option(names = "--isolated-vpc", defaultValue = "${env:ISOLATED_VPC:-false}",
        description = "Assume AWS services without a VPC endpoint are unreachable (no live on-demand pricing; this build always uses bundled on-demand prices).")
    boolean isolatedVpc;

    @Option(names = "--vm-memory-overhead-percent", defaultValue = "${env:VM_MEMORY_OVERHEAD_PERCENT:-0.075}",
        description = "Memory a VM loses to the hypervisor, as a fraction. Default: ${DEFAULT-VALUE}.")
    double vmMemoryOverheadPercent = 0.075;

    @Option(names = "--reserved-enis", defaultValue = "${env:RESERVED_ENIS:-0}",
        description = "ENIs left out of max-pods and kube-reserved. Default: ${DEFAULT-VALUE}.")
    int reservedEnis;

    @Option(names = "--interruption-queue", defaultValue = "${env:INTERRUPTION_QUEUE:-}",
        description = "Name of the SQS queue of interruption events (spot interruptions, scheduled changes, state changes) to react to; none by default.")
    String interruptionQueue = "";

    @Option(names = "--subnet-refresh-interval", defaultValue = "${env:SUBNET_REFRESH_INTERVAL:-1m}", description = "Default: ${DEFAULT-VALUE}.")
    String subnetRefresh = "1m";

    @Option(names = "--security-group-refresh-interval", defaultValue = "${env:SECURITY_GROUP_REFRESH_INTERVAL:-1m}",
        description = "Default: ${DEFAULT-VALUE}.")
    String securityGroupRefresh = "1m";

    @Option(names = "--ami-refresh-interval", defaultValue = "${env:AMI_REFRESH_INTERVAL:-1m}", description = "Default: ${DEFAULT-VALUE}.")
    String amiRefresh = "1m";

    @Option(names = "--aws-ssm-parameter-prefix", defaultValue = "${env:AWS_SSM_PARAMETER_PREFIX:-}",
        description = "Prefix of the public SSM parameters AMI aliases read (empty on AWS; for emulators that refuse /aws/; not an upstream flag).")
    String ssmParameterPrefix = "";

    AwsProvider.Settings settings() {
      return new AwsProvider.Settings(clusterName, nonEmpty(clusterEndpoint), nonEmpty(clusterCaBundle), nonEmpty(serviceCidr),
          vmMemoryOverheadPercent, reservedEnis, ssmParameterPrefix,
          duration("--subnet-refresh-interval", subnetRefresh), duration("--security-group-refresh-interval", securityGroupRefresh),
          duration("--ami-refresh-interval", amiRefresh), nonEmpty(interruptionQueue));
    }

    private static java.util.Optional<String> nonEmpty(String value) {
      return value == null || value.isBlank() ? java.util.Optional.empty() : java.util.Optional.of(value.trim());
    }

    private static Duration duration(String flag, String value) {
      try {
        return GoDuration.parse(value).duration();
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(flag + ": " + e.getMessage());
      }
    }
  }

  @Option(names = "--instance-types-file-path", paramLabel = "FILE", defaultValue = "${env:INSTANCE_TYPES_FILE_PATH}",
      description = "Instance catalogue for the kwok provider, in the format of aws-instance-types.json or upstream KWOK's instance_types.json (default: the bundled AWS catalogue).")
  Path instanceTypesFile;

  @Option(names = "--zones", split = ",", paramLabel = "ZONE", defaultValue = "${env:ZONES:-us-east-1a,us-east-1b,us-east-1c}",
      description = "Zones offered for every instance type of the bundled catalogue. Default: ${DEFAULT-VALUE}.")
  List<String> zones;

  @Option(names = "--batch-max-duration", paramLabel = "DURATION", defaultValue = "${env:BATCH_MAX_DURATION:-10s}",
      description = "Longest a provisioning batch stays open. Default: ${DEFAULT-VALUE}.")
  String batchMaxDuration;

  @Option(names = "--batch-idle-duration", paramLabel = "DURATION", defaultValue = "${env:BATCH_IDLE_DURATION:-1s}",
      description = "A batch closes after this long without a new pending pod. Default: ${DEFAULT-VALUE}.")
  String batchIdleDuration;

  @Option(names = "--preference-policy", paramLabel = "POLICY", defaultValue = "${env:PREFERENCE_POLICY:-Respect}",
      description = "Respect or Ignore preferred affinity and ScheduleAnyway spread. Default: ${DEFAULT-VALUE}.")
  PreferencePolicy preferencePolicy;

  @Option(names = "--min-values-policy", paramLabel = "POLICY", defaultValue = "${env:MIN_VALUES_POLICY:-Strict}",
      description = "Strict or BestEffort handling of requirement minValues. Default: ${DEFAULT-VALUE}.")
  MinValuesPolicy minValuesPolicy;

  @Option(names = "--scheduler-config", paramLabel = "FILE", defaultValue = "${env:SCHEDULER_CONFIG}",
      description = "kube-scheduler configuration whose podTopologySpread defaultConstraints apply to pods without constraints.")
  Path schedulerConfig;

  @Option(names = "--log-level", paramLabel = "LEVEL", defaultValue = "${env:LOG_LEVEL:-info}",
      description = "debug, info or error. Default: ${DEFAULT-VALUE}.")
  String logLevel;

  @Option(names = "--log-format", paramLabel = "FORMAT", defaultValue = "${env:LOG_FORMAT:-json}",
      description = "json (upstream's zap JSON lines) or text (zap's console layout, for a terminal). Default: ${DEFAULT-VALUE}.")
  String logFormat;

  @Option(names = "--metrics-port", defaultValue = "${env:METRICS_PORT:-8080}",
      description = "Port of /metrics (0: any free port, -1: off). Default: ${DEFAULT-VALUE}.")
  int metricsPort;

  @Option(names = "--health-probe-port", defaultValue = "${env:HEALTH_PROBE_PORT:-8081}",
      description = "Port of /healthz and /readyz (0: any free port, -1: off). Default: ${DEFAULT-VALUE}.")
  int healthProbePort;

  @Option(names = "--disable-leader-election", defaultValue = "${env:DISABLE_LEADER_ELECTION:-false}",
      description = "Run the loops without electing a leader (only for a single replica).")
  boolean disableLeaderElection;

  @Option(names = "--leader-election-name", defaultValue = "${env:LEADER_ELECTION_NAME:-karpenter-leader-election}",
      description = "Name of the leader-election Lease. Default: ${DEFAULT-VALUE}.")
  String leaderElectionName;

  @Option(names = "--leader-election-namespace", defaultValue = "${env:LEADER_ELECTION_NAMESPACE:-kube-system}",
      description = "Namespace of the leader-election Lease. Default: ${DEFAULT-VALUE}.")
  String leaderElectionNamespace;

  @Option(names = "--kube-client-qps", defaultValue = "${env:KUBE_CLIENT_QPS:-200}", description = "API client QPS. Default: ${DEFAULT-VALUE}.")
  int kubeClientQps;

  @Option(names = "--kube-client-burst", defaultValue = "${env:KUBE_CLIENT_BURST:-300}", description = "API client burst. Default: ${DEFAULT-VALUE}.")
  int kubeClientBurst;

  @Option(names = "--cpu-requests", defaultValue = "${env:CPU_REQUESTS:-1000}", description = "Millicores available to the process; sizes worker pools. Default: ${DEFAULT-VALUE}.")
  int cpuRequests;

  @Option(names = "--feature-gates", paramLabel = "GATES", defaultValue = "${env:FEATURE_GATES:-}",
      description = "Comma-separated Name=true|false pairs over upstream's defaults.")
  String featureGates;

  @Option(names = "--prebind", defaultValue = "${env:PREBIND:-false}",
      description = "Optimistic pre-binding: bind nominated pods to the Node as soon as it registers. Default: ${DEFAULT-VALUE}.")
  boolean prebind;

  @Option(names = "--disruption-shadow-mode", defaultValue = "${env:DISRUPTION_SHADOW_MODE:-false}",
      description = "Voluntary disruption (emptiness, drift, consolidation) reports what it would do and acts on nothing."
          + " Default: ${DEFAULT-VALUE}.")
  boolean disruptionShadowMode;

  @Option(names = "--disruption-repack-consolidation", defaultValue = "${env:DISRUPTION_REPACK_CONSOLIDATION:-false}",
      description = "After upstream's consolidation methods, repack: drain several nodes onto the cluster and cheaper new nodes"
          + " when the move pays back within --disruption-payback-horizon (not upstream's). Default: ${DEFAULT-VALUE}.")
  boolean repackConsolidation;

  @Option(names = "--disruption-payback-horizon", defaultValue = "${env:DISRUPTION_PAYBACK_HORIZON:-2h}",
      description = "A repack move is taken only when its savings over this horizon exceed its disruption cost. Default: ${DEFAULT-VALUE}.")
  String paybackHorizon;

  @Override
  public Integer call() throws Exception {
    PrintWriter err = spec.commandLine().getErr();
    Options options;
    AwsProvider.Settings awsSettings = null;
    String level;
    Kubeconfigs.Loaded kube;
    try {
      options = options();
      level = logLevel(logLevel);
      ZapEncoder.parseFormat(logFormat);
      if (!cloudProvider.equals("kwok") && !cloudProvider.equals("aws")) {
        throw new IllegalArgumentException("--cloud-provider: unknown provider \"" + cloudProvider + "\" (supported: kwok, aws)");
      }
      if (cloudProvider.equals("aws")) {
        awsSettings = aws.settings();
      }
    } catch (IllegalArgumentException | SnapshotInputException | IOException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    }
    InstanceTypeCatalog catalog;
    try {
      catalog = catalog();
    } catch (IOException | IllegalArgumentException e) {
      err.println("error: --instance-types-file-path " + instanceTypesFile + ": not an instance catalogue: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    }
    try {
      kube = Kubeconfigs.load(kubeconfig);
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    }
    configureLogging(level, logFormat);
    if (!aws.interruptionQueue.isBlank() && awsSettings == null) {
      Log.LOG.warn("--interruption-queue {}: only the aws cloud provider reads an interruption queue; ignored", aws.interruptionQueue);
    }
    Metrics metrics = new Metrics(io.prometheus.client.CollectorRegistry.defaultRegistry);
    try (KubernetesClient client = ControllerClient.builder(kube.config(), kubeClientQps, kubeClientBurst, metrics.apiRequests()).build()) {
      awaitApiServer(client, kube);
      Provider provider;
      try {
        provider = provider(client, awsSettings, catalog);
      } catch (IllegalArgumentException | software.amazon.awssdk.core.exception.SdkClientException e) {
        err.println("error: --cloud-provider " + cloudProvider + ": " + e.getMessage());
        err.flush();
        return BAD_INPUT;
      }
      try (provider;
          Operator operator = new Operator(client, provider.cloudProvider(), options, Clock.systemUTC(),
              metrics, new KubernetesEventRecorder(client, Clock.systemUTC()),
              provider.extensions())) {
        Runtime.getRuntime().addShutdownHook(new Thread(operator::close, "karpenter-shutdown"));
        // A deposed leader ends at once, without waiting for in-flight reconciles (upstream exits too).
        operator.onLeadershipLost(() -> {
          err.println("error: lost leadership; exiting");
          err.flush();
          Runtime.getRuntime().halt(1);
        });
        try {
          operator.start();
        } catch (UncheckedIOException e) {
          err.println("error: --metrics-port " + metricsPort + ", --health-probe-port " + healthProbePort + ": cannot listen: "
              + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()));
          err.flush();
          return BAD_INPUT;
        }
        operator.awaitTermination();
        return operator.leadershipWasLost() ? 1 : 0;
      }
    }
  }

  /** The cloud provider the Operator runs with, the extensions it adds, and what to close after the Operator. */
  private record Provider(CloudProvider cloudProvider, List<OperatorExtension> extensions, AutoCloseable resources)
      implements AutoCloseable {
    @Override
    public void close() throws Exception {
      resources.close();
    }
  }

  private static Provider provider(KubernetesClient client, AwsProvider.Settings awsSettings, InstanceTypeCatalog catalog) {
    if (awsSettings != null) {
      AwsProvider aws = AwsProvider.create(client, AwsSdk.fromEnvironment(), awsSettings, Clock.systemUTC());
      return new Provider(aws.cloudProvider(), aws.extensions(), aws);
    }
    KwokCloudProvider kwok = new KwokCloudProvider(client, catalog, Clock.systemUTC());
    return new Provider(kwok, List.of(), kwok);
  }

  /**
   * Waits until the API server answers a version request, logging at error level, on each failed
   * attempt, the server's address, where it came from and why the attempt failed (backing off from
   * one second to {@link #MAX_RETRY_DELAY}).
   */
  private static void awaitApiServer(KubernetesClient client, Kubeconfigs.Loaded kube) throws InterruptedException {
    String server = kube.config().getMasterUrl();
    Duration delay = Duration.ofSeconds(1);
    while (true) {
      try {
        var version = client.getKubernetesVersion();
        Log.LOG.info("connected to the API server at {} ({}), Kubernetes {}", server, kube.source(), version.getGitVersion());
        return;
      } catch (KubernetesClientException e) {
        Log.LOG.error("cannot reach the API server at {} ({}): {}; retrying in {}s", server, kube.source(), rootCause(e), delay.toSeconds());
      }
      Thread.sleep(delay);
      delay = delay.multipliedBy(2).compareTo(MAX_RETRY_DELAY) > 0 ? MAX_RETRY_DELAY : delay.multipliedBy(2);
    }
  }

  /**
   * Why a request failed, for people: the HTTP status when the server answered, else what the
   * transport reported (the JDK client's exceptions often carry no message, only their type).
   */
  static String rootCause(KubernetesClientException e) {
    if (e.getCode() > 0) {
      return "HTTP " + e.getCode() + (e.getStatus() != null && e.getStatus().getMessage() != null ? ": " + e.getStatus().getMessage() : "");
    }
    String detail = null;
    for (Throwable cause = e.getCause(); cause != null && cause != cause.getCause(); cause = cause.getCause()) {
      String message = switch (cause) {
        case java.net.ConnectException c -> "connection refused or unreachable";
        case java.net.UnknownHostException u -> "unknown host " + u.getMessage();
        case java.net.http.HttpTimeoutException t -> "timed out";
        case javax.net.ssl.SSLException t -> "TLS: " + t.getMessage();
        default -> null;
      };
      if (message != null) {
        return message;
      }
      if (detail == null && cause.getMessage() != null && !cause.getMessage().isBlank()) {
        detail = cause.getMessage();
      }
    }
    return detail != null ? detail : e.getMessage();
  }

  Options options() throws IOException {
    Map<String, Boolean> gates = new HashMap<>(Options.DEFAULT_FEATURE_GATES);
    for (String pair : featureGates.split(",")) {
      if (pair.isBlank()) {
        continue;
      }
      String[] kv = pair.trim().split("=", 2);
      if (kv.length != 2 || !(kv[1].equalsIgnoreCase("true") || kv[1].equalsIgnoreCase("false"))) {
        throw new IllegalArgumentException("--feature-gates: expected Name=true|false, got \"" + pair.trim() + "\"");
      }
      gates.put(kv[0], Boolean.parseBoolean(kv[1].toLowerCase(Locale.ROOT)));
    }
    SchedulerConfig config = schedulerConfig == null ? SchedulerConfig.NONE : SchedulerConfig.read(schedulerConfig);
    return Options.defaults()
        .withBatchDurations(duration("--batch-idle-duration", batchIdleDuration), duration("--batch-max-duration", batchMaxDuration))
        .withScheduler(new SchedulerOptions(preferencePolicy, minValuesPolicy), config.defaultConstraints())
        .withPorts(metricsPort, healthProbePort)
        .withLeaderElection(!disableLeaderElection, leaderElectionName, leaderElectionNamespace)
        .withPrebind(prebind)
        .withDisruptionShadowMode(disruptionShadowMode)
        .withRepackConsolidation(repackConsolidation, duration("--disruption-payback-horizon", paybackHorizon))
        .withFeatureGates(gates, cpuRequests);
  }

  private static Duration duration(String flag, String text) {
    try {
      return GoDuration.parse(text).duration();
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(flag + ": not a duration: \"" + text + "\" (examples: 1s, 500ms, 1m30s)");
    }
  }

  private InstanceTypeCatalog catalog() throws IOException {
    AwsCatalogOptions options = AwsCatalogOptions.DEFAULT.withZones(zones);
    return instanceTypesFile == null ? InstanceTypeCatalog.aws(options) : InstanceTypeCatalog.fromFile(instanceTypesFile, options);
  }

  /** The logback level of {@code --log-level}. */
  static String logLevel(String level) {
    return switch (level.toLowerCase(Locale.ROOT)) {
      case "debug", "info", "error", "warn" -> level.toUpperCase(Locale.ROOT);
      default -> throw new IllegalArgumentException("--log-level: expected debug, info or error, got \"" + level + "\"");
    };
  }

  /**
   * Switches logback to upstream-shaped lines ({@link ZapEncoder}) in the requested format and level,
   * and routes java.util.logging through it.
   */
  static void configureLogging(String level, String format) {
    String normalized = logLevel(level);
    ZapEncoder.parseFormat(format);
    if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext context)) {
      return;
    }
    context.reset();
    context.putProperty("KARPENTER_LOG_LEVEL", normalized);
    context.putProperty("KARPENTER_LOG_FORMAT", format.trim().toLowerCase(Locale.ROOT));
    context.putProperty("KARPENTER_LOG_CALLER", String.valueOf(normalized.equals("DEBUG")));
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    try {
      configurator.doConfigure(ControllerCommand.class.getResource("/logback-controller.xml"));
    } catch (JoranException e) {
      throw new IllegalStateException("logging configuration failed", e);
    }
    SLF4JBridgeHandler.removeHandlersForRootLogger();
    SLF4JBridgeHandler.install();
  }
}
