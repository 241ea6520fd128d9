package sh.karpenter.api.validation;

import static sh.karpenter.api.validation.ErrorCollector.field;
import static sh.karpenter.api.validation.ErrorCollector.index;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.api.aws.v1.KubeletConfiguration;

/**
 * Upstream's runtime validation of NodePools and NodeClaims (nodepool_validation.go,
 * nodeclaim_validation.go: it sets the {@code ValidationSucceeded} condition), and of an EC2NodeClass's
 * kubelet configuration (the AWS provider's), for the rules the CRD
 * schema does not already enforce: label keys and requirement keys are qualified names, requirement
 * values are label values, taint keys and values are qualified names, and no (key, effect) pair repeats
 * across {@code taints} and {@code startupTaints}. A rule whose field already has a schema or CEL error
 * is not reported twice. A field of the wrong type (a map where a list belongs, ...) is the schema's
 * error to report; these checks skip it.
 */
final class RuntimeChecks {
  private RuntimeChecks() {}

  /** Checks {@code spec.template} of a NodePool. */
  static void nodePool(JsonNode nodePool, ErrorCollector errors) {
    JsonNode template = nodePool.path("spec").path("template");
    labels(template.path("metadata").path("labels"), "spec.template.metadata.labels", errors);
    nodeClaimSpec(template.path("spec"), "spec.template.spec", errors);
  }

  /** Checks {@code spec} of a NodeClaim. */
  static void nodeClaim(JsonNode nodeClaim, ErrorCollector errors) {
    nodeClaimSpec(nodeClaim.path("spec"), "spec", errors);
  }

  /**
   * Checks {@code spec.kubelet} of an EC2NodeClass, which the API server stores unchecked: upstream's
   * validation controller ({@code ValidateKubeletConfig}) sets {@code ValidationSucceeded} False with
   * reason InvalidKubeletConfiguration for these, and no node launches.
   */
  static void ec2NodeClass(JsonNode nodeClass, ErrorCollector errors) {
    JsonNode kubelet = nodeClass.path("spec").path("kubelet");
    if (!kubelet.isObject()) {
      return;
    }
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    kubelet.properties().forEach(e -> fields.put(e.getKey(), e.getValue()));
    for (KubeletConfiguration.Violation violation : new KubeletConfiguration(fields).validate()) {
      errors.add(violation.field(), violation.message());
    }
  }

  private static void nodeClaimSpec(JsonNode spec, String path, ErrorCollector errors) {
    requirements(spec.path("requirements"), field(path, "requirements"), errors);
    Set<String> keyEffects = new HashSet<>();
    taints(spec.path("taints"), field(path, "taints"), keyEffects, errors);
    taints(spec.path("startupTaints"), field(path, "startupTaints"), keyEffects, errors);
  }

  private static void labels(JsonNode labels, String path, ErrorCollector errors) {
    for (Map.Entry<String, JsonNode> label : labels.properties()) {
      qualifiedName(label.getKey(), field(path, label.getKey()), "label key", errors);
    }
  }

  private static void requirements(JsonNode requirements, String path, ErrorCollector errors) {
    for (int i = 0; requirements.isArray() && i < requirements.size(); i++) {
      JsonNode requirement = requirements.get(i);
      String requirementPath = index(path, i);
      if (requirement.path("key").isTextual()) {
        qualifiedName(requirement.get("key").asText(), field(requirementPath, "key"), "key", errors);
      }
      JsonNode values = requirement.path("values");
      for (int j = 0; values.isArray() && j < values.size(); j++) {
        if (values.get(j).isTextual()) {
          String value = values.get(j).asText();
          for (String problem : LabelSyntax.labelValueErrors(value)) {
            errors.addUnlessReported(index(field(requirementPath, "values"), j), "Invalid value: \"" + value + "\": " + problem);
          }
        }
      }
    }
  }

  private static void taints(JsonNode taints, String path, Set<String> keyEffects, ErrorCollector errors) {
    for (int i = 0; taints.isArray() && i < taints.size(); i++) {
      JsonNode taint = taints.get(i);
      String taintPath = index(path, i);
      String key = taint.path("key").asText();
      String effect = taint.path("effect").asText();
      if (!key.isEmpty()) {
        qualifiedName(key, field(taintPath, "key"), "taint key", errors);
      }
      if (!taint.path("value").asText().isEmpty()) {
        qualifiedName(taint.get("value").asText(), field(taintPath, "value"), "taint value", errors);
      }
      if (!keyEffects.add(key + "=" + effect)) {
        errors.add(taintPath, "duplicate taint Key/Effect pair " + key + "=" + effect);
      }
    }
  }

  private static void qualifiedName(String name, String path, String what, ErrorCollector errors) {
    List<String> problems = LabelSyntax.qualifiedNameErrors(name);
    for (String problem : problems) {
      errors.addUnlessReported(path, "Invalid value: \"" + name + "\": " + what + " is not a qualified name: " + problem);
    }
  }
}
