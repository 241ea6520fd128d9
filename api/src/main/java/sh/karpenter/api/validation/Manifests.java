package sh.karpenter.api.validation;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.Reader;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
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
 * items. A file whose first non-blank character is <code>{</code> is read as JSON (a stream of
 * objects), as kubectl does.
 *
 * <p>Hostile input is bounded before and while it is parsed:
 *
 * <ul>
 *   <li>files are at most {@link Limits#maxFileBytes()} each and {@link Limits#maxTotalBytes()} in
 *       all ({@link Limits#DEFAULT}: 64 MiB and 256 MiB), checked from their sizes before any is
 *       parsed ({@link #checkSizes});
 *   <li>a YAML line is at most {@link #MAX_LINE_BYTES} (1.5 MiB, the largest request etcd accepts by
 *       default, so no stored object holds a longer value), checked by a byte scan before parsing:
 *       SnakeYAML slows down more than linearly on a long single-line scalar; a JSON string is at
 *       most as long;
 *   <li>SnakeYAML's code-point limit per document is lifted (its 3 MB default is less than a large
 *       cluster's {@code kind: List} export, which is one document): the file limit bounds a
 *       document;
 *   <li>nesting is at most {@link #MAX_NESTING_DEPTH} levels (Jackson's stream constraint, for YAML
 *       and JSON alike);
 *   <li>YAML aliases ({@code *name}) are rejected: Jackson would read them as the anchor's name, not
 *       its value, so nothing can expand into a "billion laughs" either.
 * </ul>
 *
 * <p>Every problem is an {@link InvalidManifestException} naming the document, e.g. {@code
 * pools.yaml, document 2: invalid YAML: ...}.
 */
public final class Manifests {
  /** The longest YAML line, and JSON string, read: 1.5 MiB. */
  public static final int MAX_LINE_BYTES = 3 << 19;

  /** The deepest nesting of objects and lists read. */
  public static final int MAX_NESTING_DEPTH = 1000;

  private static final YAMLFactory YAML_FACTORY = yamlFactory();
  private static final ObjectReader READER = reader(YAML_FACTORY);
  private static final ObjectReader JSON_READER = reader(JsonFactory.builder().streamReadConstraints(constraints()).build());

  private Manifests() {}

  /**
   * How much {@link #read(List, Limits)} reads.
   *
   * @param maxFileBytes the largest file
   * @param maxTotalBytes the most bytes in all files together
   */
  public record Limits(long maxFileBytes, long maxTotalBytes) {
    /** 64 MiB per file, 256 MiB in all: a 100,000-pod snapshot is some 20 MiB of YAML. */
    public static final Limits DEFAULT = new Limits(64L << 20, 256L << 20);

    public Limits {
      if (maxFileBytes < 1 || maxTotalBytes < 1) {
        throw new IllegalArgumentException("limits must be positive: " + maxFileBytes + " bytes per file, " + maxTotalBytes + " in all");
      }
    }
  }

  /**
   * The name of the {@code number}-th document of {@code source}, counted from 1 as people count:
   * {@code pools.yaml, document 2}. Errors about the document start with it.
   */
  public static String documentName(String source, int number) {
    return source + ", document " + number;
  }

  /** Every manifest of each path (a file, or a directory read recursively), in order, within the default limits. */
  public static List<Manifest> read(List<Path> paths) {
    return read(paths, Limits.DEFAULT);
  }

  /** Every manifest of each path (a file, or a directory read recursively), in order. */
  public static List<Manifest> read(List<Path> paths, Limits limits) {
    List<Path> files = new ArrayList<>();
    for (Path path : paths) {
      files.addAll(files(path));
    }
    checkSizes(files, limits);
    List<Manifest> manifests = new ArrayList<>();
    for (Path file : files) {
      manifests.addAll(read(file));
    }
    return manifests;
  }

  /**
   * Checks the files' sizes against the limits, before anything is parsed.
   *
   * @throws InvalidManifestException naming the first file too large, or the file that takes the
   *     total over its limit
   */
  public static void checkSizes(List<Path> files, Limits limits) {
    long total = 0;
    for (Path file : files) {
      long size;
      try {
        size = Files.size(file);
      } catch (IOException e) {
        throw invalid(file.toString(), "cannot read: " + e.getMessage());
      }
      if (size > limits.maxFileBytes()) {
        throw invalid(file.toString(), "the file is " + bytes(size) + ", more than the limit of " + bytes(limits.maxFileBytes()) + " per file");
      }
      total += size;
      if (total > limits.maxTotalBytes()) {
        throw invalid(
            file.toString(),
            "the input reaches " + bytes(total) + " with this file, more than the limit of " + bytes(limits.maxTotalBytes()) + " in all");
      }
    }
  }

  /** A size for people: {@code 200.0 MiB}. */
  static String bytes(long bytes) {
    String[] units = {"KiB", "MiB", "GiB", "TiB"};
    if (bytes < 1024) {
      return bytes + " bytes";
    }
    double value = bytes;
    int unit = -1;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
  }

  /**
   * Every manifest of a file; the file's path is the source of the document names. The file is
   * scanned first for lines longer than {@link #MAX_LINE_BYTES} (YAML only) and for a JSON start.
   */
  public static List<Manifest> read(Path file) {
    String source = file.toString();
    boolean json;
    try (InputStream in = new BufferedInputStream(Files.newInputStream(file))) {
      json = scan(in, source);
    } catch (IOException e) {
      throw invalid(source, "cannot read: " + e.getMessage());
    }
    try (Reader reader = Files.newBufferedReader(file)) {
      return read(reader, source, json);
    } catch (IOException e) {
      throw invalid(source, "cannot read: " + e.getMessage());
    }
  }

  /**
   * One pass over the bytes: whether the text is JSON (its first non-blank character, after a byte
   * order mark, is <code>{</code>), and for YAML that no line is longer than {@link #MAX_LINE_BYTES}.
   * Documents are counted at lines starting with {@code ---}, as the parser counts them.
   */
  private static boolean scan(InputStream in, String source) throws IOException {
    int first = -1;
    int document = 1;
    boolean content = false; // a line other than blanks and comments since the last separator
    long line = 1;
    long length = 0;
    boolean lineStart = true;
    byte[] buffer = new byte[1 << 16];
    for (int read = in.read(buffer); read > 0; read = in.read(buffer)) {
      for (int i = 0; i < read; i++) {
        int b = buffer[i] & 0xff;
        if (first < 0 && !isBlank(b) && !(line == 1 && length < 3 && (b == 0xef || b == 0xbb || b == 0xbf))) {
          first = b;
          if (first == '{') {
            return true;
          }
        }
        if (b == '\n') {
          line++;
          length = 0;
          lineStart = true;
          continue;
        }
        length++;
        if (length > MAX_LINE_BYTES) {
          throw invalid(
              documentName(source, document),
              "line " + line + " is longer than " + bytes(MAX_LINE_BYTES) + ", the most a YAML line may hold"
                  + " (no object kube-apiserver stores has a longer value)");
        }
        if (lineStart && !isBlank(b)) {
          lineStart = false;
          if (b == '-' && startsSeparator(buffer, i, read)) {
            if (content) {
              document++;
            }
            content = true;
          } else if (b != '#') {
            content = true;
          }
        }
      }
    }
    return false;
  }

  /** Whether {@code ---} starts at {@code i} (as far as the buffer shows). */
  private static boolean startsSeparator(byte[] buffer, int i, int end) {
    return i + 2 < end && buffer[i + 1] == '-' && buffer[i + 2] == '-' && (i + 3 >= end || isBlank(buffer[i + 3] & 0xff));
  }

  private static boolean isBlank(int b) {
    return b == ' ' || b == '\t' || b == '\r' || b == '\n';
  }

  /**
   * Every manifest of {@code text} (YAML or JSON, which is YAML too); {@code source} (a file name,
   * a resource) names its documents. The line limit applies to files only.
   */
  public static List<Manifest> read(String text, String source) {
    try {
      return read(new StringReader(text), source, false);
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringReader does not fail
    }
  }

  private static List<Manifest> read(Reader reader, String source, boolean json) throws IOException {
    List<Manifest> manifests = new ArrayList<>();
    int number = 1;
    JsonParser parser = json ? JSON_READER.createParser(reader) : new NoAliases(YAML_FACTORY.createParser(reader));
    try (MappingIterator<JsonNode> documents = (json ? JSON_READER : READER).readValues(parser)) {
      for (; documents.hasNextValue(); number++) {
        JsonNode tree = documents.nextValue();
        if (!isEmpty(tree)) {
          add(tree, documentName(source, number), manifests);
        }
      }
    } catch (JsonProcessingException e) {
      throw invalid(documentName(source, number), (json ? "invalid JSON: " : "invalid YAML: ") + describe(e));
    }
    return manifests;
  }

  /** A YAML parser that rejects aliases ({@code *name}), which Jackson would read as the anchor's name. */
  private static final class NoAliases extends JsonParserDelegate {
    NoAliases(JsonParser yaml) {
      super(yaml);
    }

    @Override
    public JsonToken nextToken() throws IOException {
      JsonToken token = super.nextToken();
      if (delegate() instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
        throw new JsonParseException(this, "aliases (*" + yaml.getText() + ") are not supported; write the value out");
      }
      return token;
    }
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

  /**
   * The files a path names: the path itself when it is a file, else the {@code *.yaml} and {@code
   * *.yml} files under it (recursively, in path order; possibly none).
   *
   * @throws InvalidManifestException when the path does not exist or is neither a regular file nor
   *     a directory (a device or pipe could be read forever)
   */
  public static List<Path> files(Path path) {
    if (!Files.exists(path)) {
      throw invalid(path.toString(), "no such file or directory");
    }
    if (!Files.isDirectory(path)) {
      if (!Files.isRegularFile(path)) {
        throw invalid(path.toString(), "not a regular file or a directory");
      }
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

  private static YAMLFactory yamlFactory() {
    LoaderOptions loader = new LoaderOptions();
    loader.setCodePointLimit(Integer.MAX_VALUE); // the 3 MB default is less than a large cluster's snapshot; files are limited instead
    return YAMLFactory.builder().loaderOptions(loader).streamReadConstraints(constraints()).build();
  }

  private static StreamReadConstraints constraints() {
    return StreamReadConstraints.builder().maxStringLength(MAX_LINE_BYTES).maxNestingDepth(MAX_NESTING_DEPTH).build();
  }

  private static ObjectReader reader(YAMLFactory factory) {
    return YAMLMapper.builder(factory).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build().readerFor(JsonNode.class);
  }

  private static ObjectReader reader(JsonFactory factory) {
    return JsonMapper.builder(factory).enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build().readerFor(JsonNode.class);
  }
}
