package sh.karpenter.cli.plan;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.api.binding.JsonChanges;
import sh.karpenter.api.validation.Manifest;
import sh.karpenter.api.validation.Manifests;
import sh.karpenter.testkit.fixtures.GeneratedCluster;

/**
 * {@link DirectBinding} gives what Jackson's strict binding gives, or gives the document up: it
 * never accepts a document Jackson rejects, and never binds one differently.
 */
class DirectBindingTest {
  private static final ObjectMapper JACKSON = ManifestReader.strictBinding().addModule(new LazyModelBinders()).build();

  private static Class<? extends HasMetadata> kind(JsonNode document) {
    return ManifestReader.coreKind(document.path("apiVersion").asText(), document.path("kind").asText());
  }

  /** The documents of core kinds in {@code files}. */
  private static List<JsonNode> coreDocuments(List<Manifest> manifests) {
    return manifests.stream().map(Manifest::tree).filter(tree -> kind(tree) != null).toList();
  }

  private static List<JsonNode> examples() throws IOException {
    try (Stream<Path> walk = Files.walk(Path.of("..", "examples"))) {
      return coreDocuments(Manifests.read(walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()));
    }
  }

  private static List<JsonNode> scenarios() throws IOException {
    try (Stream<Path> walk = Files.walk(Path.of("src", "test", "resources", "scenarios"))) {
      return coreDocuments(Manifests.read(walk.filter(p -> p.toString().endsWith(".yaml")).sorted().toList()));
    }
  }

  private static List<JsonNode> generated(long seed) {
    return coreDocuments(Manifests.read(GeneratedCluster.generate(seed, 600), "generated-" + seed));
  }

  /** Jackson's object for the document, or null when Jackson rejects it. */
  private static Object jackson(JsonNode document) {
    try {
      return JACKSON.treeToValue(document, kind(document));
    } catch (IOException | IllegalArgumentException e) {
      return null;
    }
  }

  /**
   * Compared as the JSON they write: a changed document may hold a quantity such as {@code x}, which
   * both binders accept (the snapshot rejects it later) and whose {@code equals} throws.
   */
  private static boolean assertSameAsJackson(JsonNode document, String context) {
    if (kind(document) == null) {
      return false; // the change hit apiVersion or kind: not a core document any more
    }
    HasMetadata direct = DirectBinding.bind(document, kind(document));
    if (direct != null) {
      Object expected = jackson(document);
      assertThat(expected).as(context + ": Jackson accepts " + document).isNotNull();
      assertThat((Object) direct).as(context).hasSameClassAs(expected);
      assertThat((Object) JACKSON.valueToTree(direct)).as(context + ": " + document).isEqualTo(JACKSON.valueToTree(expected));
    }
    return direct != null;
  }

  @Test
  void theExamplesAndGeneratedClustersAreBoundDirectlyAsJacksonBindsThem() throws IOException {
    List<JsonNode> documents = new ArrayList<>(examples());
    documents.addAll(generated(20240611));
    assertThat(documents).hasSizeGreaterThan(40);
    for (JsonNode document : documents) {
      HasMetadata direct = DirectBinding.bind(document, kind(document));
      assertThat(direct).as("bound directly: " + document).isNotNull();
      assertThat((Object) direct).as(document.toString()).isEqualTo(jackson(document));
    }
  }

  /** The scenarios use fields the tables leave to Jackson too (probes, other volume sources), but most are read directly. */
  @Test
  void everyScenarioDocumentIsBoundAsJacksonBindsIt() throws IOException {
    List<JsonNode> documents = scenarios();
    long direct = documents.stream().filter(document -> assertSameAsJackson(document, "scenario")).count();

    assertThat(direct).as("scenario documents bound directly, of " + documents.size()).isGreaterThan(documents.size() / 2);
  }

  static Stream<Long> seeds() {
    return LongStream.range(0, 40).boxed();
  }

  /**
   * Documents changed at random places (a value of another JSON type, null, an unknown field, a
   * removed field): whatever the direct binder accepts is what Jackson makes of it.
   */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void changedDocumentsAreBoundAsJacksonBindsThemOrGivenUp(long seed) throws IOException {
    Random random = new Random(seed);
    List<JsonNode> corpus = new ArrayList<>(examples());
    corpus.addAll(scenarios());
    corpus.addAll(generated(seed).subList(0, 12));
    int direct = 0;
    for (int i = 0; i < 150; i++) {
      JsonNode document = corpus.get(random.nextInt(corpus.size())).deepCopy();
      int changes = 1 + random.nextInt(3);
      for (int c = 0; c < changes; c++) {
        JsonChanges.change(document, random, JsonChanges::anyValue);
      }
      if (assertSameAsJackson(document, "seed " + seed + ", document " + i)) {
        direct++;
      }
    }
    assertThat(direct).as("changed documents the direct binder still reads (seed " + seed + ")").isBetween(5, 140);
  }

  @ParameterizedTest
  @ValueSource(
      strings = {
        "spec: {containers: [{name: c, resources: {requests: {cpu: 1.5}}}]}", // a float quantity
        "spec: {priority: \"5\"}", // Jackson coerces the string
        "spec: {nodeSelector: {zone: 1}}", // Jackson coerces the number
        "spec: {nodeSelector: null}",
        "spec: {containers: [{name: c, livenessProbe: {exec: {command: [true]}}}]}", // a field left to Jackson
        "spec: {volumes: [{name: v, emptyDir: {}}]}",
        "status: {phase: Running}",
      })
  void documentsOutsideWhatItReadsAreLeftToJackson(String rest) {
    JsonNode document = Manifests.read("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n" + rest, "test").getFirst().tree();

    assertThat(DirectBinding.bind(document, Pod.class)).isNull();
  }

  @Test
  void quantitiesAndIntOrStringsAreMadeAsTheirJacksonBindersMakeThem() {
    JsonNode pod =
        Manifests.read("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: 2, memory: 1Gi}}}]}", "test")
            .getFirst()
            .tree();
    JsonNode budget =
        Manifests.read("apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata: {name: b}\nspec: {minAvailable: 1, maxUnavailable: 50%}", "test")
            .getFirst()
            .tree();

    Pod direct = (Pod) DirectBinding.bind(pod, Pod.class);
    PodDisruptionBudget directBudget = (PodDisruptionBudget) DirectBinding.bind(budget, PodDisruptionBudget.class);

    Quantity cpu = direct.getSpec().getContainers().getFirst().getResources().getRequests().get("cpu");
    assertThat(cpu.getAmount()).isEqualTo("2");
    assertThat((Object) direct).isEqualTo(jackson(pod));
    assertThat(directBudget.getSpec().getMinAvailable().getIntVal()).isEqualTo(1);
    assertThat(directBudget.getSpec().getMaxUnavailable().getStrVal()).isEqualTo("50%");
    assertThat((Object) directBudget).isEqualTo(jackson(budget));
  }

  @Test
  void aWorkloadOfAnotherKindIsNotBoundAsThisOne() throws IOException {
    JsonNode deployment = examples().stream().filter(d -> kind(d) == Deployment.class).findFirst().orElseThrow();

    assertThat(DirectBinding.bind(deployment, Pod.class)).isNull();
  }
}
