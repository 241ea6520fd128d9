package sh.karpenter.api.v1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class NodePoolHashTest {

  /** A pool with every hashed field set. */
  private static NodePool pool() {
    NodePool pool = new NodePool();
    pool.setMetadata(new ObjectMetaBuilder().withName("default").build());
    NodePoolSpec spec = new NodePoolSpec();
    NodeClaimTemplate template = new NodeClaimTemplate();
    NodeClaimTemplateMetadata metadata = new NodeClaimTemplateMetadata();
    metadata.setLabels(new HashMap<>(Map.of("team", "a", "tier", "web")));
    metadata.setAnnotations(new HashMap<>(Map.of("example.com/owner", "ops")));
    template.setMetadata(metadata);
    NodeClaimTemplateSpec templateSpec = new NodeClaimTemplateSpec();
    templateSpec.setTaints(new ArrayList<>(List.of(taint("a", "1", "NoSchedule"), taint("b", "2", "NoExecute"))));
    templateSpec.setStartupTaints(new ArrayList<>(List.of(taint("startup", null, "NoSchedule"))));
    templateSpec.setRequirements(
        new ArrayList<>(List.of(new NodeSelectorRequirementWithMinValues("kubernetes.io/arch", "In", List.of("amd64"), null))));
    templateSpec.setNodeClassRef(new NodeClassReference("karpenter.kwok.sh", "KWOKNodeClass", "default"));
    templateSpec.setExpireAfter(NillableDuration.parse("720h"));
    templateSpec.setTerminationGracePeriod(GoDuration.parse("1h"));
    template.setSpec(templateSpec);
    spec.setTemplate(template);
    spec.setWeight(10);
    spec.setLimits(new HashMap<>(Map.of("cpu", new Quantity("100"))));
    pool.setSpec(spec);
    return pool;
  }

  private static Taint taint(String key, String value, String effect) {
    return new Taint(effect, key, null, value);
  }

  private static String hash(Consumer<NodePool> change) {
    NodePool pool = pool();
    change.accept(pool);
    return NodePoolHash.of(pool);
  }

  private static NodeClaimTemplateSpec spec(NodePool pool) {
    return pool.getSpec().getTemplate().getSpec();
  }

  @Test
  void isStableAcrossCallsAndCopies() {
    assertThat(NodePoolHash.of(pool())).isEqualTo(NodePoolHash.of(pool())).matches("[0-9]+");
  }

  /** The encoding is part of the contract: a change re-drifts every NodeClaim, so it needs a new {@link NodePoolHash#VERSION}. */
  @Test
  void valuesArePinnedToTheVersion() {
    assertThat(NodePoolHash.of(pool())).isEqualTo("13614236453681184207");
    assertThat(NodePoolHash.of((NodeClaimTemplate) null)).isEqualTo("16406829232824261652");
  }

  @Test
  void versionIsTheCurrentHashVersion() {
    assertThat(NodePoolHash.VERSION).isEqualTo("v3");
  }

  static Stream<Arguments> staticDriftChanges() {
    return Stream.of(
        Arguments.of("label value", (Consumer<NodePool>) p -> p.getSpec().getTemplate().getMetadata().getLabels().put("team", "b")),
        Arguments.of("label added", (Consumer<NodePool>) p -> p.getSpec().getTemplate().getMetadata().getLabels().put("new", "x")),
        Arguments.of("annotation", (Consumer<NodePool>) p -> p.getSpec().getTemplate().getMetadata().getAnnotations().put("x", "y")),
        Arguments.of("taint effect", (Consumer<NodePool>) p -> spec(p).getTaints().get(0).setEffect("PreferNoSchedule")),
        Arguments.of("taint removed", (Consumer<NodePool>) p -> spec(p).getTaints().remove(1)),
        Arguments.of("startup taint", (Consumer<NodePool>) p -> spec(p).getStartupTaints().add(taint("other", null, "NoSchedule"))),
        Arguments.of("taint moved to startup taints", (Consumer<NodePool>) p -> spec(p).getStartupTaints().add(spec(p).getTaints().remove(0))),
        Arguments.of("nodeClassRef name", (Consumer<NodePool>) p -> spec(p).getNodeClassRef().setName("other")),
        Arguments.of("expireAfter", (Consumer<NodePool>) p -> spec(p).setExpireAfter(NillableDuration.parse("24h"))),
        Arguments.of("expireAfter Never", (Consumer<NodePool>) p -> spec(p).setExpireAfter(NillableDuration.NEVER)),
        Arguments.of("terminationGracePeriod", (Consumer<NodePool>) p -> spec(p).setTerminationGracePeriod(GoDuration.parse("2h"))),
        Arguments.of("terminationGracePeriod unset", (Consumer<NodePool>) p -> spec(p).setTerminationGracePeriod(null)));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("staticDriftChanges")
  void changesWithEveryStaticDriftField(String name, Consumer<NodePool> change) {
    assertThat(hash(change)).isNotEqualTo(NodePoolHash.of(pool()));
  }

  static Stream<Arguments> ignoredChanges() {
    return Stream.of(
        Arguments.of("requirements", (Consumer<NodePool>) p -> spec(p).getRequirements().add(
            new NodeSelectorRequirementWithMinValues("karpenter.sh/capacity-type", "In", List.of("spot"), null))),
        Arguments.of("limits", (Consumer<NodePool>) p -> p.getSpec().setLimits(Map.of("cpu", new Quantity("5")))),
        Arguments.of("weight", (Consumer<NodePool>) p -> p.getSpec().setWeight(50)),
        Arguments.of("disruption", (Consumer<NodePool>) p -> p.getSpec().setDisruption(new Disruption())),
        Arguments.of("name", (Consumer<NodePool>) p -> p.getMetadata().setName("other")),
        Arguments.of("taint order", (Consumer<NodePool>) p -> spec(p).setTaints(List.of(spec(p).getTaints().get(1), spec(p).getTaints().get(0)))),
        Arguments.of("repeated taint", (Consumer<NodePool>) p -> spec(p).getTaints().add(taint("a", "1", "NoSchedule"))),
        Arguments.of("label insertion order", (Consumer<NodePool>) p -> {
          Map<String, String> labels = new java.util.LinkedHashMap<>();
          labels.put("tier", "web");
          labels.put("team", "a");
          p.getSpec().getTemplate().getMetadata().setLabels(labels);
        }),
        Arguments.of("duration spelling", (Consumer<NodePool>) p -> spec(p).setExpireAfter(NillableDuration.parse("43200m"))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ignoredChanges")
  void ignoresWhatUpstreamIgnores(String name, Consumer<NodePool> change) {
    assertThat(hash(change)).isEqualTo(NodePoolHash.of(pool()));
  }

  @Test
  void treatsZeroValuesAsAbsent() {
    String emptyMaps = hash(p -> {
      p.getSpec().getTemplate().getMetadata().setLabels(Map.of());
      p.getSpec().getTemplate().getMetadata().setAnnotations(Map.of());
      spec(p).setTaints(List.of());
    });
    String nullMaps = hash(p -> {
      p.getSpec().getTemplate().setMetadata(null);
      spec(p).setTaints(null);
    });
    assertThat(emptyMaps).isEqualTo(nullMaps);
    assertThat(hash(p -> spec(p).setExpireAfter(NillableDuration.NEVER)))
        .isEqualTo(hash(p -> spec(p).setExpireAfter(null)));
  }

  @Test
  void anEntryMovedBetweenLabelsAndAnnotationsChangesTheHash() {
    String asLabel = hash(p -> {
      p.getSpec().getTemplate().getMetadata().setLabels(Map.of("x", "y"));
      p.getSpec().getTemplate().getMetadata().setAnnotations(null);
    });
    String asAnnotation = hash(p -> {
      p.getSpec().getTemplate().getMetadata().setLabels(null);
      p.getSpec().getTemplate().getMetadata().setAnnotations(Map.of("x", "y"));
    });
    assertThat(asLabel).isNotEqualTo(asAnnotation);
  }
}
