package sh.karpenter.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.validation.Manifests;
import sh.karpenter.cli.plan.BackgroundWork;
import sh.karpenter.cli.plan.LiveAwsCatalog;
import sh.karpenter.cli.plan.ManifestReader;
import sh.karpenter.cli.plan.PlanReport;
import sh.karpenter.cli.plan.PlanWriters;
import sh.karpenter.cli.plan.Planner;
import sh.karpenter.controller.snapshot.SchedulerConfig;
import sh.karpenter.controller.snapshot.SnapshotInputException;
import sh.karpenter.core.catalog.AwsCatalogOptions;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulerOptions.MinValuesPolicy;
import sh.karpenter.core.scheduling.SchedulerOptions.PreferencePolicy;

/**
 * {@code karpenter plan}: runs the provisioner's scheduling simulation once on a snapshot of
 * manifests and prints the NodeClaims it would create, their cost and a proven lower bound on that
 * cost. Needs no cluster and no cloud account. The JSON output is a stable contract ({@code
 * docs/plan-contract.md}).
 *
 * <p>Bad input exits with {@link #BAD_INPUT} and one line naming file, document and field; input
 * beyond the limits ({@code --max-file-size}, {@code --max-input-size}, {@code
 * --max-expanded-pods}, the YAML line and nesting limits of {@link Manifests}) and input the JVM's
 * heap cannot hold end the same way, never with a stack trace.
 */
@Command(
    name = "plan",
    description = "Show the NodeClaims Karpenter would create for a snapshot of manifests, with their cost.",
    mixinStandardHelpOptions = true,
    sortOptions = false)
public final class PlanCommand implements Callable<Integer> {
  /** Exit code for input that cannot be planned; the message names file, document and field. */
  static final int BAD_INPUT = 2;

  /** Output formats. */
  enum Output {
    table,
    json
  }

  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Option(
      names = "-f",
      required = true,
      paramLabel = "PATH",
      description = "A YAML file (documents separated by ---) or a directory of *.yaml|*.yml files, read recursively. Repeatable.")
  List<Path> paths;

  @Option(
      names = "--instance-types",
      paramLabel = "FILE",
      description = "An instance catalogue in the format of aws-instance-types.json (default: the bundled AWS catalogue).")
  Path instanceTypes;

  @Option(
      names = "--zones",
      split = ",",
      paramLabel = "ZONE",
      description = "Zones offered for every instance type when the catalogue has none (default: ${DEFAULT-VALUE}).")
  List<String> zones = AwsCatalogOptions.DEFAULT_ZONES;

  @Option(
      names = {"-o", "--output"},
      paramLabel = "FORMAT",
      description = "table (for people) or json (the plan contract). Default: ${DEFAULT-VALUE}.")
  Output output = Output.table;

  @Option(
      names = "--preference-policy",
      paramLabel = "POLICY",
      description = "Respect or Ignore preferred affinity and ScheduleAnyway spread. Default: ${DEFAULT-VALUE}.")
  PreferencePolicy preferencePolicy = PreferencePolicy.Respect;

  @Option(
      names = "--min-values-policy",
      paramLabel = "POLICY",
      description = "Strict or BestEffort handling of requirement minValues. Default: ${DEFAULT-VALUE}.")
  MinValuesPolicy minValuesPolicy = MinValuesPolicy.Strict;

  @Option(
      names = "--scheduler-config",
      paramLabel = "FILE",
      description =
          "The cluster's kube-scheduler configuration (a KubeSchedulerConfiguration, or podTopologySpread.defaultConstraints alone), YAML or JSON."
              + " Its PodTopologySpread defaultConstraints apply to pending pods without constraints of their own.")
  Path schedulerConfig;

  @Option(
      names = "--max-file-size",
      paramLabel = "SIZE",
      converter = ByteSize.class,
      description = "Largest input file read, as a Kubernetes quantity. Default: 64Mi.")
  long maxFileSize = Manifests.Limits.DEFAULT.maxFileBytes();

  @Option(
      names = "--max-input-size",
      paramLabel = "SIZE",
      converter = ByteSize.class,
      description = "Most bytes read from all input files together, as a Kubernetes quantity. Default: 256Mi.")
  long maxInputSize = Manifests.Limits.DEFAULT.maxTotalBytes();

  @Option(
      names = "--aws-endpoint",
      paramLabel = "URL",
      description = "Read instance types, offerings and prices from this EC2 endpoint (credentials from the AWS SDK's default chain) instead of the bundled catalogue.")
  URI awsEndpoint;

  @Option(
      names = "--aws-region",
      paramLabel = "REGION",
      description = "The region of --aws-endpoint (default: the AWS SDK's default chain, e.g. AWS_REGION).")
  String awsRegion;

  @Option(
      names = "--max-expanded-pods",
      paramLabel = "N",
      description = "Most pods expanded from Deployments, ReplicaSets, StatefulSets and Jobs together. Default: ${DEFAULT-VALUE}.")
  int maxExpandedPods = Planner.DEFAULT_MAX_EXPANDED_PODS;

  @Override
  public Integer call() {
    PrintWriter out = spec.commandLine().getOut();
    PrintWriter err = spec.commandLine().getErr();
    validateFlags();
    try {
      // The bundled catalogue (1,364 types) loads on a second thread while the manifests are read:
      // on a fresh JVM both are mostly class loading and interpreted code, and a machine has cores.
      CompletableFuture<InstanceTypeCatalog> loading = awsEndpoint == null ? BackgroundWork.start("plan-catalogue", this::catalog) : null;
      SchedulerConfig config;
      List<ManifestReader.PlanManifest> manifests;
      try {
        config = schedulerConfig == null ? SchedulerConfig.NONE : SchedulerConfig.read(schedulerConfig);
        manifests = new ManifestReader(w -> err.println("warning: " + w), new Manifests.Limits(maxFileSize, maxInputSize)).read(paths);
      } catch (RuntimeException | Error e) {
        if (loading != null) {
          BackgroundWork.join(loading); // a bad --instance-types is reported first, as when the two ran in turn
        }
        throw e;
      }
      InstanceTypeCatalog catalog = loading != null ? BackgroundWork.join(loading) : liveCatalog(manifests, err);
      PlanReport report =
          new Planner(catalog, new SchedulerOptions(preferencePolicy, minValuesPolicy), config.defaultConstraints())
              .maxExpandedPods(maxExpandedPods)
              .plan(manifests, w -> err.println("warning: " + w));
      if (output == Output.json) {
        PlanWriters.json(report, out);
      } else {
        PlanWriters.table(report, catalog.notes(), out);
      }
    } catch (LiveAwsCatalog.EndpointException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    } catch (SnapshotInputException e) {
      err.println("error: " + e.getMessage());
      err.flush();
      return BAD_INPUT;
    } catch (OutOfMemoryError e) {
      err.println(
          "error: out of memory: the input needs more than the JVM's maximum heap of "
              + Runtime.getRuntime().maxMemory() / (1 << 20)
              + " MiB; give it more (KARPENTER_JAVA_OPTS=-Xmx8g) or plan a smaller snapshot");
      err.flush();
      return BAD_INPUT;
    }
    return 0;
  }

  /** Flag values picocli's types let through but a plan cannot use: usage errors (exit code 2). */
  private void validateFlags() {
    if (zones.isEmpty() || zones.stream().anyMatch(String::isBlank)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--zones: expected zone names separated by commas, got \"" + String.join(",", zones) + "\"");
    }
    if (new HashSet<>(zones).size() != zones.size()) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--zones: a zone is named twice in \"" + String.join(",", zones) + "\"");
    }
    if (awsEndpoint == null && awsRegion != null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--aws-region: only used with --aws-endpoint");
    }
    if (awsEndpoint != null && instanceTypes != null) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--aws-endpoint: give either it or --instance-types, not both");
    }
    if (awsEndpoint != null && (awsEndpoint.getScheme() == null || awsEndpoint.getHost() == null)) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--aws-endpoint: expected a URL such as https://ec2.us-west-2.amazonaws.com, got \"" + awsEndpoint + "\"");
    }
    if (maxExpandedPods < 0) {
      throw new CommandLine.ParameterException(spec.commandLine(), "--max-expanded-pods: must not be negative, got " + maxExpandedPods);
    }
  }

  /** A size in bytes written as a Kubernetes quantity ({@code 64Mi}, {@code 1G}, {@code 500000}). */
  static final class ByteSize implements CommandLine.ITypeConverter<Long> {
    @Override
    public Long convert(String value) {
      long milli;
      try {
        milli = Quantity.parseMilli(value.trim());
      } catch (IllegalArgumentException e) {
        throw new CommandLine.TypeConversionException("not a size: \"" + value + "\" (examples: 64Mi, 1Gi, 500M)");
      }
      if (milli < 1000) {
        throw new CommandLine.TypeConversionException("a size must be at least 1 byte, got \"" + value + "\"");
      }
      return milli / 1000;
    }
  }

  /**
   * The live catalogue of {@code --aws-endpoint}: the zones the region offers, restricted to an
   * explicit {@code --zones}; the settings of the input's EC2NodeClass when it has exactly one.
   */
  private InstanceTypeCatalog liveCatalog(List<ManifestReader.PlanManifest> manifests, PrintWriter err) {
    List<ManifestReader.PlanManifest> nodeClasses = manifests.stream().filter(m -> m.object() instanceof EC2NodeClass).toList();
    Optional<EC2NodeClass> nodeClass = Optional.empty();
    if (nodeClasses.size() == 1) {
      nodeClass = Optional.of((EC2NodeClass) nodeClasses.getFirst().object());
    } else if (nodeClasses.size() > 1) {
      err.println("warning: " + nodeClasses.size() + " EC2NodeClasses given; --aws-endpoint lists instance types with default settings");
    }
    boolean zonesGiven = spec.commandLine().getParseResult().hasMatchedOption("--zones");
    try {
      return LiveAwsCatalog.load(awsEndpoint, Optional.ofNullable(awsRegion), zonesGiven ? Optional.of(zones) : Optional.empty(), nodeClass);
    } catch (IllegalArgumentException e) {
      String origin = nodeClass.isPresent() ? nodeClasses.getFirst().origin() : "--aws-endpoint";
      throw new SnapshotInputException(origin, null, e.getMessage());
    }
  }

  private InstanceTypeCatalog catalog() {
    AwsCatalogOptions options = AwsCatalogOptions.DEFAULT.withZones(zones);
    if (instanceTypes == null) {
      return InstanceTypeCatalog.aws(options);
    }
    try {
      return InstanceTypeCatalog.fromFile(instanceTypes, options);
    } catch (IOException | IllegalArgumentException e) {
      throw new SnapshotInputException(instanceTypes.toString(), null, "not an instance catalogue: " + e.getMessage());
    }
  }
}
