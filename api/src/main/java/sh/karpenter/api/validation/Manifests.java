package sh.karpenter.api.validation;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * The one way manifests are read: multi-document YAML (or JSON) files, or directories of {@code
 * *.yaml|*.yml} files read recursively in path order, into {@link Manifest}s.
 *
 * <p>Reading is as strict as an API server's decoding: duplicate keys are rejected, and every
 * document must be an object with an {@code apiVersion} and a {@code kind}. Empty documents (between
 * two {@code ---}, or only comments) are skipped but still counted, so that {@link #documentName
 * document names} match what a person counts in the file. A {@code kind: List} is expanded into its
 * items. Documents have no size limit, so snapshots of large clusters can be read.
 *
 * <p>Every problem is an {@link InvalidManifestException} naming the document, e.g. {@code
 * pools.yaml, document 2: invalid YAML: ...}.
 */
public final class Manifests {
  private static final ObjectReader READER = reader();

  private Manifests() {}

  /**
   * The name of the {@code number}-th document of {@code source}, counted from 1 as people count:
   * {@code pools.yaml, document 2}. Errors about the document start with it.
   */
  public static String documentName(String source, int number) {
    return source + ", document " + number;
  }

  /** Every manifest of each path (a file, or a directory read recursively), in order. */
  public static List<Manifest> read(List<Path> paths) {
    List<Manifest> manifests = new ArrayList<>();
    for (Path path : paths) {
      for (Path file : files(path)) {
        manifests.addAll(read(file));
      }
    }
    return manifests;
  }

  /** Every manifest of a file; the file's path is the source of the document names. */
  public static List<Manifest> read(Path file) {
    try (Reader reader = Files.newBufferedReader(file)) {
      return read(reader, file.toString());
    } catch (IOException e) {
      throw invalid(file.toString(), "cannot read: " + e.getMessage());
    }
  }

  /** Every manifest of {@code text}; {@code source} (a file name, a resource) names its documents. */
  public static List<Manifest> read(String text, String source) {
    try {
      return read(new StringReader(text), source);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringReader does not fail
    }
  }

  private static List<Manifest> read(Reader reader, String source) throws IOException {
    List<Manifest> manifests = new ArrayList<>();
    int number = 1;
    try (MappingIterator<JsonNode> documents = READER.readValues(reader)) {
      for (; documents.hasNextValue(); number++) {
        JsonNode tree = documents.nextValue();
        if (!isEmpty(tree)) {
          add(tree, documentName(source, number), manifests);
        }
      }
    } catch (JsonProcessingException e) {
      throw invalid(documentName(source, number), "invalid YAML: " + describe(e));
    }
    return manifests;
  }

  /** True for a document with no content: the parser reads it as null or as an empty string. */
  private static boolean isEmpty(JsonNode tree) {
    return tree == null || tree.isNull() || tree.isMissingNode() || (tree.isTextual() && tree.asText().isEmpty());
  }

  /** Adds one document, or the items of a {@code List}, each named {@code <document>, item <i>} (1-based). */
  private static void add(JsonNode tree, String document, List<Manifest> out) {
    if (!tree.isObject()) {
      throw invalid(document, "expected a Kubernetes object, found " + tree.getNodeType().name().toLowerCase());
    }
    for (String field : List.of("apiVersion", "kind")) {
      if (!tree.path(field).isTextual() || tree.path(field).asText().isEmpty()) {
        throw new InvalidManifestException(List.of(new ValidationError(document, field, "Required value")));
      }
    }
    Manifest manifest = new Manifest(document, tree);
    if (!manifest.kind().equals("List")) {
      out.add(manifest);
      return;
    }
    JsonNode items = tree.path("items");
    if (!items.isArray()) {
      throw new InvalidManifestException(List.of(new ValidationError(document, "items", "Required value: a list of objects")));
    }
    for (int i = 0; i < items.size(); i++) {
      add(items.get(i), document + ", item " + (i + 1), out);
    }
  }

  private static List<Path> files(Path path) {
    if (!Files.exists(path)) {
      throw invalid(path.toString(), "no such file or directory");
    }
    if (!Files.isDirectory(path)) {
      return List.of(path);
    }
    try (Stream<Path> walk = Files.walk(path)) {
      return walk.filter(Files::isRegularFile).filter(Manifests::isYaml).sorted().toList();
    } catch (IOException | UncheckedIOException e) {
      throw invalid(path.toString(), "cannot list directory: " + e.getMessage());
    }
  }

  private static boolean isYaml(Path file) {
    String name = file.getFileName().toString();
    return name.endsWith(".yaml") || name.endsWith(".yml");
  }

  private static InvalidManifestException invalid(String document, String message) {
    return new InvalidManifestException(List.of(new ValidationError(document, "", message)));
  }

  /** The parser's first line, with the line and column when known. */
  private static String describe(JsonProcessingException e) {
    String message = e.getOriginalMessage() == null ? "not well-formed" : e.getOriginalMessage();
    int newline = message.indexOf('\n');
    String first = newline < 0 ? message : message.substring(0, newline);
    return e.getLocation() == null
        ? first
        : first + " at line " + e.getLocation().getLineNr() + ", column " + e.getLocation().getColumnNr();
  }

  private static ObjectReader reader() {
    LoaderOptions loader = new LoaderOptions();
    loader.setCodePointLimit(Integer.MAX_VALUE); // the 3 MB default is less than a large cluster's snapshot
    return YAMLMapper.builder(YAMLFactory.builder().loaderOptions(loader).build())
        .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
        .build()
        .readerFor(JsonNode.class);
  }
}
