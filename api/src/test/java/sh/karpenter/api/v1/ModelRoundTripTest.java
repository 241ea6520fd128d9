package sh.karpenter.api.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.api.Fixtures;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.validation.Manifest;
import sh.karpenter.api.validation.Manifests;

/** Upstream-style manifests read into the model and written back lose nothing. */
class ModelRoundTripTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  @ParameterizedTest
  @ValueSource(strings = {"examples/full-nodepool.yaml", "examples/nodeclaim.yaml", "examples/kwok-default-nodepool.yaml"})
  void everyFieldSurvivesARoundTrip(String resource) {
    for (Manifest manifest : Manifests.read(Fixtures.text(resource), resource)) {
      Class<?> type = switch (manifest.kind()) {
        case NodePool.KIND -> NodePool.class;
        case NodeClaim.KIND -> NodeClaim.class;
        case KWOKNodeClass.KIND -> KWOKNodeClass.class;
        default -> throw new IllegalArgumentException(manifest.kind());
      };
      Object model = SERIALIZATION.convertValue(manifest.tree(), type);
      JsonNode written = SERIALIZATION.convertValue(model, JsonNode.class);
      assertThat(withQuantitiesAsText(written)).as(manifest.document()).isEqualTo(withQuantitiesAsText(manifest.tree()));
    }
  }

  @Test
  void fullNodePoolReadsIntoTypedFields() {
    NodePool pool = SERIALIZATION.unmarshal(Fixtures.text("examples/full-nodepool.yaml"), NodePool.class);

    NodeClaimTemplateSpec template = pool.getSpec().getTemplate().getSpec();
    assertThat(pool.getMetadata().getName()).isEqualTo("general-purpose");
    assertThat(pool.getSpec().getTemplate().getMetadata().getLabels()).containsEntry("billing-team", "my-team");
    assertThat(template.getExpireAfter().asDuration()).contains(Duration.ofHours(720));
    assertThat(template.getTerminationGracePeriod().duration()).isEqualTo(Duration.ofHours(48));
    assertThat(template.getRequirements().getFirst().getMinValues()).isEqualTo(2);
    assertThat(template.getTaints()).extracting("key", "effect")
        .contains(tuple("example.com/dedicated", "NoExecute"));
    assertThat(template.getNodeClassRef().getKind()).isEqualTo("EC2NodeClass");
    Disruption disruption = pool.getSpec().getDisruption();
    assertThat(disruption.getConsolidationPolicy()).isEqualTo(ConsolidationPolicy.WhenEmptyOrUnderutilized);
    assertThat(disruption.getConsolidateAfter().asDuration()).contains(Duration.ofMinutes(1));
    Budget daily = disruption.getBudgets().get(2);
    assertThat(daily.getReasons()).containsExactly(DisruptionReason.Drifted, DisruptionReason.Underutilized);
    assertThat(daily.getSchedule()).isEqualTo("@daily");
    assertThat(daily.getDuration().duration()).isEqualTo(Duration.ofMinutes(10));
    assertThat(pool.getSpec().getLimits()).containsEntry("memory", new Quantity("1000Gi"));
    assertThat(pool.getSpec().getWeight()).isEqualTo(10);
  }

  @Test
  void nodeClaimStatusReadsIntoTypedFields() {
    NodeClaim claim = SERIALIZATION.unmarshal(Fixtures.text("examples/nodeclaim.yaml"), NodeClaim.class);

    assertThat(claim.getSpec().getResources().getRequests()).containsEntry("cpu", new Quantity("1500m"));
    assertThat(claim.getStatus().getAllocatable()).containsEntry("memory", new Quantity("7134Mi"));
    assertThat(claim.getStatus().getConditions()).extracting("type").containsExactly(ConditionTypes.LAUNCHED, ConditionTypes.READY);
    assertThat(claim.getStatus().getLastPodEventTime()).isEqualTo("2026-07-01T10:02:00Z");
  }

  @Test
  void modelBuiltInCodeWritesUpstreamFieldNames() {
    NodePool pool = new NodePool();
    pool.getMetadata().setName("default");
    NodePoolSpec spec = new NodePoolSpec();
    NodeClaimTemplate template = new NodeClaimTemplate();
    NodeClaimTemplateSpec templateSpec = new NodeClaimTemplateSpec();
    templateSpec.setNodeClassRef(new NodeClassReference("karpenter.kwok.sh", "KWOKNodeClass", "default"));
    templateSpec.setRequirements(
        List.of(new NodeSelectorRequirementWithMinValues("kubernetes.io/arch", "In", List.of("amd64"), null)));
    templateSpec.setExpireAfter(NillableDuration.NEVER);
    template.setSpec(templateSpec);
    spec.setTemplate(template);
    pool.setSpec(spec);

    JsonNode tree = SERIALIZATION.convertValue(pool, JsonNode.class);

    assertThat(tree.path("apiVersion").asText()).isEqualTo("karpenter.sh/v1");
    assertThat(tree.path("kind").asText()).isEqualTo("NodePool");
    assertThat(tree.at("/spec/template/spec/expireAfter").asText()).isEqualTo("Never");
    assertThat(tree.at("/spec/template/spec/requirements/0").toString())
        .isEqualTo("{\"key\":\"kubernetes.io/arch\",\"operator\":\"In\",\"values\":[\"amd64\"]}");
    assertThat(tree.at("/spec/disruption").isMissingNode()).isTrue();
  }

  /**
   * The tree as JSON text would read it back: numbers in their smallest node type, and quantities (which
   * YAML may write as numbers) as text, as the model always writes them.
   */
  private static JsonNode withQuantitiesAsText(JsonNode tree) {
    JsonNode copy = SERIALIZATION.unmarshal(tree.toString(), JsonNode.class);
    for (String map : List.of("/spec/limits", "/spec/resources/requests", "/status/capacity", "/status/allocatable", "/status/resources")) {
      JsonNode quantities = copy.at(map);
      if (quantities.isObject()) {
        ObjectNode asText = (ObjectNode) quantities;
        asText.properties().forEach(quantity -> asText.put(quantity.getKey(), quantity.getValue().asText()));
      }
    }
    return copy;
  }
}
