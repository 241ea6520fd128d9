package sh.karpenter.testkit.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.runtime.EventHandlers;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.snapshot.SnapshotBuilder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.InProcessOperators;
import sh.karpenter.testkit.fixtures.TestObjects;
import sh.karpenter.testkit.reliability.Invariants;

/**
 * Voluntary disruption end to end on the real control plane: the whole operator in-process (KWOK
 * provider, bundled AWS catalogue), kube-controller-manager running Deployments, kube-scheduler
 * binding their pods. A scaled-down Deployment is consolidated onto the cheapest nodes that fit it, a
 * {@code nodes: "1"} budget keeps disruptions one at a time, a changed NodePool template drifts and
 * replaces its nodes, and {@code expireAfter} replaces a node. In shadow mode an empty node is only
 * reported, and the NodePool cost-gap gauges are scraped.
 */
@ControlPlaneTest
class DisruptionE2EIT {
  private static final Duration TIMEOUT = Duration.ofMinutes(8);
  private static final Duration POLL = Duration.ofSeconds(2);

  private final InProcessOperators operators = new InProcessOperators();
  private final InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();

  @AfterEach
  void stop() throws Exception {
    operators.close();
  }

  /**
   * An on-demand Linux amd64 NodePool on the default KWOKNodeClass.
   *
   * @param disruption the {@code spec.disruption} mapping, flow style
   * @param template extra lines of {@code spec.template} (e.g. {@code metadata: {labels: ...}}), indented by four spaces
   */
  private NodePool pool(KubernetesClient client, String name, String disruption, String expireAfter, String template) {
    return client.resources(NodePool.class).resource(TestObjects.yaml(client, NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: %s}
        spec:
          disruption: %s
          template:
        %s
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              expireAfter: "%s"
              requirements:
                - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
                - {key: kubernetes.io/os, operator: In, values: [linux]}
                - {key: kubernetes.io/arch, operator: In, values: [amd64]}
        """.formatted(name, disruption, template, expireAfter))).create();
  }

  /** A Deployment of pause pods labelled {@code app=<name>}; {@code apart} puts each on a node of its own. */
  private static Deployment deployment(String name, int replicas, String cpu, String memory, boolean apart) {
    Pod pod = TestObjects.pausePod("template", name, cpu, memory);
    PodSpec spec = pod.getSpec();
    if (apart) {
      spec = TestObjects.awayFrom(name, pod).getSpec();
    }
    return new DeploymentBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec()
          .withReplicas(replicas)
          .withNewSelector().addToMatchLabels("app", name).endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata().withSpec(spec).endTemplate()
        .endSpec()
        .build();
  }

  private static List<Pod> pods(KubernetesClient client, String app) {
    return client.pods().withLabel("app", app).list().getItems().stream().filter(p -> !Metadata.deleting(p)).toList();
  }

  private static void awaitRunning(KubernetesClient client, String app, int count) {
    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() ->
        assertThat(pods(client, app)).hasSize(count).allMatch(TestObjects::running));
  }

  private static List<Node> nodes(KubernetesClient client) {
    return client.nodes().list().getItems();
  }

  private static Set<String> names(List<Node> nodes) {
    return nodes.stream().map(n -> n.getMetadata().getName()).collect(Collectors.toSet());
  }

  @Test
  void aScaledDownDeploymentIsConsolidatedOntoTheCheapestNodesThatFitIt(KubernetesClient client) {
    TestObjects.createNodeClass(client);
    NodePool pool = pool(client, "default", "{consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 5s, budgets: [{nodes: \"100%\"}]}",
        "Never", "");
    operators.start(client, operators.provider(client, catalog), InProcessOperators.options());
    // Small pods, many to a node: after the scale-down the survivors sit spread over underused nodes.
    client.apps().deployments().resource(deployment("web", 40, "300m", "256Mi", false)).create();
    awaitRunning(client, "web", 40);
    double before = nodes(client).stream().mapToDouble(n -> TestObjects.price(catalog, n)).sum();

    client.apps().deployments().withName("web").scale(5);

    // What `karpenter plan` launches for the five pods on an empty cluster.
    SnapshotBuilder snapshot = new SnapshotBuilder(p -> catalog.instanceTypes());
    snapshot.add(pool, "NodePool default");
    Pod template = TestObjects.pausePod("web-0", "web", "300m", "256Mi");
    for (int i = 0; i < 5; i++) {
      Pod pod = TestObjects.pausePod("web-" + i, "web", "300m", "256Mi");
      pod.getMetadata().setNamespace(client.getNamespace());
      pod.setSpec(template.getSpec());
      snapshot.add(pod, "Pod web-" + i);
    }
    SchedulingResult plan = new Scheduler(snapshot.build().schedulingInput(SchedulerOptions.DEFAULT)).solve();
    assertThat(plan.unschedulable()).isEmpty();
    double planned = plan.newNodeClaims().stream().mapToDouble(PlannedNodeClaim::price).sum();
    assertThat(planned).isLessThan(before);

    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() -> {
      List<Node> nodes = nodes(client);
      assertThat(nodes).allSatisfy(n -> assertThat(Metadata.deleting(n)).isFalse());
      assertThat(client.resources(NodeClaim.class).list().getItems()).hasSameSizeAs(nodes);
      assertThat(nodes.stream().mapToDouble(n -> TestObjects.price(catalog, n)).sum()).isLessThanOrEqualTo(planned + 1e-6);
      assertThat(pods(client, "web")).hasSize(5).allMatch(TestObjects::running);
    });
  }

  @Test
  void aBudgetOfOneNodeDisruptsOneNodeAtATime(KubernetesClient client) {
    TestObjects.createNodeClass(client);
    pool(client, "default", "{consolidationPolicy: WhenEmpty, consolidateAfter: 0s, budgets: [{nodes: \"1\"}]}", "Never", "");
    Operator operator = operators.start(client, operators.provider(client, catalog), InProcessOperators.options());
    client.apps().deployments().resource(deployment("apart", 4, "1", "1Gi", true)).create();
    awaitRunning(client, "apart", 4);
    assertThat(nodes(client)).hasSize(4);

    AtomicInteger most = new AtomicInteger();
    Informers informers = operator.informers();
    informers.nodes().addEventHandler(EventHandlers.onChange(node -> most.accumulateAndGet(disrupting(informers), Math::max)));
    informers.nodeClaims().addEventHandler(EventHandlers.onChange(claim -> most.accumulateAndGet(disrupting(informers), Math::max)));

    client.apps().deployments().withName("apart").scale(0);

    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() -> {
      most.accumulateAndGet(disrupting(informers), Math::max);
      assertThat(client.resources(NodeClaim.class).list().getItems()).isEmpty();
      assertThat(nodes(client)).isEmpty();
    });
    assertThat(most.get()).isEqualTo(1);
  }

  /** How many NodeClaims are disrupting, as budgets count them ({@link Invariants#disrupting}). */
  static int disrupting(Informers informers) {
    int count = 0;
    for (NodeClaim claim : informers.nodeClaims().getStore().list()) {
      String nodeName = claim.getStatus() == null ? null : claim.getStatus().getNodeName();
      if (Invariants.disrupting(claim, nodeName == null ? null : informers.nodes().getStore().getByKey(nodeName))) {
        count++;
      }
    }
    return count;
  }

  @Test
  void changingTheNodePoolTemplateDriftsAndReplacesItsNodes(KubernetesClient client) {
    TestObjects.createNodeClass(client);
    pool(client, "default", "{consolidateAfter: Never, budgets: [{nodes: \"100%\"}]}", "Never", "    metadata: {labels: {team: a}}");
    operators.start(client, operators.provider(client, catalog), InProcessOperators.options());
    client.apps().deployments().resource(deployment("drifting", 2, "1", "1Gi", true)).create();
    awaitRunning(client, "drifting", 2);
    Set<String> original = names(nodes(client));
    assertThat(nodes(client)).hasSize(2).allSatisfy(n -> assertThat(n.getMetadata().getLabels()).containsEntry("team", "a"));

    client.resources(NodePool.class).withName("default").edit(p -> {
      p.getSpec().getTemplate().getMetadata().setLabels(Map.of("team", "b"));
      return p;
    });

    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() -> {
      List<Node> nodes = nodes(client);
      assertThat(names(nodes)).doesNotContainAnyElementsOf(original);
      assertThat(nodes).hasSize(2).allSatisfy(n -> assertThat(n.getMetadata().getLabels()).containsEntry("team", "b"));
      assertThat(pods(client, "drifting")).hasSize(2).allMatch(TestObjects::running);
    });
  }

  @Test
  void anExpiredNodeIsReplaced(KubernetesClient client) {
    TestObjects.createNodeClass(client);
    pool(client, "default", "{consolidateAfter: Never}", "90s", "");
    operators.start(client, operators.provider(client, catalog), InProcessOperators.options());
    client.apps().deployments().resource(deployment("aging", 1, "1", "1Gi", false)).create();
    awaitRunning(client, "aging", 1);
    Set<String> original = names(nodes(client));
    assertThat(original).hasSize(1);

    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() -> {
      assertThat(names(nodes(client))).doesNotContainAnyElementsOf(original);
      List<Pod> pods = pods(client, "aging");
      assertThat(pods).hasSize(1).allMatch(TestObjects::running);
      assertThat(original).doesNotContain(pods.getFirst().getSpec().getNodeName());
    });
  }

  private static double sample(String metrics, String family, String pool) {
    Matcher m = Pattern.compile("(?m)^" + family + "\\{nodepool=\"" + pool + "\",?} (\\S+)$").matcher(metrics);
    assertThat(m.find()).as("%s{nodepool=%s} in %n%s", family, pool, metrics).isTrue();
    return Double.parseDouble(m.group(1));
  }

  private static String scrape(Operator operator) throws Exception {
    HttpResponse<String> response = HttpClient.newHttpClient().send(
        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + operator.metricsPort() + "/metrics")).build(),
        HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).isEqualTo(200);
    return response.body();
  }

  /**
   * Shadow mode (docs/behaviour/disruption.md#shadow-mode): with {@code --disruption-shadow-mode} a
   * node left empty by a scale-down is decided, validated and reported in a {@code DisruptionShadow}
   * event, but stays: no disrupted taint, no deletion. The NodePool cost-gap gauges are on {@code
   * /metrics}, the empty node showing up as a gap.
   */
  @Test
  void inShadowModeAnEmptyNodeIsReportedAsWhatConsolidationWouldDeleteAndLeftInPlace(KubernetesClient client) throws Exception {
    TestObjects.createNodeClass(client);
    pool(client, "default", "{consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s, budgets: [{nodes: \"100%\"}]}", "Never", "");
    TestingEventRecorder events = new TestingEventRecorder();
    Operator operator = operators.start(client, operators.provider(client, catalog),
        InProcessOperators.options().withDisruptionShadowMode(true), events);
    client.apps().deployments().resource(deployment("apart", 2, "1", "1Gi", true)).create();
    awaitRunning(client, "apart", 2);
    assertThat(nodes(client)).hasSize(2);

    client.apps().deployments().withName("apart").scale(1);
    awaitRunning(client, "apart", 1);
    String busy = pods(client, "apart").getFirst().getSpec().getNodeName();
    Node empty = nodes(client).stream().filter(n -> !n.getMetadata().getName().equals(busy)).findFirst().orElseThrow();
    String emptyClaim = client.resources(NodeClaim.class).list().getItems().stream()
        .filter(c -> c.getStatus() != null && empty.getMetadata().getName().equals(c.getStatus().getNodeName()))
        .findFirst().orElseThrow().getMetadata().getName();

    // decided and validated like any emptiness command, then only reported
    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() ->
        assertThat(events.forObject(emptyClaim)).anySatisfy(e -> {
          assertThat(e.reason()).isEqualTo("DisruptionShadow");
          assertThat(e.message()).startsWith("Shadow mode: would delete via emptiness (reason Empty): nodeclaim(s) ").contains(emptyClaim);
        }));
    assertThat(events.forObject(empty.getMetadata().getName())).extracting(TestingEventRecorder.RecordedEvent::reason)
        .contains("DisruptionShadow");

    // a later pass decides the same again: the node stayed an unheld candidate (a queued command
    // would have tainted and held it at once), so after it nothing can have been acted on
    Pattern shadowDecisions = Pattern.compile(
        "(?m)^karpenter_voluntary_disruption_shadow_decisions_total\\{decision=\"delete\",reason=\"empty\",consolidation_type=\"empty\",?} (\\S+)$");
    await().atMost(TIMEOUT).pollInterval(POLL).untilAsserted(() -> {
      Matcher m = shadowDecisions.matcher(scrape(operator));
      assertThat(m.find()).as("shadow decisions").isTrue();
      assertThat(Double.parseDouble(m.group(1))).isGreaterThanOrEqualTo(2);
    });
    assertThat(names(nodes(client))).containsExactlyInAnyOrder(busy, empty.getMetadata().getName());
    assertThat(nodes(client)).allSatisfy(n -> {
      assertThat(Metadata.deleting(n)).isFalse();
      assertThat(n.getSpec().getTaints() == null ? List.<String>of() : n.getSpec().getTaints().stream().map(t -> t.getKey()).toList())
          .doesNotContain(TaintKeys.DISRUPTED);
    });
    assertThat(client.resources(NodeClaim.class).list().getItems()).hasSize(2).noneMatch(Metadata::deleting);
    assertThat(events.reasons()).doesNotContain("DisruptionTerminating", "DisruptionLaunching");

    String metrics = scrape(operator);
    assertThat(metrics).doesNotContainPattern("karpenter_voluntary_disruption_decisions_total\\{[^}]*} [1-9]");
    double current = sample(metrics, "karpenter_nodepools_cost_current", "default");
    double bound = sample(metrics, "karpenter_nodepools_cost_lower_bound", "default");
    double gap = sample(metrics, "karpenter_nodepools_cost_gap_ratio", "default");
    assertThat(current).isCloseTo(nodes(client).stream().mapToDouble(n -> TestObjects.price(catalog, n)).sum(), within(1e-6));
    // one pod on two nodes that each fit it: at least half of the pool's cost is above the bound
    assertThat(bound).isPositive().isLessThanOrEqualTo(current / 2 + 1e-9);
    assertThat(gap).isCloseTo((current - bound) / current, within(1e-9)).isGreaterThanOrEqualTo(0.5 - 1e-9);
  }
}
