package sh.karpenter.cli.plan.scenarios;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Kubernetes' own matching rules, written from the API documentation over plain JSON trees so that
 * the plan checker does not share code with the scheduler it checks: node selector requirements,
 * label selectors, taints and tolerations, and pod resource requests.
 */
final class KubeMatching {
  private KubeMatching() {}

  /** One {@code NodeSelectorRequirement} against a node's labels. */
  static boolean nodeRequirementHolds(JsonNode requirement, Map<String, String> labels) {
    String value = labels.get(requirement.path("key").asText());
    JsonNode values = requirement.path("values");
    return switch (requirement.path("operator").asText()) {
      case "In" -> value != null && contains(values, value);
      case "NotIn" -> value == null || !contains(values, value);
      case "Exists" -> value != null;
      case "DoesNotExist" -> value == null;
      case "Gt" -> value != null && isInteger(value) && Long.parseLong(value) > values.path(0).asLong();
      case "Lt" -> value != null && isInteger(value) && Long.parseLong(value) < values.path(0).asLong();
      default -> throw new IllegalArgumentException("unknown operator in " + requirement);
    };
  }

  /** Every requirement of the list holds. */
  static boolean allHold(JsonNode requirements, Map<String, String> labels) {
    for (JsonNode requirement : requirements) {
      if (!nodeRequirementHolds(requirement, labels)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The pod's hard node constraints hold on a node with these labels: {@code nodeSelector} and
   * required node affinity (terms are ORed, a term's expressions ANDed). Only requirements whose key
   * passes {@code keys} are evaluated.
   */
  static boolean podFitsNodeLabels(JsonNode podSpec, Map<String, String> labels, Predicate<String> keys) {
    for (Map.Entry<String, String> selector : ScenarioSnapshot.strings(podSpec.path("nodeSelector")).entrySet()) {
      if (keys.test(selector.getKey()) && !selector.getValue().equals(labels.get(selector.getKey()))) {
        return false;
      }
    }
    JsonNode terms = podSpec.at("/affinity/nodeAffinity/requiredDuringSchedulingIgnoredDuringExecution/nodeSelectorTerms");
    if (terms.isMissingNode() || terms.isEmpty()) {
      return true;
    }
    for (JsonNode term : terms) {
      boolean holds = true;
      for (JsonNode requirement : term.path("matchExpressions")) {
        holds &= !keys.test(requirement.path("key").asText()) || nodeRequirementHolds(requirement, labels);
      }
      if (holds) {
        return true;
      }
    }
    return false;
  }

  static boolean podFitsNodeLabels(JsonNode podSpec, Map<String, String> labels) {
    return podFitsNodeLabels(podSpec, labels, key -> true);
  }

  /** A {@code LabelSelector} against pod labels; a missing selector matches nothing. */
  static boolean selects(JsonNode selector, Map<String, String> labels) {
    if (selector.isMissingNode() || selector.isNull()) {
      return false;
    }
    for (Map.Entry<String, String> match : ScenarioSnapshot.strings(selector.path("matchLabels")).entrySet()) {
      if (!match.getValue().equals(labels.get(match.getKey()))) {
        return false;
      }
    }
    return allHold(selector.path("matchExpressions"), labels);
  }

  /** Whether a taint with effect NoSchedule or NoExecute keeps this pod off (PreferNoSchedule never does). */
  static boolean repels(JsonNode taint, JsonNode podSpec) {
    String effect = taint.path("effect").asText();
    if (effect.equals("PreferNoSchedule")) {
      return false;
    }
    for (JsonNode toleration : podSpec.path("tolerations")) {
      if (tolerates(toleration, taint)) {
        return false;
      }
    }
    return true;
  }

  /** Whether any taint of the list repels the pod. */
  static boolean anyRepels(JsonNode taints, JsonNode podSpec) {
    for (JsonNode taint : taints) {
      if (repels(taint, podSpec)) {
        return true;
      }
    }
    return false;
  }

  private static boolean tolerates(JsonNode toleration, JsonNode taint) {
    String effect = toleration.path("effect").asText("");
    if (!effect.isEmpty() && !effect.equals(taint.path("effect").asText())) {
      return false;
    }
    String key = toleration.path("key").asText("");
    if (toleration.path("operator").asText("Equal").equals("Exists")) {
      return key.isEmpty() || key.equals(taint.path("key").asText());
    }
    return key.equals(taint.path("key").asText()) && toleration.path("value").asText("").equals(taint.path("value").asText(""));
  }

  /**
   * What the pod asks the scheduler for: the larger of its containers' summed requests and any one
   * init container's, plus pod overhead and one {@code pods} slot. A limit without a request counts
   * as the request, as the API server defaults it.
   */
  static Map<String, BigDecimal> requests(JsonNode podSpec) {
    Map<String, BigDecimal> total = new TreeMap<>();
    for (JsonNode container : podSpec.path("containers")) {
      containerRequests(container).forEach((name, amount) -> total.merge(name, amount, BigDecimal::add));
    }
    for (JsonNode init : podSpec.path("initContainers")) {
      containerRequests(init).forEach((name, amount) -> total.merge(name, amount, BigDecimal::max));
    }
    quantities(podSpec.path("overhead")).forEach((name, amount) -> total.merge(name, amount, BigDecimal::add));
    total.merge("pods", BigDecimal.ONE, BigDecimal::add);
    return total;
  }

  private static Map<String, BigDecimal> containerRequests(JsonNode container) {
    Map<String, BigDecimal> requests = quantities(container.at("/resources/limits"));
    requests.putAll(quantities(container.at("/resources/requests")));
    return requests;
  }

  /** A resource list ({@code {cpu: 500m, memory: 1Gi}}) as numbers in base units. */
  static Map<String, BigDecimal> quantities(JsonNode resourceList) {
    Map<String, BigDecimal> values = new TreeMap<>();
    resourceList.fields().forEachRemaining(e -> values.put(e.getKey(), amount(e.getValue().asText())));
    return values;
  }

  static BigDecimal amount(String quantity) {
    return new Quantity(quantity).getNumericalAmount();
  }

  private static boolean contains(JsonNode values, String value) {
    for (JsonNode v : values) {
      if (v.asText().equals(value)) {
        return true;
      }
    }
    return false;
  }

  private static boolean isInteger(String value) {
    return value.matches("-?[0-9]+");
  }
}
