package sh.karpenter.cli;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.cli.disruption.DisruptionStatus;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;

/** {@code karpenter disruption}: views of voluntary disruption on a live cluster. */
@Command(
    name = "disruption",
    description = "Views of voluntary disruption on a cluster.",
    mixinStandardHelpOptions = true,
    subcommands = {DisruptionCommand.Status.class})
public final class DisruptionCommand implements Runnable {
  @CommandLine.Spec CommandLine.Model.CommandSpec spec;

  @Override
  public void run() {
    spec.commandLine().usage(spec.commandLine().getOut());
  }

  /**
   * {@code karpenter disruption status}: per NodeClaim, why the node is still here
   * (docs/behaviour/disruption.md#why-not), read from its {@code WhyNotDisrupted} condition through a
   * kubeconfig. A bad kubeconfig is one line and exit code 2; an API server that cannot be reached or
   * refuses the read is one line and exit code 1.
   */
  @Command(
      name = "status",
      description = "Print, per node, its NodePool, instance type, capacity type, price, age and why disruption leaves it alone.",
      mixinStandardHelpOptions = true,
      sortOptions = false)
  static final class Status implements Callable<Integer> {
    static final int UNREACHABLE = 1;

    @CommandLine.Spec CommandLine.Model.CommandSpec spec;

    @Option(names = "--kubeconfig", paramLabel = "FILE", defaultValue = "${env:KUBECONFIG}",
        description = "kubeconfig of the cluster (default: $KUBECONFIG, else in-cluster or ~/.kube/config).")
    Path kubeconfig;

    @Option(names = {"-o", "--output"}, paramLabel = "FORMAT", defaultValue = "text",
        description = "text (a table) or json. Default: ${DEFAULT-VALUE}.")
    String output;

    @Option(names = "--nodepool", paramLabel = "NAME", description = "Only the nodes of this NodePool.")
    String nodePool;

    @Override
    public Integer call() {
      PrintWriter err = spec.commandLine().getErr();
      if (!output.equals("text") && !output.equals("json")) {
        err.println("error: --output: unknown format \"" + output + "\" (supported: text, json)");
        err.flush();
        return ControllerCommand.BAD_INPUT;
      }
      Kubeconfigs.Loaded kube;
      try {
        kube = Kubeconfigs.load(kubeconfig);
      } catch (IllegalArgumentException e) {
        err.println("error: " + e.getMessage());
        err.flush();
        return ControllerCommand.BAD_INPUT;
      }
      Config config = kube.config();
      config.setRequestRetryBackoffLimit(0);
      config.setConnectionTimeout(5_000);
      config.setRequestTimeout(15_000);
      List<NodeClaim> nodeClaims;
      List<Node> nodes;
      try (KubernetesClient client = new KubernetesClientBuilder().withConfig(config).build()) {
        String what = "NodeClaims";
        try {
          nodeClaims = client.resources(NodeClaim.class).list().getItems();
          what = "Nodes";
          nodes = client.nodes().list().getItems();
        } catch (KubernetesClientException e) {
          String why = e.getCode() == 404 && what.equals("NodeClaims")
              ? "HTTP 404: the cluster has no karpenter.sh/v1 NodeClaims (are Karpenter's CRDs installed?)"
              : ControllerCommand.rootCause(e);
          err.println("error: cannot list " + what + " from the API server at " + config.getMasterUrl() + " (" + kube.source() + "): " + why);
          err.flush();
          return UNREACHABLE;
        }
      }
      if (nodePool != null) {
        nodeClaims = nodeClaims.stream().filter(c -> c.getMetadata().getLabels() != null
            && nodePool.equals(c.getMetadata().getLabels().get(sh.karpenter.core.wellknown.Labels.NODE_POOL))).toList();
      }
      Map<String, InstanceType> catalogue = new LinkedHashMap<>();
      InstanceTypeCatalog.aws().instanceTypes().forEach(t -> catalogue.putIfAbsent(t.name(), t));
      List<DisruptionStatus.Row> rows = DisruptionStatus.rows(nodeClaims, nodes, catalogue, Clock.systemUTC().instant());
      PrintWriter out = spec.commandLine().getOut();
      out.print(output.equals("json") ? DisruptionStatus.json(rows) : DisruptionStatus.text(rows));
      out.flush();
      return 0;
    }
  }
}
