package sh.karpenter.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.json.JsonMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.api.validation.Manifests;

/**
 * The bundled CRDs against upstream's field list and CEL rule list: the same field paths with the same
 * types, formats, defaults, enums, patterns and bounds; the same rules and messages at the same places;
 * the same scope and printer columns.
 */
class CrdParityTest {
  private static final Pattern HEADER =
      Pattern.compile("# (\\S+) (\\S+) scope=(\\S+) printer-columns=(\\S*)");
  private static final Pattern ATTRIBUTE_START =
      Pattern.compile(" (?=(enum|default|pattern|maxLength|minLength|minimum|maximum|maxItems|maxProperties)=)");
  private static final List<String> NUMERIC_ATTRIBUTES =
      List.of("maxLength", "minLength", "minimum", "maximum", "maxItems", "maxProperties");
  private static final JsonMapper JSON = new JsonMapper();

  private static final Map<String, JsonNode> CRDS_BY_KIND = new LinkedHashMap<>();

  static {
    for (String resource : Crds.ALL) {
      JsonNode crd = Manifests.read(Crds.yaml(resource), resource).getFirst().tree();
      CRDS_BY_KIND.put(crd.path("spec").path("names").path("kind").asText(), crd);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"NodePool", "NodeClaim", "KWOKNodeClass"})
  void fieldsMatchUpstream(String kind) {
    assertThat(bundledFields(kind)).isEqualTo(upstreamFields(kind));
  }

  @ParameterizedTest
  @ValueSource(strings = {"NodePool", "NodeClaim", "KWOKNodeClass"})
  void celRulesMatchUpstream(String kind) {
    List<String> upstream = UpstreamSpec.lines(UpstreamSpec.VALIDATIONS).stream()
        .filter(line -> line.startsWith(kind + ".") || line.startsWith(kind + "\t"))
        .sorted()
        .toList();
    List<String> bundled = new ArrayList<>();
    collectRules(openApiSchema(kind), kind, bundled);
    assertThat(bundled.stream().sorted().toList()).isEqualTo(upstream);
  }

  @Test
  void scopeGroupVersionAndPrinterColumnsMatchUpstream() {
    List<String> headers = UpstreamSpec.lines(UpstreamSpec.FIELDS).stream().filter(l -> l.startsWith("# ")).toList();
    assertThat(headers).hasSize(CRDS_BY_KIND.size());
    for (String header : headers) {
      Matcher m = HEADER.matcher(header);
      assertThat(m.matches()).as(header).isTrue();
      JsonNode spec = CRDS_BY_KIND.get(m.group(1)).path("spec");
      JsonNode version = spec.path("versions").get(0);
      assertThat(spec.path("group").asText() + "/" + version.path("name").asText()).isEqualTo(m.group(2));
      assertThat(spec.path("scope").asText()).isEqualTo(m.group(3));
      String columns = StreamSupport.stream(version.path("additionalPrinterColumns").spliterator(), false)
          .map(c -> c.path("name").asText()).collect(Collectors.joining(","));
      assertThat(columns).as(m.group(1) + " printer columns").isEqualTo(m.group(4));
      assertThat(spec.path("names").path("categories").toString()).isEqualTo("[\"karpenter\"]");
      assertThat(version.path("subresources").has("status")).isTrue();
    }
  }

  @Test
  void nodePoolScalesThroughReplicasAndNodes() {
    JsonNode scale = CRDS_BY_KIND.get("NodePool").path("spec").path("versions").get(0).path("subresources").path("scale");
    assertThat(scale.path("specReplicasPath").asText()).isEqualTo(".spec.replicas");
    assertThat(scale.path("statusReplicasPath").asText()).isEqualTo(".status.nodes");
  }

  @ParameterizedTest
  @ValueSource(strings = {"NodePool", "NodeClaim", "KWOKNodeClass"})
  void schemasAreStructural(String kind) {
    List<String> untyped = new ArrayList<>();
    collectUntyped(openApiSchema(kind), kind, untyped);
    assertThat(untyped).as("schema nodes without a type").isEmpty();
  }

  @Test
  void bundledCopyOfTheUpstreamListsIsCurrent() throws IOException {
    assumeTrue(UpstreamSpec.sharedSpecDir().isPresent(), "../shared/spec is absent");
    for (String name : List.of(UpstreamSpec.FIELDS, UpstreamSpec.VALIDATIONS)) {
      assertThat(UpstreamSpec.bundledCopy(name))
          .as("src/test/resources/upstream/" + name)
          .isEqualTo(Files.readString(UpstreamSpec.sharedSpecDir().orElseThrow().resolve(name)));
    }
  }

  private static JsonNode openApiSchema(String kind) {
    return CRDS_BY_KIND.get(kind).path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema");
  }

  /** path -> "type attributes", from the upstream list. */
  private static Map<String, Field> upstreamFields(String kind) {
    Map<String, Field> fields = new TreeMap<>();
    boolean inKind = false;
    for (String line : UpstreamSpec.lines(UpstreamSpec.FIELDS)) {
      if (line.startsWith("# ")) {
        inKind = line.startsWith("# " + kind + " ");
      } else if (inKind && !line.isBlank()) {
        String[] columns = line.split("\t", -1);
        Map<String, String> attributes = new TreeMap<>();
        if (columns.length > 2 && !columns[2].isEmpty()) {
          for (String attribute : ATTRIBUTE_START.split(columns[2])) {
            int eq = attribute.indexOf('=');
            attributes.put(attribute.substring(0, eq), canonical(attribute.substring(0, eq), attribute.substring(eq + 1)));
          }
        }
        fields.put(columns[0], new Field(columns[1], attributes));
      }
    }
    return fields;
  }

  private static Map<String, Field> bundledFields(String kind) {
    Map<String, Field> fields = new TreeMap<>();
    collectFields(openApiSchema(kind), kind, fields);
    return fields;
  }

  private static void collectFields(JsonNode schema, String path, Map<String, Field> fields) {
    String type = schema.path("x-kubernetes-int-or-string").asBoolean()
        ? "int-or-string"
        : schema.path("type").asText() + (schema.has("format") ? "/" + schema.get("format").asText() : "");
    Map<String, String> attributes = new TreeMap<>();
    if (schema.has("enum")) {
      attributes.put("enum", StreamSupport.stream(schema.get("enum").spliterator(), false)
          .map(JsonNode::asText).collect(Collectors.joining("|")));
    }
    if (schema.has("default")) {
      JsonNode value = schema.get("default");
      attributes.put("default", value.isContainerNode() ? value.toString() : value.asText());
    }
    if (schema.has("pattern")) {
      attributes.put("pattern", schema.get("pattern").asText());
    }
    for (String numeric : NUMERIC_ATTRIBUTES) {
      if (schema.has(numeric)) {
        attributes.put(numeric, schema.get(numeric).asText());
      }
    }
    fields.put(path, new Field(type, attributes));
    schema.path("properties").properties().forEach(p -> collectFields(p.getValue(), path + "." + p.getKey(), fields));
    if (schema.path("additionalProperties").isObject()) {
      collectFields(schema.get("additionalProperties"), path + "{}", fields);
    }
    if (schema.has("items")) {
      collectFields(schema.get("items"), path + "[]", fields);
    }
  }

  private static void collectRules(JsonNode schema, String path, List<String> rules) {
    for (JsonNode rule : schema.path("x-kubernetes-validations")) {
      rules.add(path + "\t" + rule.path("message").asText() + "\t" + rule.path("rule").asText());
    }
    schema.path("properties").properties().forEach(p -> collectRules(p.getValue(), path + "." + p.getKey(), rules));
    if (schema.path("additionalProperties").isObject()) {
      collectRules(schema.get("additionalProperties"), path + "{}", rules);
    }
    if (schema.has("items")) {
      collectRules(schema.get("items"), path + "[]", rules);
    }
  }

  private static void collectUntyped(JsonNode schema, String path, List<String> untyped) {
    if (!schema.has("type") && !schema.path("x-kubernetes-int-or-string").asBoolean()) {
      untyped.add(path);
    }
    schema.path("properties").properties().forEach(p -> collectUntyped(p.getValue(), path + "." + p.getKey(), untyped));
    if (schema.path("additionalProperties").isObject()) {
      collectUntyped(schema.get("additionalProperties"), path + "{}", untyped);
    }
    if (schema.has("items")) {
      collectUntyped(schema.get("items"), path + "[]", untyped);
    }
  }

  /** Upstream writes container defaults as Python literals; compare them as JSON. */
  private static String canonical(String attribute, String value) {
    if (!attribute.equals("default") || !(value.startsWith("{") || value.startsWith("["))) {
      return value;
    }
    try {
      return JSON.readTree(value.replace('\'', '"')).toString();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private record Field(String type, Map<String, String> attributes) {
    @Override
    public String toString() {
      return type + " " + attributes;
    }
  }
}
