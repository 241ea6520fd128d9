package sh.karpenter.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;
import sh.karpenter.testkit.chart.Helm;

/**
 * The chart passes {@code karpenter controller} only flags and environment variables the command
 * accepts, with values it parses: renders charts/karpenter with {@code helm template} (helm built by
 * {@code scripts/control-plane ensure}; skipped without it, failing under {@code CI=true}), takes the
 * controller container's args and env, and checks them against the command's picocli model: every arg
 * is an option, every env var is the {@code ${env:...}} default of an option, and the command parses
 * and validates the whole set as flags.
 */
class ChartFlagsTest {
  private static final Pattern ENV_DEFAULT = Pattern.compile("\\$\\{env:([A-Za-z0-9_]+)");

  /** Value sets the chart is rendered with: the defaults of each provider, and every setting changed. */
  static List<Map<String, String>> valueSets() {
    Map<String, String> everything = new LinkedHashMap<>();
    everything.put("settings.clusterName", "my-cluster");
    everything.put("settings.clusterEndpoint", "https://example.com");
    everything.put("settings.clusterCABundle", "Y2E=");
    everything.put("settings.clusterServiceCIDR", "10.100.0.0/16");
    everything.put("settings.isolatedVPC", "true");
    everything.put("settings.vmMemoryOverheadPercent", "0.1");
    everything.put("settings.interruptionQueue", "my-queue");
    everything.put("settings.reservedENIs", "1");
    everything.put("settings.amiRefreshInterval", "5m");
    everything.put("settings.subnetRefreshInterval", "2m");
    everything.put("settings.securityGroupRefreshInterval", "3m");
    everything.put("settings.batchMaxDuration", "20s");
    everything.put("settings.batchIdleDuration", "2s");
    everything.put("settings.preferencePolicy", "Ignore");
    everything.put("settings.minValuesPolicy", "BestEffort");
    everything.put("settings.prebind", "true");
    everything.put("settings.disruptionShadowMode", "true");
    everything.put("settings.disruptionRepackConsolidation", "true");
    everything.put("settings.disruptionPaybackHorizon", "30m");
    everything.put("settings.featureGates.spotToSpotConsolidation", "true");
    everything.put("settings.featureGates.nodeRepair", "true");
    everything.put("logLevel", "debug");
    everything.put("controller.metrics.port", "9090");
    everything.put("controller.healthProbe.port", "9091");
    return List.of(Map.of("settings.clusterName", "my-cluster"), Map.of("cloudProvider", "kwok"), everything);
  }

  @ParameterizedTest
  @MethodSource("valueSets")
  void everyArgAndEnvVarOfTheContainerIsAFlagOfKarpenterController(Map<String, String> values) throws Exception {
    Container container = controllerContainer(Helm.shared().template("karpenter", "karpenter", values));
    // Uninterpolated, so defaultValue() is the "${env:NAME:-default}" text of the annotation.
    CommandLine.Model.CommandSpec spec = new CommandLine(new ControllerCommand()).setInterpolateVariables(false).getCommandSpec();
    Map<String, OptionSpec> byEnv = new LinkedHashMap<>();
    for (OptionSpec option : spec.options()) {
      if (option.defaultValue() != null) {
        Matcher m = ENV_DEFAULT.matcher(option.defaultValue());
        if (m.find()) {
          byEnv.put(m.group(1), option);
        }
      }
    }

    List<String> flags = new ArrayList<>(container.getArgs());
    for (String arg : container.getArgs()) {
      String name = arg.contains("=") ? arg.substring(0, arg.indexOf('=')) : arg;
      assertThat(spec.findOption(name)).as("arg %s of the chart's container is a flag of karpenter controller", arg).isNotNull();
    }
    for (EnvVar env : container.getEnv()) {
      assertThat(byEnv).as("env %s of the chart's container is read by a flag of karpenter controller", env.getName())
          .containsKey(env.getName());
      OptionSpec option = byEnv.get(env.getName());
      if (env.getValueFrom() != null) {
        assertThat(env.getValueFrom().getFieldRef() != null || env.getValueFrom().getResourceFieldRef() != null)
            .as("env %s comes from the pod itself", env.getName()).isTrue();
        continue;
      }
      flags.add(option.longestName() + "=" + env.getValue());
    }

    // The command parses every value the chart passes, and its own validation accepts them.
    ControllerCommand command = new ControllerCommand();
    new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true).parseArgs(flags.toArray(String[]::new));
    command.options();
    ControllerCommand.logLevel(command.logLevel);
    assertThat(command.cloudProvider).isIn("aws", "kwok");
    if (command.cloudProvider.equals("aws")) {
      assertThat(command.aws.settings().clusterName()).isNotBlank();
    }
  }

  @ParameterizedTest
  @MethodSource("valueSets")
  void probesAndPortsAreTheOnesTheControllerServes(Map<String, String> values) {
    Container container = controllerContainer(Helm.shared().template("karpenter", "karpenter", values));
    Map<String, String> env = new LinkedHashMap<>();
    container.getEnv().stream().filter(e -> e.getValue() != null).forEach(e -> env.put(e.getName(), e.getValue()));
    Map<String, Integer> ports = new LinkedHashMap<>();
    container.getPorts().forEach(p -> ports.put(p.getName(), p.getContainerPort()));
    assertThat(ports.get("http-metrics")).isEqualTo(Integer.parseInt(env.get("METRICS_PORT")));
    assertThat(ports.get("http")).isEqualTo(Integer.parseInt(env.get("HEALTH_PROBE_PORT")));
    assertThat(container.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(container.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(container.getLivenessProbe().getHttpGet().getPort().getStrVal()).isEqualTo("http");
  }

  private static Container controllerContainer(String manifests) {
    KubernetesSerialization serialization = new KubernetesSerialization();
    List<Deployment> deployments = new ArrayList<>();
    for (String document : manifests.split("(?m)^---\\s*$")) {
      if (document.contains("\nkind: Deployment")) {
        deployments.add(serialization.unmarshal(document, Deployment.class));
      }
    }
    assertThat(deployments).hasSize(1);
    List<Container> containers = deployments.getFirst().getSpec().getTemplate().getSpec().getContainers();
    assertThat(containers).hasSize(1);
    return containers.getFirst();
  }
}
