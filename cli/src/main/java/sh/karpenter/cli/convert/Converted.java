package sh.karpenter.cli.convert;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * One object {@code karpenter convert} writes, with the notes it writes above it as YAML comments
 * (fields without a v1 equivalent, values it had to choose).
 *
 * @param source the input document it came from, e.g. {@code provisioner.yaml, document 1}
 */
public record Converted(ObjectNode object, List<String> notes, String source) {
  public Converted {
    notes = List.copyOf(notes);
  }

  public String kind() {
    return object.path("kind").asText();
  }

  public String name() {
    return object.path("metadata").path("name").asText();
  }
}
