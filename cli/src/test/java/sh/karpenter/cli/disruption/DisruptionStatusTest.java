package sh.karpenter.cli.disruption;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;

/** The rows, table and JSON of {@code karpenter disruption status} from NodeClaims and Nodes. */
class DisruptionStatusTest {
  private static final KubernetesSerialization YAML = new KubernetesSerialization();
  private static final Instant NOW = Instant.parse("2030-01-01T03:00:00Z");
  private static final Map<String, InstanceType> CATALOGUE = Map.of("m5.large",
      InstanceTypeCatalog.aws().instanceTypes().stream().filter(t -> t.name().equals("m5.large")).findFirst().orElseThrow());

  private static NodeClaim claim(String name, String node, String deletion, String conditions) {
    return YAML.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata:
          name: %s
          creationTimestamp: "2030-01-01T00:00:00Z"
          %s
          labels: {karpenter.sh/nodepool: general, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: m5.large}
        spec:
          nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
          requirements: []
        status:
          nodeName: %s
          conditions: %s
        """.formatted(name, deletion, node, conditions), NodeClaim.class);
  }

  private static Node node(String name, String zone) {
    return YAML.unmarshal("""
        apiVersion: v1
        kind: Node
        metadata:
          name: %s
          labels: {topology.kubernetes.io/zone: %s, karpenter.sh/capacity-type: on-demand, node.kubernetes.io/instance-type: m5.large}
        """.formatted(name, zone), Node.class);
  }

  @Test
  void eachNodeClaimShowsItsReasonPriceAndAge() throws Exception {
    List<NodeClaim> claims = List.of(
        claim("b-claim", "b", "", """
            [{type: WhyNotDisrupted, status: "True", reason: PodDisruptionBudget, message: "pdb default/web prevents pod evictions of pod default/web-1", lastTransitionTime: "2030-01-01T00:00:00Z"}]"""),
        claim("a-claim", "a", "", """
            [{type: WhyNotDisrupted, status: "True", reason: DoNotDisrupt, message: "stale", lastTransitionTime: "2030-01-01T00:00:00Z"},
             {type: DisruptionReason, status: "True", reason: Underutilized, message: Underutilized, lastTransitionTime: "2030-01-01T00:00:00Z"}]"""),
        claim("c-claim", "c", "deletionTimestamp: \"2030-01-01T02:00:00Z\"", "[]"),
        claim("d-claim", "d", "", """
            [{type: Initialized, status: "True", reason: Initialized, lastTransitionTime: "2030-01-01T00:00:00Z"}]"""),
        claim("in-flight", null, "", "[]"));
    List<Node> nodes = List.of(node("a", "us-east-1a"), node("b", "us-east-1b"), node("c", "elsewhere-1a"), node("d", "us-east-1a"));

    List<DisruptionStatus.Row> rows = DisruptionStatus.rows(claims, nodes, CATALOGUE, NOW);

    assertThat(rows).extracting(DisruptionStatus.Row::nodeClaim).containsExactly("a-claim", "b-claim", "c-claim", "d-claim", "in-flight");
    assertThat(rows).extracting(DisruptionStatus.Row::reason)
        .containsExactly("Disrupting", "PodDisruptionBudget", "Deleting", "Unknown", "NotInitialized");
    DisruptionStatus.Row b = rows.get(1);
    assertThat(b.message()).isEqualTo("pdb default/web prevents pod evictions of pod default/web-1");
    assertThat(b.price()).isEqualTo(0.096);
    assertThat(b.age()).isEqualTo(Duration.ofHours(3));
    assertThat(rows.get(2).price()).as("no offering in that zone").isNull();

    String text = DisruptionStatus.text(rows);
    assertThat(text.lines().findFirst().orElseThrow()).startsWith("NODE").contains("NODEPOOL", "PRICE/H", "AGE", "REASON", "MESSAGE");
    assertThat(text).contains("0.0960", "3h", "PodDisruptionBudget", "(in-flight)");

    JsonNode json = new ObjectMapper().readTree(DisruptionStatus.json(rows));
    assertThat(json.path("nodes")).hasSize(5);
    assertThat(json.path("nodes").get(1).path("reason").asText()).isEqualTo("PodDisruptionBudget");
    assertThat(json.path("nodes").get(1).path("price").asDouble()).isEqualTo(0.096);
    assertThat(json.path("nodes").get(1).path("ageSeconds").asLong()).isEqualTo(10800);
    assertThat(json.path("nodes").get(2).path("price").isNull()).isTrue();
  }

  @Test
  void agesReadAsKubectlPrintsThem() {
    assertThat(DisruptionStatus.age(Duration.ofSeconds(45))).isEqualTo("45s");
    assertThat(DisruptionStatus.age(Duration.ofMinutes(12))).isEqualTo("12m");
    assertThat(DisruptionStatus.age(Duration.ofHours(5))).isEqualTo("5h");
    assertThat(DisruptionStatus.age(Duration.ofDays(9))).isEqualTo("9d");
  }
}
