package sh.karpenter.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.api.validation.Manifests;

/**
 * The bundled CRDs have upstream's structure (Karpenter's, and its AWS provider's for EC2NodeClass): their
 * {@link CrdFingerprint}s equal the committed fingerprints of upstream's CRDs ({@link UpstreamCrdFingerprints})
 * line for line, so any difference in a
 * type, format, enum, default, required list, pattern, bound, list or map type, CEL rule, printer
 * column, subresource, scope or name fails here. Only descriptions are the project's own.
 */
class CrdParityTest {
  private static final Map<String, JsonNode> CRDS_BY_KIND = new LinkedHashMap<>();

  static {
    for (String resource : Crds.ALL) {
      JsonNode crd = Manifests.read(Crds.yaml(resource), resource).getFirst().tree();
      CRDS_BY_KIND.put(crd.path("spec").path("names").path("kind").asText(), crd);
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"NodePool", "NodeClaim", "KWOKNodeClass", "EC2NodeClass"})
  void structureMatchesUpstream(String kind) {
    List<String> upstream = UpstreamCrdFingerprints.lines().stream().filter(l -> l.startsWith(kind + "\t")).toList();
    assertThat(upstream).as("upstream fingerprint of " + kind).isNotEmpty();
    List<String> bundled = CrdFingerprint.of(CRDS_BY_KIND.get(kind));
    assertThat(difference(upstream, bundled)).as(kind + " differs from upstream (- upstream, + bundled)").isEmpty();
    assertThat(bundled).isEqualTo(upstream);
  }

  @Test
  void everyBundledCrdHasAnUpstreamFingerprint() {
    Set<String> kinds = new HashSet<>();
    UpstreamCrdFingerprints.lines().forEach(line -> kinds.add(line.substring(0, line.indexOf('\t'))));
    assertThat(kinds).isEqualTo(CRDS_BY_KIND.keySet());
  }

  @ParameterizedTest
  @ValueSource(strings = {"NodePool", "NodeClaim", "KWOKNodeClass", "EC2NodeClass"})
  void schemasAreStructural(String kind) {
    List<String> untyped = new ArrayList<>();
    collectUntyped(CRDS_BY_KIND.get(kind).path("spec").path("versions").get(0).path("schema").path("openAPIV3Schema"),
        kind, untyped);
    assertThat(untyped).as("schema nodes without a type").isEmpty();
  }

  /** The lines only upstream has ("- ") and the lines only the bundled CRD has ("+ "), each in its order. */
  static String difference(List<String> upstream, List<String> bundled) {
    Set<String> inUpstream = new HashSet<>(upstream);
    Set<String> inBundled = new HashSet<>(bundled);
    StringBuilder out = new StringBuilder();
    upstream.stream().filter(l -> !inBundled.contains(l)).forEach(l -> out.append("\n- ").append(l));
    bundled.stream().filter(l -> !inUpstream.contains(l)).forEach(l -> out.append("\n+ ").append(l));
    return out.toString();
  }

  private static void collectUntyped(JsonNode schema, String path, List<String> untyped) {
    if (!schema.has("type") && !schema.path("x-kubernetes-int-or-string").asBoolean()
        && !schema.path("x-kubernetes-preserve-unknown-fields").asBoolean()) {
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
}
