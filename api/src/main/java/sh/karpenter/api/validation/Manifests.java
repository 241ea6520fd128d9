package sh.karpenter.api.validation;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads multi-document YAML (or JSON) into {@link Manifest}s. Duplicate keys are rejected, as the API
 * server's strict decoding does; empty documents are skipped but still counted, so document names match
 * positions in the file.
 */
public final class Manifests {
  private static final ObjectReader READER =
      YAMLMapper.builder().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build().readerFor(JsonNode.class);

  private Manifests() {}

  /** The name of the {@code index}-th (0-based) document of {@code source}: {@code source#index}. */
  public static String documentName(String source, int index) {
    return source + "#" + index;
  }

  /** Every non-empty document of a file; the file name is the source of the document names. */
  public static List<Manifest> read(Path file) {
    try {
      return read(Files.readString(file), file.toString());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /**
   * Every non-empty document of {@code text}.
   *
   * @throws InvalidManifestException naming the first document that is not well-formed YAML
   */
  public static List<Manifest> read(String text, String source) {
    List<Manifest> manifests = new ArrayList<>();
    int index = 0;
    try (MappingIterator<JsonNode> documents = READER.readValues(text)) {
      while (documents.hasNextValue()) {
        JsonNode tree = documents.nextValue();
        if (tree != null && !tree.isNull() && !tree.isMissingNode()) {
          manifests.add(new Manifest(documentName(source, index), tree));
        }
        index++;
      }
    } catch (JsonProcessingException e) {
      throw new InvalidManifestException(
          List.of(new ValidationError(documentName(source, index), "", "invalid YAML: " + e.getOriginalMessage())));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return manifests;
  }
}
