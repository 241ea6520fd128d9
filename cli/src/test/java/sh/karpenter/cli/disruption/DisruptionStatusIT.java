package sh.karpenter.cli.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.cli.Main;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.KubernetesEventRecorder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * Why-not end to end (docs/behaviour/disruption.md#why-not) on the real control plane: the operator
 * in-process (KWOK provider), one node held by a {@code karpenter.sh/do-not-disrupt} pod and one by a
 * pod whose PodDisruptionBudget allows no disruption. Both NodeClaims carry their reason in the {@code
 * WhyNotDisrupted} condition, and {@code karpenter disruption status} prints them, as a table and as
 * JSON.
 */
@ControlPlaneTest
class DisruptionStatusIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(4);
  private static final Duration POLL = Duration.ofSeconds(2);

  private Operator operator;
  private KwokCloudProvider provider;

  @AfterEach
  void stop() throws Exception {
    if (operator != null) {
      operator.close();
    }
    if (provider != null) {
      provider.close();
    }
  }

  private static Pod pod(String name, Map<String, String> labels, Map<String, String> annotations) {
    Pod pod = TestObjects.awayFrom("whynot", TestObjects.pausePod(name, "whynot", "1", "1Gi"));
    Map<String, String> all = new HashMap<>(pod.getMetadata().getLabels());
    all.putAll(labels);
    return new PodBuilder(pod).editMetadata().withLabels(all).withAnnotations(annotations).endMetadata().build();
  }

  private static Optional<Condition> whyNot(KubernetesClient client, String nodeName) {
    return client.resources(NodeClaim.class).list().getItems().stream()
        .filter(c -> c.getStatus() != null && nodeName.equals(c.getStatus().getNodeName())).findFirst()
        .flatMap(c -> Conditions.get(c.getStatus().getConditions(), ConditionTypes.WHY_NOT_DISRUPTED));
  }

  /**
   * The NodeClaims, Nodes and pods, one line each, for a failure's message (CI once saw this test's
   * pods on Nodes that no NodeClaim named, launched by a second controller left running by another test).
   */
  private static String cluster(KubernetesClient client) {
    String claims = client.resources(NodeClaim.class).list().getItems().stream()
        .map(c -> "nodeclaim " + c.getMetadata().getName() + " uid=" + c.getMetadata().getUid()
            + (c.getStatus() == null ? "" : " providerID=" + c.getStatus().getProviderID() + " nodeName=" + c.getStatus().getNodeName()
                + " conditions=" + (c.getStatus().getConditions() == null ? "[]"
                    : c.getStatus().getConditions().stream().map(k -> k.getType() + "=" + k.getStatus()).toList())))
        .collect(Collectors.joining("\n"));
    String nodes = client.nodes().list().getItems().stream()
        .map(n -> "node " + n.getMetadata().getName() + " providerID=" + n.getSpec().getProviderID() + " created=" + n.getMetadata().getCreationTimestamp())
        .collect(Collectors.joining("\n"));
    String pods = client.pods().list().getItems().stream()
        .map(p -> "pod " + p.getMetadata().getName() + " node=" + p.getSpec().getNodeName() + " phase=" + (p.getStatus() == null ? null : p.getStatus().getPhase()))
        .collect(Collectors.joining("\n"));
    return claims + "\n" + nodes + "\n" + pods;
  }

  /** Runs {@code wait}; when it times out, fails with what the cluster holds. */
  private static void withClusterOnTimeout(KubernetesClient client, Runnable wait) {
    try {
      wait.run();
    } catch (ConditionTimeoutException e) {
      throw new AssertionError(e.getMessage() + "\ncluster:\n" + cluster(client), e);
    }
  }

  private static String[] status(ControlPlane controlPlane, String... extra) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    String[] args = new String[3 + extra.length];
    args[0] = "disruption";
    args[1] = "status";
    args[2] = "--kubeconfig=" + controlPlane.kubeconfig();
    System.arraycopy(extra, 0, args, 3, extra.length);
    int exit = cli.execute(args);
    assertThat(exit).as(err.toString()).isZero();
    return new String[] {out.toString(), err.toString()};
  }

  @Test
  void aDoNotDisruptPodAndAPdbShowAsTheNodesReasonsInTheConditionAndTheCli(KubernetesClient client, ControlPlane controlPlane)
      throws Exception {
    TestObjects.createNodeClass(client);
    client.resources(NodePool.class).resource(TestObjects.yaml(client, NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: whynot}
        spec:
          disruption: {consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s, budgets: [{nodes: "100%"}]}
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              expireAfter: Never
              requirements:
                - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
                - {key: kubernetes.io/os, operator: In, values: [linux]}
                - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        """)).create();
    String namespace = client.getNamespace();
    client.policy().v1().podDisruptionBudget().resource(new PodDisruptionBudgetBuilder()
        .withNewMetadata().withName("guard").endMetadata()
        .withNewSpec().withMinAvailable(new IntOrString(1)).withNewSelector().addToMatchLabels("guard", "yes").endSelector().endSpec()
        .build()).create();
    client.pods().resource(pod("keep", Map.of(), Map.of("karpenter.sh/do-not-disrupt", "true"))).create();
    client.pods().resource(pod("guarded", Map.of("guard", "yes"), Map.of())).create();

    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    provider = new KwokCloudProvider(client, catalog, Clock.systemUTC());
    Options options = Options.defaults().withBatchDurations(Duration.ofSeconds(2), Duration.ofSeconds(20)).withPorts(0, 0)
        .withLeaderElection(false, "unused", "default");
    operator = new Operator(client, provider, options, Clock.systemUTC(), new Metrics(new CollectorRegistry()),
        new KubernetesEventRecorder(client, Clock.systemUTC()));
    operator.start();

    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() ->
        assertThat(client.pods().list().getItems()).hasSize(2).allMatch(TestObjects::running));
    String keepNode = client.pods().withName("keep").get().getSpec().getNodeName();
    String guardedNode = client.pods().withName("guarded").get().getSpec().getNodeName();
    assertThat(keepNode).isNotEqualTo(guardedNode);

    withClusterOnTimeout(client, () -> await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() -> {
      assertThat(whyNot(client, keepNode)).hasValueSatisfying(c -> {
        assertThat(c.getStatus()).isEqualTo("True");
        assertThat(c.getReason()).isEqualTo("DoNotDisrupt");
        assertThat(c.getMessage()).contains("pod " + namespace + "/keep", "karpenter.sh/do-not-disrupt");
      });
      assertThat(whyNot(client, guardedNode)).hasValueSatisfying(c -> {
        assertThat(c.getReason()).isEqualTo("PodDisruptionBudget");
        assertThat(c.getMessage()).contains("pdb " + namespace + "/guard", "pod " + namespace + "/guarded");
      });
    }));

    // One NodeClaim per pod and no more. (A spare one seen in CI came from a controller that
    // ContainerImageIT left running against the same control plane; ImageSandbox now stops it.)
    assertThat(client.resources(NodeClaim.class).list().getItems()).as(() -> "cluster:\n" + cluster(client)).hasSize(2);

    String table = status(controlPlane)[0];
    assertThat(table.lines().filter(l -> l.startsWith(keepNode + " "))).singleElement().asString()
        .contains("whynot", "on-demand", "DoNotDisrupt", namespace + "/keep");
    assertThat(table.lines().filter(l -> l.startsWith(guardedNode + " "))).singleElement().asString()
        .contains("whynot", "PodDisruptionBudget", namespace + "/guard");

    JsonNode json = new ObjectMapper().readTree(status(controlPlane, "-o", "json", "--nodepool", "whynot")[0]);
    assertThat(json.path("nodes")).hasSize(2);
    for (JsonNode node : json.path("nodes")) {
      String expected = node.path("node").asText().equals(keepNode) ? "DoNotDisrupt" : "PodDisruptionBudget";
      assertThat(node.path("reason").asText()).isEqualTo(expected);
      assertThat(node.path("nodePool").asText()).isEqualTo("whynot");
      assertThat(node.path("capacityType").asText()).isEqualTo("on-demand");
      assertThat(node.path("instanceType").asText()).isNotEmpty();
      assertThat(node.path("price").isNumber()).as("price of %s", node).isTrue();
      assertThat(node.path("ageSeconds").asLong()).isNotNegative();
    }
  }
}
