package sh.karpenter.cli.plan;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.api.validation.Manifest;
import sh.karpenter.api.validation.Manifests;

/**
 * {@link LazyModelBinders}: a document binds to the same object, and a bad one fails with the same
 * exception and field path, as with Jackson's eager binders.
 */
class LazyModelBindersTest {
  private static ObjectMapper lazy() {
    return ManifestReader.strictBinding().addModule(new LazyModelBinders()).build();
  }

  private static ObjectMapper eager() {
    return ManifestReader.strictBinding().build();
  }

  /** Every document of a core kind in the examples and the CLI's plan scenarios. */
  private static List<JsonNode> coreDocuments() throws IOException {
    List<Path> files = new ArrayList<>();
    for (Path dir : List.of(Path.of("..", "examples"), Path.of("src", "test", "resources", "scenarios"))) {
      try (Stream<Path> walk = Files.walk(dir)) {
        walk.filter(p -> p.toString().endsWith(".yaml")).sorted().forEach(files::add);
      }
    }
    List<JsonNode> documents = new ArrayList<>();
    for (Manifest manifest : Manifests.read(files)) {
      if (kind(manifest.tree()) != null) {
        documents.add(manifest.tree());
      }
    }
    return documents;
  }

  private static Class<? extends HasMetadata> kind(JsonNode document) {
    return ManifestReader.coreKind(document.path("apiVersion").asText(), document.path("kind").asText());
  }

  @Test
  void everyExampleAndScenarioBindsToWhatTheEagerBindersMake() throws IOException {
    List<JsonNode> documents = coreDocuments();
    ObjectMapper lazy = lazy();
    ObjectMapper eager = eager();

    assertThat(documents).hasSizeGreaterThan(40);
    for (JsonNode document : documents) {
      assertThat((Object) lazy.treeToValue(document, kind(document)))
          .as(document.path("kind").asText() + " " + document.path("metadata").path("name").asText())
          .isEqualTo(eager.treeToValue(document, kind(document)));
    }
  }

  /** Bad values in classes no earlier document used, so their binders are built on the way. */
  @ParameterizedTest
  @ValueSource(
      strings = {
        "spec: {containers: [{name: c, livenessProbe: {httpGet: {port: 80, pathz: /}}}]}",
        "spec: {containers: [{name: c, securityContext: {runAsUser: root}}]}",
        "spec: {volumes: [{name: v, csi: {driver: d, readOnly: maybe}}]}",
        "spec: {affinity: {podAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {topologyKey: zone}}}}",
        "spec: {containers: [{name: c, ports: [{containerPort: eighty}]}]}",
        "status: {conditions: [{type: Ready, lastTransitionTime: [1]}]}",
        "spec: {containers: [{name: c, resources: {requests: {cpu: [1]}}}]}",
      })
  void aBadValueFailsWithTheEagerBindersExceptionAndPath(String spec) {
    JsonNode document = Manifests.read("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n" + spec, "test").getFirst().tree();

    JsonMappingException lazy = catchThrowableOfType(JsonMappingException.class, () -> lazy().treeToValue(document, kind(document)));
    JsonMappingException eager = catchThrowableOfType(JsonMappingException.class, () -> eager().treeToValue(document, kind(document)));

    assertThat(eager).as("the eager binders reject it").isNotNull();
    assertThat(lazy).isNotNull().hasSameClassAs(eager);
    assertThat(lazy.getPathReference()).isEqualTo(eager.getPathReference());
    assertThat(lazy.getOriginalMessage()).isEqualTo(eager.getOriginalMessage());
  }

  /** Two threads meeting the same classes first at once get the same binders' results. */
  @Test
  void threadsBindingAtOnceGetEqualObjects() throws IOException {
    List<JsonNode> deployments = coreDocuments().stream().filter(d -> kind(d) == Deployment.class).toList();
    List<Object> expected = new ArrayList<>();
    for (JsonNode document : deployments) {
      expected.add(eager().treeToValue(document, Deployment.class));
    }
    for (int round = 0; round < 10; round++) {
      ObjectMapper shared = lazy();
      List<CompletableFuture<List<Object>>> threads = new ArrayList<>();
      for (int t = 0; t < 2; t++) {
        threads.add(
            CompletableFuture.supplyAsync(
                () -> {
                  List<Object> bound = new ArrayList<>();
                  for (JsonNode document : deployments) {
                    try {
                      bound.add(shared.treeToValue(document, Deployment.class));
                    } catch (IOException e) {
                      throw new IllegalStateException(e);
                    }
                  }
                  return bound;
                }));
      }
      for (CompletableFuture<List<Object>> thread : threads) {
        assertThat(thread.join()).as("round " + round).isEqualTo(expected);
      }
    }
  }
}
