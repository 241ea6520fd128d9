package sh.karpenter.api.validation;

import static sh.karpenter.api.validation.ErrorCollector.field;
import static sh.karpenter.api.validation.ErrorCollector.index;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.regex.Pattern;

/**
 * The structural OpenAPI schema of one CustomResourceDefinition version, applied the way the API server
 * applies it to a create request: prune nulls and apply defaults, then check types, enums, patterns,
 * lengths, bounds, item counts (at most and at least) and property counts, required and unknown
 * fields, formats, the uniqueness of {@code x-kubernetes-list-type} set items and map keys, and the CEL
 * rules (through {@link CelRules}). Built from the CRD YAML itself, so offline validation cannot drift
 * from what a real API server enforces.
 */
public final class CustomResourceSchema {
  private static final Map<String, Pattern> PATTERNS = new ConcurrentHashMap<>();

  private static final String CEL_SKIPPED =
      "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation";

  private final String apiVersion;
  private final String kind;
  private final JsonNode openApiSchema;

  private CustomResourceSchema(String apiVersion, String kind, JsonNode openApiSchema) {
    this.apiVersion = apiVersion;
    this.kind = kind;
    this.openApiSchema = openApiSchema;
  }

  /**
   * The schema of the storage version of a CRD.
   *
   * @throws IllegalArgumentException when the CRD has a CEL rule {@link CelRules} cannot evaluate
   */
  public static CustomResourceSchema of(JsonNode crd) {
    JsonNode spec = crd.path("spec");
    JsonNode version = null;
    for (JsonNode candidate : spec.path("versions")) {
      if (candidate.path("storage").asBoolean()) {
        version = candidate;
      }
    }
    if (version == null) {
      throw new IllegalArgumentException("CRD " + crd.path("metadata").path("name").asText() + " has no storage version");
    }
    JsonNode schema = version.path("schema").path("openAPIV3Schema");
    requireEvaluableRules(schema, crd.path("metadata").path("name").asText());
    return new CustomResourceSchema(
        spec.path("group").asText() + "/" + version.path("name").asText(),
        spec.path("names").path("kind").asText(),
        schema);
  }

  public String apiVersion() {
    return apiVersion;
  }

  public String kind() {
    return kind;
  }

  /** A copy of {@code object} with null fields pruned and every schema default applied, as the API server stores it. */
  public ObjectNode withDefaults(JsonNode object) {
    ObjectNode copy = object.deepCopy();
    applyDefaults(copy, openApiSchema, false);
    return copy;
  }

  /**
   * Schema and CEL errors of an (already defaulted) object. Like the API server, CEL rules are not
   * evaluated when the object has a "blocking" schema error (wrong type, unsupported value, missing
   * required field, too long, too many): a note says so instead.
   */
  void validate(JsonNode object, ErrorCollector errors) {
    SchemaWalk walk = new SchemaWalk(errors);
    walk.value(object, openApiSchema, "");
    listTypes(object, openApiSchema, "", errors);
    if (walk.blocked) {
      errors.add("", CEL_SKIPPED);
    } else {
      celRules(object, openApiSchema, "", errors);
    }
  }

  /** Evaluates every CEL rule whose schema node has a value, depth first. */
  private static void celRules(JsonNode value, JsonNode schema, String path, ErrorCollector errors) {
    if (value.isObject()) {
      value.properties().forEach(
          entry -> celRules(entry.getValue(), childSchema(schema, entry.getKey()), field(path, entry.getKey()), errors));
    } else if (value.isArray()) {
      for (int i = 0; i < value.size(); i++) {
        celRules(value.get(i), schema.path("items"), index(path, i), errors);
      }
    }
    for (JsonNode rule : schema.path("x-kubernetes-validations")) {
      String text = rule.path("rule").asText();
      if (CelRules.isTransitionRule(text)) {
        continue;
      }
      CelRules.Outcome outcome = CelRules.evaluation(text).orElseThrow().apply(value);
      String message = rule.path("message").asText(text);
      if (outcome.error() != null) {
        errors.add(path, "Invalid value: \"" + schema.path("type").asText() + "\": " + outcome.error() + " evaluating rule: " + message);
      } else if (!outcome.holds()) {
        errors.add(path, "Invalid value: " + (value.isContainerNode() ? "" : quote(value) + ": ") + message);
      }
    }
  }

  /**
   * The invariants of {@code x-kubernetes-list-type} arrays, checked after the schema as the API server
   * does (listtype.ValidateListSetsAndMaps): a set holds no value twice, a map no key twice. Each
   * repeated value (or key, as an object of the {@code x-kubernetes-list-map-keys}) is reported once, at
   * its second occurrence, as {@code Duplicate value}; the error does not keep CEL rules from running.
   */
  private static void listTypes(JsonNode value, JsonNode schema, String path, ErrorCollector errors) {
    if (value.isObject()) {
      value.properties().forEach(entry -> {
        JsonNode child = childSchema(schema, entry.getKey());
        if (!child.isMissingNode()) {
          listTypes(entry.getValue(), child, field(path, entry.getKey()), errors);
        }
      });
    } else if (value.isArray()) {
      String listType = schema.path("x-kubernetes-list-type").asText();
      if (listType.equals("set") || listType.equals("map")) {
        Map<JsonNode, Integer> seen = new HashMap<>();
        for (int i = 0; i < value.size(); i++) {
          JsonNode identity = listType.equals("set") ? value.get(i) : mapKey(value.get(i), schema.path("x-kubernetes-list-map-keys"));
          if (seen.merge(identity, 1, Integer::sum) == 2) {
            errors.add(index(path, i), "Duplicate value: " + (identity.isTextual() ? quote(identity) : identity.toString()));
          }
        }
      }
      for (int i = 0; i < value.size(); i++) {
        listTypes(value.get(i), schema.path("items"), index(path, i), errors);
      }
    }
  }

  /** The key fields of one item of a list-type map that the item has, as an object with its fields in name order. */
  private static JsonNode mapKey(JsonNode item, JsonNode keyFields) {
    ObjectNode key = JsonNodeFactory.instance.objectNode();
    keyFields.valueStream().map(JsonNode::asText).sorted().filter(item::has).forEach(name -> key.set(name, item.get(name)));
    return key;
  }

  /**
   * Prunes nulls and applies defaults. {@code preserved} is true inside a value that
   * {@code x-kubernetes-preserve-unknown-fields} keeps without a schema (spec.kubelet's fields): the
   * API server keeps nulls there, as it prunes only nulls that have a schema.
   */
  private static void applyDefaults(JsonNode value, JsonNode schema, boolean preserved) {
    boolean preserving = preserved || schema.path("x-kubernetes-preserve-unknown-fields").asBoolean();
    if (value.isObject()) {
      ObjectNode object = (ObjectNode) value;
      List<String> nulls = new ArrayList<>();
      object.properties().forEach(e -> {
        JsonNode child = childSchema(schema, e.getKey());
        boolean schemaless = child.isMissingNode() && preserving;
        if (e.getValue().isNull() && !schemaless && !child.path("nullable").asBoolean()) {
          nulls.add(e.getKey());
        }
      });
      object.remove(nulls);
      schema.path("properties").properties().forEach(property -> {
        JsonNode defaultValue = property.getValue().get("default");
        if (defaultValue != null && !object.has(property.getKey())) {
          object.set(property.getKey(), defaultValue.deepCopy());
        }
      });
      object.properties().forEach(e -> {
        JsonNode child = childSchema(schema, e.getKey());
        applyDefaults(e.getValue(), child, child.isMissingNode() && preserving);
      });
    } else if (value.isArray()) {
      JsonNode items = schema.path("items");
      value.forEach(item -> applyDefaults(item, items, items.isMissingNode() && preserving));
    }
  }

  /** The schema of an object's field: its property schema, else additionalProperties, else missing. */
  private static JsonNode childSchema(JsonNode objectSchema, String name) {
    JsonNode property = objectSchema.path("properties").path(name);
    return property.isMissingNode() ? objectSchema.path("additionalProperties") : property;
  }

  private static void requireEvaluableRules(JsonNode schema, String crdName) {
    if (schema.isMissingNode()) {
      return;
    }
    for (JsonNode rule : schema.path("x-kubernetes-validations")) {
      String text = rule.path("rule").asText();
      if (!CelRules.isTransitionRule(text) && CelRules.evaluation(text).isEmpty()) {
        throw new IllegalArgumentException("CRD " + crdName + " has a CEL rule without an offline evaluation: " + text);
      }
    }
    schema.path("properties").forEach(property -> requireEvaluableRules(property, crdName));
    requireEvaluableRules(schema.path("additionalProperties"), crdName);
    requireEvaluableRules(schema.path("items"), crdName);
  }

  private static String quote(JsonNode value) {
    return value.isTextual() ? "\"" + value.asText() + "\"" : value.toString();
  }

  private static Pattern pattern(String regex) {
    return PATTERNS.computeIfAbsent(regex, Pattern::compile);
  }

  /** One pass of the OpenAPI (non-CEL) checks over an object, reporting into {@code errors}. */
  private static final class SchemaWalk {
    private final ErrorCollector errors;
    /** Whether an error was found that keeps the API server from evaluating CEL rules. */
    private boolean blocked;

    SchemaWalk(ErrorCollector errors) {
      this.errors = errors;
    }

    private void blocking(String path, String message) {
      errors.add(path, message);
      blocked = true;
    }

    void value(JsonNode value, JsonNode schema, String path) {
      if (!hasType(value, schema)) {
        blocking(path, "Invalid value: \"" + jsonType(value) + "\": " + path + " in body must be of type " + expectedType(schema) + ": \"" + jsonType(value) + "\"");
        return;
      }
      enumeration(value, schema, path);
      if (value.isTextual()) {
        string(value.asText(), schema, path);
      } else if (value.isIntegralNumber()) {
        integer(value.asLong(), schema, path);
      } else if (value.isArray()) {
        array(value, schema, path);
      } else if (value.isObject()) {
        object(value, schema, path);
      }
    }

    private void enumeration(JsonNode value, JsonNode schema, String path) {
      JsonNode allowed = schema.get("enum");
      if (allowed == null) {
        return;
      }
      for (JsonNode candidate : allowed) {
        if (candidate.equals(value)) {
          return;
        }
      }
      List<String> quoted = new ArrayList<>();
      allowed.forEach(candidate -> quoted.add("\"" + candidate.asText() + "\""));
      blocking(path, "Unsupported value: " + quote(value) + ": supported values: " + String.join(", ", quoted));
    }

    private void string(String text, JsonNode schema, String path) {
      int length = text.codePointCount(0, text.length());
      if (schema.has("maxLength") && length > schema.get("maxLength").asInt()) {
        blocking(path, "Too long: may not be more than " + schema.get("maxLength").asInt() + " bytes");
      }
      if (schema.has("minLength") && length < schema.get("minLength").asInt()) {
        errors.add(path, "Invalid value: \"" + text + "\": " + path + " in body should be at least " + schema.get("minLength").asInt() + " chars long");
      }
      if (schema.has("pattern") && !pattern(schema.get("pattern").asText()).matcher(text).find()) {
        errors.add(path, "Invalid value: \"" + text + "\": " + path + " in body should match '" + schema.get("pattern").asText() + "'");
      }
      if ("date-time".equals(schema.path("format").asText()) && !isDateTime(text)) {
        errors.add(path, "Invalid value: \"" + text + "\": " + path + " in body must be of type date-time");
      }
    }

    private void integer(long number, JsonNode schema, String path) {
      if (schema.has("minimum") && number < schema.get("minimum").asLong()) {
        errors.add(path, "Invalid value: " + number + ": " + path + " in body should be greater than or equal to " + schema.get("minimum").asLong());
      }
      if (schema.has("maximum") && number > schema.get("maximum").asLong()) {
        errors.add(path, "Invalid value: " + number + ": " + path + " in body should be less than or equal to " + schema.get("maximum").asLong());
      }
    }

    private void array(JsonNode array, JsonNode schema, String path) {
      if (schema.has("maxItems") && array.size() > schema.get("maxItems").asInt()) {
        blocking(path, "Too many: " + array.size() + ": must have at most " + schema.get("maxItems").asInt() + " items");
      }
      if (schema.has("minItems") && array.size() < schema.get("minItems").asInt()) {
        errors.add(path, "Invalid value: " + array.size() + ": " + path + " in body should have at least " + schema.get("minItems").asInt() + " items");
      }
      for (int i = 0; i < array.size(); i++) {
        value(array.get(i), schema.path("items"), index(path, i));
      }
    }

    private void object(JsonNode object, JsonNode schema, String path) {
      if (schema.has("maxProperties") && object.size() > schema.get("maxProperties").asInt()) {
        blocking(path, "Too many: " + object.size() + ": must have at most " + schema.get("maxProperties").asInt() + " items");
      }
      for (JsonNode required : schema.path("required")) {
        if (!object.has(required.asText())) {
          blocking(field(path, required.asText()), "Required value");
        }
      }
      JsonNode properties = schema.get("properties");
      JsonNode additional = schema.get("additionalProperties");
      boolean preserveUnknown = schema.path("x-kubernetes-preserve-unknown-fields").asBoolean();
      for (Map.Entry<String, JsonNode> entry : object.properties()) {
        JsonNode property = properties == null ? null : properties.get(entry.getKey());
        if (property != null) {
          value(entry.getValue(), property, field(path, entry.getKey()));
        } else if (additional != null && additional.isObject()) {
          value(entry.getValue(), additional, field(path, entry.getKey()));
        } else if (properties != null && !preserveUnknown) {
          errors.add(field(path, entry.getKey()), "unknown field \"" + field(path, entry.getKey()) + "\"");
        }
      }
    }

    private static boolean hasType(JsonNode value, JsonNode schema) {
      if (schema.path("x-kubernetes-int-or-string").asBoolean()) {
        return value.isTextual() || value.isIntegralNumber();
      }
      return switch (schema.path("type").asText()) {
        case "object" -> value.isObject();
        case "array" -> value.isArray();
        case "string" -> value.isTextual();
        case "integer" -> value.isIntegralNumber();
        case "number" -> value.isNumber();
        case "boolean" -> value.isBoolean();
        default -> true;
      };
    }

    private static String expectedType(JsonNode schema) {
      return schema.path("x-kubernetes-int-or-string").asBoolean() ? "integer or string" : schema.path("type").asText("any");
    }

    private static String jsonType(JsonNode value) {
      return switch (value.getNodeType()) {
        case OBJECT, POJO -> "object";
        case ARRAY -> "array";
        case STRING, BINARY -> "string";
        case NUMBER -> value.isIntegralNumber() ? "integer" : "number";
        case BOOLEAN -> "boolean";
        case NULL, MISSING -> "null";
      };
    }


    private static boolean isDateTime(String text) {
      try {
        OffsetDateTime.parse(text);
        return true;
      } catch (DateTimeParseException e) {
        return false;
      }
    }
  }
}
