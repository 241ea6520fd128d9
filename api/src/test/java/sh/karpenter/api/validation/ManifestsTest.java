package sh.karpenter.api.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

class ManifestsTest {
  private static final String POD = "apiVersion: v1\nkind: Pod\nmetadata: {name: %s}\n";

  @TempDir Path dir;

  private Path write(String name, String yaml) throws IOException {
    Path file = dir.resolve(name);
    Files.createDirectories(file.getParent());
    return Files.writeString(file, yaml);
  }

  @Test
  void documentsAreNumberedFromOneAndEmptyDocumentsStillCount() {
    String yaml = POD.formatted("a") + "---\n---\n# only a comment\n---\n" + POD.formatted("b");

    List<Manifest> manifests = Manifests.read(yaml, "pods.yaml");

    assertThat(manifests).extracting(Manifest::document, Manifest::name)
        .containsExactly(
            tuple("pods.yaml, document 1", "a"),
            tuple("pods.yaml, document 4", "b"));
  }

  @Test
  void listsAreExpandedIntoTheirItems() {
    String yaml = POD.formatted("first") + """
        ---
        apiVersion: v1
        kind: List
        items:
          - {apiVersion: v1, kind: Pod, metadata: {name: a}}
          - {apiVersion: v1, kind: List, items: [{apiVersion: v1, kind: Pod, metadata: {name: b}}]}
        """;

    assertThat(Manifests.read(yaml, "list.yaml")).extracting(Manifest::document, Manifest::name)
        .containsExactly(
            tuple("list.yaml, document 1", "first"),
            tuple("list.yaml, document 2, item 1", "a"),
            tuple("list.yaml, document 2, item 2, item 1", "b"));
  }

  /** Input that is not a stream of Kubernetes objects, and the error naming the document at fault. */
  static Stream<Arguments> invalidStreams() {
    return Stream.of(
        Arguments.of("duplicate key", POD.formatted("a") + "---\na: 1\na: 2\n", "s.yaml, document 2: invalid YAML: Duplicate field 'a'"),
        Arguments.of("unclosed flow", POD.formatted("a") + "---\nkind: [oops\n", "s.yaml, document 2: invalid YAML: "),
        Arguments.of("scalar document", "just text\n", "s.yaml, document 1: expected a Kubernetes object, found string"),
        Arguments.of("missing kind", "apiVersion: v1\nmetadata: {name: a}\n", "s.yaml, document 1: kind: Required value"),
        Arguments.of("missing apiVersion", "kind: Pod\n", "s.yaml, document 1: apiVersion: Required value"),
        Arguments.of("list without items", "apiVersion: v1\nkind: List\n", "s.yaml, document 1: items: Required value"),
        Arguments.of("invalid list item", "apiVersion: v1\nkind: List\nitems: [{kind: Pod}]\n", "s.yaml, document 1, item 1: apiVersion: Required value"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidStreams")
  void invalidStreamsNameTheDocument(String description, String yaml, String error) {
    assertThatThrownBy(() -> Manifests.read(yaml, "s.yaml"))
        .isInstanceOfSatisfying(InvalidManifestException.class, e -> assertThat(e.errors()).singleElement()
            .satisfies(found -> assertThat(found.toString()).startsWith(error)));
  }

  @Test
  void malformedYamlGivesTheLineInTheFile() {
    assertThatThrownBy(() -> Manifests.read(POD.formatted("a") + "---\nkind: [oops\n", "s.yaml"))
        .hasMessageMatching("(?s).*at line [56], column \\d+.*");
  }

  @Test
  void directoriesAreReadRecursivelyInPathOrderAndOnlyYamlFiles() throws IOException {
    write("tree/b.yml", POD.formatted("b"));
    write("tree/a/z.yaml", POD.formatted("a-z") + "---\n" + POD.formatted("a-z-2"));
    write("tree/a/notes.txt", "not yaml: [");
    Path single = write("single.yaml", POD.formatted("single"));

    List<Manifest> manifests = Manifests.read(List.of(single, dir.resolve("tree")));

    assertThat(manifests).extracting(Manifest::name).containsExactly("single", "a-z", "a-z-2", "b");
    assertThat(manifests.get(2).document()).isEqualTo(dir.resolve("tree/a/z.yaml") + ", document 2");
  }

  @Test
  void aMissingPathIsNamed() {
    Path absent = dir.resolve("absent.yaml");

    assertThatThrownBy(() -> Manifests.read(List.of(absent)))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(absent + ": no such file or directory");
  }

  @Test
  void documentsLargerThanTheYamlParsersDefaultLimitAreRead() {
    StringBuilder yaml = new StringBuilder("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: big}\ndata:\n");
    String value = "x".repeat(1000);
    for (int i = 0; yaml.length() < 4 * 1024 * 1024; i++) {
      yaml.append("  key").append(i).append(": ").append(value).append('\n');
    }

    assertThat(Manifests.read(yaml.toString(), "big.yaml")).singleElement()
        .satisfies(m -> assertThat(m.tree().path("data").size()).isGreaterThan(4000));
  }

  @Test
  void filesLargerThanTheLimitsAreRefusedBeforeParsing() throws IOException {
    Path a = write("a.yaml", POD.formatted("a"));
    Path b = write("b.yaml", "x".repeat(2000)); // never parsed
    long sizeOfA = Files.size(a);

    assertThatThrownBy(() -> Manifests.read(List.of(a, b), new Manifests.Limits(1024, 1 << 20)))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(b + ": the file is 2.0 KiB, more than the limit of 1.0 KiB per file");
    assertThatThrownBy(() -> Manifests.read(List.of(a, b), new Manifests.Limits(4096, sizeOfA + 100)))
        .hasMessageStartingWith(b + ": the input reaches ")
        .hasMessageEndingWith("with this file, more than the limit of " + (sizeOfA + 100) + " bytes in all");
  }

  @Test
  void aLineLongerThanAnyStoredValueIsRefusedBeforeParsing() throws IOException {
    Path file = write("huge.yaml", POD.formatted("a") + "---\n" + POD.formatted("b") + "data: " + "x".repeat(Manifests.MAX_LINE_BYTES) + "\n");

    assertThatThrownBy(() -> Manifests.read(file))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessage(file + ", document 2: line 8 is longer than 1.5 MiB, the most a YAML line may hold (no object kube-apiserver stores has a longer value)");
  }

  @Test
  void aFileStartingWithABraceIsJsonAndMayBeOneLongLine() throws IOException {
    StringBuilder json = new StringBuilder();
    for (int i = 0; json.length() <= Manifests.MAX_LINE_BYTES; i++) {
      json.append("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"p").append(i).append("\"}}");
    }
    Path file = write("pods.yaml", "  " + json);

    List<Manifest> manifests = Manifests.read(file);

    assertThat(manifests.size()).isGreaterThan(20_000);
    assertThat(manifests.get(1).document()).isEqualTo(file + ", document 2");
    Path duplicate = write("dup.json", "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"kind\":\"Node\"}");
    assertThatThrownBy(() -> Manifests.read(duplicate)).hasMessageStartingWith(duplicate + ", document 1: invalid JSON: Duplicate field 'kind'");
  }

  @Test
  void yamlAliasesAreRefused() {
    String yaml = "apiVersion: v1\nkind: Pod\nmetadata: {name: a, labels: &l {app: web}}\nspec: {nodeSelector: *l}\n";

    assertThatThrownBy(() -> Manifests.read(yaml, "alias.yaml"))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessageStartingWith("alias.yaml, document 1: invalid YAML: aliases (*l) are not supported; write the value out");
  }

  @Test
  void nestingIsLimited() {
    String yaml = "apiVersion: v1\nkind: ConfigMap\ndata: " + "[".repeat(Manifests.MAX_NESTING_DEPTH + 1) + "]".repeat(Manifests.MAX_NESTING_DEPTH + 1) + "\n";

    assertThatThrownBy(() -> Manifests.read(yaml, "deep.yaml"))
        .isInstanceOf(InvalidManifestException.class)
        .hasMessageContaining("deep.yaml, document 1: invalid YAML: Document nesting depth (1001) exceeds the maximum allowed (1000");
  }

  @Test
  void onlyRegularFilesAndDirectoriesAreRead() {
    Path device = Path.of("/dev/zero");
    org.junit.jupiter.api.Assumptions.assumeTrue(Files.exists(device));

    assertThatThrownBy(() -> Manifests.files(device)).hasMessage("/dev/zero: not a regular file or a directory");
  }
}
