package sh.karpenter.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;

/** Manifests as JSON trees for validator tests: read from YAML, changed at JSON pointers. */
final class YamlTrees {
  private static final YAMLMapper YAML = new YAMLMapper();

  private YamlTrees() {}

  static ObjectNode tree(String yaml) {
    try {
      return (ObjectNode) YAML.readTree(yaml);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Sets (or, for a null value, removes) the field at a JSON pointer, creating missing parent objects. */
  static void set(ObjectNode tree, String pointer, String yamlValue) {
    int slash = pointer.lastIndexOf('/');
    String parentPointer = pointer.substring(0, slash);
    String name = pointer.substring(slash + 1);
    JsonNode parent = parentPointer.isEmpty() ? tree : tree.at(parentPointer);
    if (parent.isMissingNode()) {
      parent = tree.withObject(parentPointer);
    }
    JsonNode value = yamlValue == null ? null : parseValue(yamlValue);
    if (parent.isArray()) {
      ((ArrayNode) parent).set(Integer.parseInt(name), value);
    } else if (value == null) {
      ((ObjectNode) parent).remove(name);
    } else {
      ((ObjectNode) parent).set(name, value);
    }
  }

  /** A YAML value ({@code "[a, b]"}, {@code "{k: v}"}, {@code "7"}) as a JSON tree. */
  static JsonNode parseValue(String yamlValue) {
    try {
      return YAML.readTree("value: " + yamlValue).get("value");
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
