package sh.karpenter.cli.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import picocli.CommandLine;
import sh.karpenter.cli.Main;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.wellknown.Labels;

/** Runs {@code karpenter plan} in-process and checks every rule of the plan contract. */
class PlanContractTest {
  private static final Path EXAMPLES = Path.of("..", "examples");
  private static final ObjectMapper JSON = new ObjectMapper().enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);
  private static final Map<String, InstanceType> CATALOGUE = new HashMap<>();

  @TempDir Path dir;

  @BeforeAll
  static void catalogue() {
    InstanceTypeCatalog.aws().instanceTypes().forEach(t -> CATALOGUE.put(t.name(), t));
  }

  record Run(int exit, String out, String err) {
    JsonNode json() throws IOException {
      return JSON.readTree(out);
    }
  }

  static Run plan(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    List<String> all = new ArrayList<>(List.of("plan"));
    all.addAll(List.of(args));
    int exit = cli.execute(all.toArray(String[]::new));
    return new Run(exit, out.toString(), err.toString());
  }

  private Path write(String name, String yaml) throws IOException {
    Path file = dir.resolve(name);
    Files.writeString(file, yaml);
    return file;
  }

  @Test
  void examplesPlanHoldsEveryContractRule() throws IOException {
    Run run = plan("-f", EXAMPLES.toString(), "--output", "json");

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode plan = run.json();
    assertContract(plan);
    // 6 web + 4 api + 3 postgres + 8 + 4 batch + 1 GPU + 1 impossible
    assertThat(plan.at("/summary/pendingPods").asInt()).isEqualTo(27);
    assertThat(placements(plan)).containsKeys("shop/web-0", "shop/postgres-2", "analytics/nightly-report-7", "ml/train-recommender-0");
    JsonNode impossible = find(plan.get("unschedulable"), "pod", "analytics/in-memory-warehouse");
    assertThat(impossible.get("reason").asText()).isNotBlank();
  }

  @Test
  void examplesPlaceWorkloadsOnTheIntendedPools() throws IOException {
    JsonNode plan = plan("-f", EXAMPLES.toString(), "-o", "json").json();
    Map<String, JsonNode> claimOfPod = new HashMap<>();
    for (JsonNode claim : plan.get("nodeClaims")) {
      claim.get("pods").forEach(p -> claimOfPod.put(p.asText(), claim));
    }

    assertThat(claimOfPod.get("ml/train-recommender-0").get("nodePool").asText()).isEqualTo("gpu");
    assertThat(claimOfPod.get("analytics/image-resize-0").get("nodePool").asText()).isEqualTo("batch");
    assertThat(claimOfPod.get("analytics/image-resize-0").get("capacityType").asText()).isEqualTo("spot");
    // one replica per host, on-demand: a new on-demand NodeClaim, or the example's existing on-demand
    // node in us-east-1a (its one free slot for a replica: hostname anti-affinity may use an empty host)
    Map<String, String> existingNodeOfPod = new HashMap<>();
    for (JsonNode node : plan.get("existingNodes")) {
      node.get("pods").forEach(p -> existingNodeOfPod.put(p.asText(), node.get("name").asText()));
    }
    List<String> databaseHosts = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      String pod = "shop/postgres-" + i;
      JsonNode claim = claimOfPod.get(pod);
      if (claim != null) {
        assertThat(claim.get("capacityType").asText()).isEqualTo("on-demand");
        databaseHosts.add(claim.get("name").asText());
      } else {
        assertThat(existingNodeOfPod.get(pod)).as(pod + " on a new node or the existing on-demand node").isEqualTo("ip-10-0-12-34.ec2.internal");
        databaseHosts.add(existingNodeOfPod.get(pod));
      }
    }
    assertThat(databaseHosts).doesNotHaveDuplicates();
  }

  @Test
  void tableShowsClaimsUnschedulablePodsAndSummaryWithGap() {
    Run run = plan("-f", EXAMPLES.toString());

    assertThat(run.exit()).as(run.err()).isZero();
    assertThat(run.out())
        .contains("NODECLAIM", "UNSCHEDULABLE POD", "analytics/in-memory-warehouse")
        .containsPattern("lower bound \\$[0-9.]+/h \\(gap ([0-9.]+%|n/a)\\)")
        .containsIgnoringCase("simulated");
  }

  @Test
  void boundPodsCountAndPendingPodsMayLandOnExistingNodes() throws IOException {
    Path file =
        write(
            "cluster.yaml",
            """
            apiVersion: v1
            kind: Node
            metadata:
              name: node-1
              labels: {kubernetes.io/hostname: node-1, topology.kubernetes.io/zone: us-east-1a, kubernetes.io/arch: amd64, kubernetes.io/os: linux}
            status:
              allocatable: {cpu: "4", memory: 16Gi, pods: "110"}
            ---
            apiVersion: v1
            kind: Pod
            metadata: {name: running, namespace: team-a}
            spec:
              nodeName: node-1
              containers: [{name: c, resources: {requests: {cpu: "3"}}}]
            ---
            apiVersion: v1
            kind: Pod
            metadata: {name: small, namespace: team-a}
            spec:
              containers: [{name: c, resources: {requests: {cpu: 500m, memory: 1Gi}}}]
            ---
            apiVersion: v1
            kind: Pod
            metadata: {name: pinned, namespace: team-a}
            spec:
              nodeSelector: {kubernetes.io/hostname: somewhere}
              containers: [{name: c}]
            """);

    Run run = plan("-f", file.toString(), "-o", "json");

    assertThat(run.exit()).as(run.err()).isZero();
    JsonNode plan = run.json();
    assertContract(plan);
    assertThat(plan.at("/summary/pendingPods").asInt()).isEqualTo(2);
    assertThat(find(plan.get("existingNodes"), "name", "node-1").get("pods").get(0).asText()).isEqualTo("team-a/small");
    assertThat(find(plan.get("unschedulable"), "pod", "team-a/pinned").get("reason").asText()).contains(Labels.HOSTNAME);
    assertThat(plan.at("/summary/costPerHour").decimalValue()).isZero();
  }

  @Test
  void outputIsDeterministic() throws IOException {
    JsonNode first = plan("-f", EXAMPLES.toString(), "-o", "json").json();
    JsonNode second = plan("-f", EXAMPLES.toString(), "-o", "json").json();
    ((com.fasterxml.jackson.databind.node.ObjectNode) first.get("summary")).remove("solveMillis");
    ((com.fasterxml.jackson.databind.node.ObjectNode) second.get("summary")).remove("solveMillis");

    assertThat(first).isEqualTo(second);
  }

  static Stream<Arguments> badInputs() {
    String pool =
        """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: default}
        spec:
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              requirements:
                - {key: kubernetes.io/arch, operator: %s, values: [amd64]}
        """;
    String pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers: [{name: c, resources: {requests: {cpu: %s}}}]\n";
    return Stream.of(
        Arguments.of("malformed YAML", "---\n" + pod.formatted("1") + "---\nkind: [oops\n", "document 2", "YAML"),
        Arguments.of("unknown field", pod.formatted("1").replace("containers:", "containerz:"), "document 1", "spec.containerz"),
        Arguments.of("invalid NodePool", pool.formatted("Sometimes"), "document 1", "spec.template.spec.requirements[0].operator"),
        Arguments.of("bad quantity", pod.formatted("lots"), "document 1", "spec.containers[0].resources.requests.cpu"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("badInputs")
  void badInputExitsTwoNamingFileDocumentAndField(String title, String yaml, String document, String field) throws IOException {
    Path file = write("bad.yaml", yaml);

    Run run = plan("-f", file.toString(), "-o", "json");

    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err()).contains("bad.yaml", document, field).doesNotContain("Exception", "\tat ");
  }

  @Test
  void unknownKindsOnlyWarn() throws IOException {
    Path file = write("cm.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: {a: b}\n");

    Run run = plan("-f", file.toString(), "-o", "json");

    assertThat(run.exit()).isZero();
    assertThat(run.err()).contains("warning", "cm.yaml, document 1", "ConfigMap");
    assertThat(run.json().at("/summary/pendingPods").asInt()).isZero();
  }

  /** The rules of docs/plan-contract.md that hold for every plan. */
  private static void assertContract(JsonNode plan) {
    assertThat(plan.fieldNames()).toIterable().contains("nodeClaims", "existingNodes", "unschedulable", "summary");
    Map<String, Integer> placements = placements(plan);
    assertThat(placements.values()).as("every pending pod exactly once").allMatch(count -> count == 1);
    assertThat(placements).hasSize(plan.at("/summary/pendingPods").asInt());
    assertThat(plan.at("/summary/scheduledPods").asInt()).isEqualTo(placements.size() - plan.get("unschedulable").size());
    assertThat(plan.at("/summary/newNodeClaims").asInt()).isEqualTo(plan.get("nodeClaims").size());

    BigDecimal sum = BigDecimal.ZERO;
    for (JsonNode claim : plan.get("nodeClaims")) {
      String name = claim.get("name").asText();
      String pool = claim.get("nodePool").asText();
      assertThat(name).matches(pool + "-[a-z0-9]{5}");
      InstanceType type = CATALOGUE.get(claim.get("instanceType").asText());
      assertThat(type).as(name + " instance type").isNotNull();
      List<String> options = new ArrayList<>();
      claim.get("instanceTypeOptions").forEach(o -> options.add(o.asText()));
      assertThat(options).contains(type.name());

      Offering offering =
          type.offerings().stream()
              .filter(o -> o.zone().equals(claim.get("zone").asText()) && o.capacityType().equals(claim.get("capacityType").asText()))
              .findFirst()
              .orElseThrow();
      assertThat(claim.get("pricePerHour").decimalValue()).isEqualByComparingTo(BigDecimal.valueOf(offering.price()));
      sum = sum.add(claim.get("pricePerHour").decimalValue());

      JsonNode labels = claim.get("labels");
      assertThat(labels.path(Labels.HOSTNAME).asText()).isEqualTo(name);
      assertThat(labels.path(Labels.NODE_POOL).asText()).isEqualTo(pool);
      assertThat(labels.path(Labels.INSTANCE_TYPE).asText()).isEqualTo(type.name());
      assertThat(labels.path(Labels.ZONE).asText()).isEqualTo(claim.get("zone").asText());
      assertThat(labels.path(Labels.CAPACITY_TYPE).asText()).isEqualTo(claim.get("capacityType").asText());
      assertThat(labels.has(Labels.ARCH) && labels.has(Labels.OS)).isTrue();

      Map<String, String> allocatable = new HashMap<>();
      claim.get("allocatable").fields().forEachRemaining(e -> allocatable.put(e.getKey(), e.getValue().asText()));
      assertThat(allocatable).isEqualTo(type.allocatable().toQuantities());
    }
    BigDecimal cost = plan.at("/summary/costPerHour").decimalValue();
    assertThat(cost).isEqualByComparingTo(sum);
    assertThat(plan.at("/summary/lowerBoundPerHour").decimalValue()).isLessThanOrEqualTo(cost);
    assertThat(plan.at("/summary/solveMillis").asLong()).isNotNegative();
  }

  /** How often each pod appears across new NodeClaims, existing nodes and unschedulable pods. */
  private static Map<String, Integer> placements(JsonNode plan) {
    Map<String, Integer> counts = new HashMap<>();
    plan.get("nodeClaims").forEach(c -> c.get("pods").forEach(p -> counts.merge(p.asText(), 1, Integer::sum)));
    plan.get("existingNodes").forEach(n -> n.get("pods").forEach(p -> counts.merge(p.asText(), 1, Integer::sum)));
    plan.get("unschedulable").forEach(u -> counts.merge(u.get("pod").asText(), 1, Integer::sum));
    return counts;
  }

  private static JsonNode find(JsonNode array, String field, String value) {
    for (JsonNode element : array) {
      if (element.path(field).asText().equals(value)) {
        return element;
      }
    }
    throw new AssertionError("no element with " + field + "=" + value + " in " + array);
  }
}
