package sh.karpenter.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The structure of a CustomResourceDefinition as lines of text, everything except its descriptions
 * (and {@code metadata.annotations}, where controller-gen stamps its version), so that two CRDs which
 * the API server treats alike have the same lines and any other difference shows as a changed line.
 *
 * <p>Lines, all starting with the kind:
 *
 * <ul>
 *   <li>{@code crd <path> <json>}: one per leaf outside the schemas (group, names, scope, each
 *       version's served/storage flags, subresources and printer columns); arrays of objects are
 *       indexed, except versions, which are named ({@code spec.versions[v1]}).
 *   <li>{@code schema <path> <keyword>=<json> ...}: one per schema node, path from the root object
 *       ({@code .spec.disruption.budgets[].reasons}; {@code []} is an array's items, {@code {}} a map's
 *       values), with every keyword of the node except {@code description} and the sub-schemas under
 *       {@code properties}, {@code items} and {@code additionalProperties}, sorted by keyword: type,
 *       format, enum (upstream's order), default, required, pattern, bounds, {@code anyOf}, and every
 *       {@code x-kubernetes-*} extension.
 *   <li>{@code rule <path> [<i>] <json>}: one per CEL rule ({@code x-kubernetes-validations}) in order,
 *       with all its fields (rule, message, messageExpression, reason, fieldPath, optionalOldSelf).
 * </ul>
 *
 * <p>Properties are visited in name order and JSON objects are written with sorted keys, so the
 * order of keys in the YAML does not matter; the order inside arrays (enums, required, rules,
 * printer columns) does.
 */
final class CrdFingerprint {
  private static final JsonMapper JSON =
      JsonMapper.builder().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();
  private static final Set<String> SUB_SCHEMAS = Set.of("properties", "items", "additionalProperties");
  /** Keywords holding further schemas written inline (their descriptions are dropped). */
  private static final Set<String> COMPOSITIONS = Set.of("anyOf", "allOf", "oneOf", "not");

  private CrdFingerprint() {}

  static List<String> of(JsonNode crd) {
    String kind = crd.path("spec").path("names").path("kind").asText();
    if (kind.isEmpty()) {
      throw new IllegalArgumentException("not a CustomResourceDefinition: no spec.names.kind");
    }
    List<String> lines = new ArrayList<>();
    crdLines(kind, crd, "", lines);
    for (JsonNode version : crd.path("spec").path("versions")) {
      JsonNode schema = version.path("schema").path("openAPIV3Schema");
      String prefix = crd.path("spec").path("versions").size() > 1 ? version.path("name").asText() + ":" : "";
      schemaLines(kind, schema, prefix, lines);
    }
    return lines;
  }

  private static void crdLines(String kind, JsonNode node, String path, List<String> lines) {
    if (node.isObject() && !node.isEmpty()) {
      for (Map.Entry<String, JsonNode> field : sortedFields(node)) {
        String key = field.getKey();
        String child = path.isEmpty() ? key : path + "." + key;
        if (key.equals("description") || child.equals("metadata.annotations")) {
          continue;
        }
        if (child.startsWith("spec.versions[") && key.equals("schema")) {
          continue; // the schema has its own lines
        }
        crdLines(kind, field.getValue(), child, lines);
      }
    } else if (node.isArray() && !node.isEmpty() && node.get(0).isObject()) {
      for (int i = 0; i < node.size(); i++) {
        JsonNode element = node.get(i);
        String index = path.equals("spec.versions") ? element.path("name").asText() : Integer.toString(i);
        crdLines(kind, element, path + "[" + index + "]", lines);
      }
    } else {
      lines.add(kind + "\tcrd\t" + path + "\t" + json(node));
    }
  }

  private static void schemaLines(String kind, JsonNode schema, String path, List<String> lines) {
    StringBuilder keywords = new StringBuilder();
    for (Map.Entry<String, JsonNode> field : sortedFields(schema)) {
      String key = field.getKey();
      boolean subSchema = SUB_SCHEMAS.contains(key) && field.getValue().isObject();
      if (!key.equals("description") && !key.equals("x-kubernetes-validations") && !subSchema) {
        JsonNode value = COMPOSITIONS.contains(key) ? withoutDescriptions(field.getValue()) : field.getValue();
        keywords.append(keywords.isEmpty() ? "" : " ").append(key).append('=').append(json(value));
      }
    }
    lines.add(kind + "\tschema\t" + (path.isEmpty() ? "." : path) + "\t" + keywords);
    JsonNode rules = schema.path("x-kubernetes-validations");
    for (int i = 0; i < rules.size(); i++) {
      lines.add(kind + "\trule\t" + (path.isEmpty() ? "." : path) + "\t[" + i + "]\t" + json(rules.get(i)));
    }
    for (Map.Entry<String, JsonNode> property : sortedFields(schema.path("properties"))) {
      schemaLines(kind, property.getValue(), path + "." + property.getKey(), lines);
    }
    if (schema.path("items").isObject()) {
      schemaLines(kind, schema.get("items"), path + "[]", lines);
    }
    if (schema.path("additionalProperties").isObject()) {
      schemaLines(kind, schema.get("additionalProperties"), path + "{}", lines);
    }
  }

  private static List<Map.Entry<String, JsonNode>> sortedFields(JsonNode node) {
    Map<String, JsonNode> sorted = new TreeMap<>();
    node.properties().forEach(e -> sorted.put(e.getKey(), e.getValue()));
    return List.copyOf(sorted.entrySet());
  }

  /** Compact JSON with sorted keys. */
  private static String json(JsonNode node) {
    try {
      return JSON.writeValueAsString(JSON.treeToValue(node, Object.class));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static JsonNode withoutDescriptions(JsonNode node) {
    if (node.isObject()) {
      ObjectNode copy = JSON.createObjectNode();
      node.properties().forEach(e -> {
        if (!e.getKey().equals("description")) {
          copy.set(e.getKey(), withoutDescriptions(e.getValue()));
        }
      });
      return copy;
    }
    if (node.isArray()) {
      ArrayNode copy = JSON.createArrayNode();
      node.forEach(element -> copy.add(withoutDescriptions(element)));
      return copy;
    }
    return node;
  }
}
