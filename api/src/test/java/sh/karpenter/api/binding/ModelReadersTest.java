package sh.karpenter.api.binding;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.stream.LongStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.api.Crds;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.validation.CustomResourceSchema;
import sh.karpenter.api.validation.Manifest;
import sh.karpenter.api.validation.Manifests;
import sh.karpenter.api.validation.Validated;
import sh.karpenter.api.validation.Validator;

/**
 * {@link ModelReaders#NODE_POOL} and {@link ModelReaders#KWOK_NODE_CLASS} read a defaulted manifest
 * into what the fabric8 serialization the {@link Validator} used before makes of it, or give it up:
 * they never accept a tree Jackson rejects, and never read one differently.
 */
class ModelReadersTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** A kind the validator reads directly: its class, its reader and its CRD's schema. */
  private record Read(Class<?> type, ObjectReader<?> reader, CustomResourceSchema schema) {}

  private static final Map<String, Read> KINDS =
      Map.of(
          "NodePool", new Read(NodePool.class, ModelReaders.NODE_POOL, schema(Crds.NODE_POOLS)),
          "KWOKNodeClass", new Read(KWOKNodeClass.class, ModelReaders.KWOK_NODE_CLASS, schema(Crds.KWOK_NODE_CLASSES)));

  private static CustomResourceSchema schema(String resource) {
    return CustomResourceSchema.of(Manifests.read(Crds.yaml(resource), resource).getFirst().tree());
  }

  /** The NodePools and KWOKNodeClasses of the project's examples and test manifests, defaulted as the validator defaults them. */
  private static List<JsonNode> defaultedManifests() throws IOException, URISyntaxException {
    List<Path> files = new ArrayList<>();
    Path examples = Path.of(ModelReadersTest.class.getClassLoader().getResource("examples").toURI());
    for (Path dir : List.of(examples, Path.of("..", "examples"), Path.of("..", "cli", "src", "test", "resources", "scenarios"))) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(files::add);
      }
    }
    List<JsonNode> trees = new ArrayList<>();
    for (Manifest manifest : Manifests.read(files)) {
      Read kind = KINDS.get(manifest.kind());
      if (kind != null && manifest.apiVersion().equals(kind.schema().apiVersion())) {
        trees.add(kind.schema().withDefaults(manifest.tree()));
      }
    }
    return trees;
  }

  /** Jackson's object for the tree, or null when it rejects the tree. */
  private static Object jackson(JsonNode tree) {
    try {
      return SERIALIZATION.convertValue(tree, KINDS.get(tree.path("kind").asText()).type());
    } catch (IllegalArgumentException e) {
      return null;
    }
  }

  /** Compared as the JSON they write (the model classes have no {@code equals}); true when read directly. */
  private static boolean assertReadAsJacksonBindsIt(JsonNode tree, String context) {
    Read kind = KINDS.get(tree.path("kind").asText());
    if (kind == null) {
      return false; // a change hit kind
    }
    Object direct = ObjectReader.read(kind.reader(), tree);
    if (direct == null) {
      return false;
    }
    Object expected = jackson(tree);
    assertThat(expected).as(context + ": Jackson accepts " + tree).isNotNull();
    assertThat(direct).as(context).hasSameClassAs(expected);
    assertThat(SERIALIZATION.convertValue(direct, JsonNode.class)).as(context + ": " + tree).isEqualTo(SERIALIZATION.convertValue(expected, JsonNode.class));
    return true;
  }

  /** Every example is read directly, except those with a status (left to Jackson). */
  @Test
  void everyExampleIsReadDirectlyAsJacksonBindsIt() throws IOException, URISyntaxException {
    List<JsonNode> trees = defaultedManifests();

    assertThat(trees).hasSizeGreaterThan(15);
    for (JsonNode tree : trees) {
      assertThat(assertReadAsJacksonBindsIt(tree, "example")).as("read directly: " + tree).isEqualTo(!tree.has("status"));
    }
  }

  /** The validator's objects are what fabric8's mapper made of the defaulted manifests before the readers. */
  @Test
  void theValidatorGivesTheObjectsJacksonGave() throws IOException {
    List<Manifest> manifests = Manifests.read(Path.of("..", "examples", "nodepools.yaml"));
    assertThat(manifests).hasSizeGreaterThan(2);

    for (Manifest manifest : manifests) {
      Validated<?> validated = Validator.standard().validate(manifest);
      assertThat(validated.errors()).isEmpty();
      Object jackson = jackson(KINDS.get(manifest.kind()).schema().withDefaults(manifest.tree()));
      assertThat(validated.object()).hasSameClassAs(jackson);
      assertThat(SERIALIZATION.convertValue(validated.object(), JsonNode.class)).isEqualTo(SERIALIZATION.convertValue(jackson, JsonNode.class));
    }
  }

  static Stream<Long> seeds() {
    return LongStream.range(0, 30).boxed();
  }

  /** Trees changed at random places: whatever a reader accepts is what Jackson makes of it. */
  @ParameterizedTest(name = "seed {0}")
  @MethodSource("seeds")
  void changedManifestsAreReadAsJacksonBindsThemOrGivenUp(long seed) throws IOException, URISyntaxException {
    Random random = new Random(seed);
    List<JsonNode> corpus = defaultedManifests();
    int direct = 0;
    for (int i = 0; i < 100; i++) {
      JsonNode tree = corpus.get(random.nextInt(corpus.size())).deepCopy();
      for (int c = 1 + random.nextInt(2); c > 0; c--) {
        JsonChanges.change(tree, random, ModelReadersTest::value);
      }
      if (assertReadAsJacksonBindsIt(tree, "seed " + seed + ", manifest " + i)) {
        direct++;
      }
    }
    assertThat(direct).as("changed manifests still read directly (seed " + seed + ")").isBetween(5, 95);
  }

  /** Values of any JSON type, and text the model parses (durations, enum constants). */
  private static JsonNode value(Random random) {
    return switch (random.nextInt(4)) {
      case 0 -> JsonNodeFactory.instance.textNode(random.nextBoolean() ? "5m" : "Never");
      case 1 -> JsonNodeFactory.instance.textNode(random.nextBoolean() ? "WhenEmpty" : "Drifted");
      default -> JsonChanges.anyValue(random);
    };
  }
}
