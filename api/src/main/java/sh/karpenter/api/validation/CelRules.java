package sh.karpenter.api.validation;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.LongPredicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import sh.karpenter.core.wellknown.Labels;

/**
 * Java evaluations of the CEL {@code x-kubernetes-validations} rules in Karpenter's CRDs (the
 * EC2NodeClass's are in {@link Ec2NodeClassCelRules}), keyed by the
 * exact rule text so that the CRD YAML stays the single source of the rules: loading a CRD fails when
 * one of its rules has no evaluation here. Each evaluation follows CEL's semantics for the shapes the
 * schema allows: a missing field read is an evaluation error, and {@code all()} is false when any element
 * is false even if another errs.
 *
 * <p>Transition rules (those reading {@code oldSelf}) compare an update with the stored object; an
 * offline manifest has no stored object, so they are not evaluated.
 */
final class CelRules {

  /** The value of a rule: true, false, or an evaluation error (reported with the rule's message). */
  record Outcome(boolean holds, String error) {
    static final Outcome TRUE = new Outcome(true, null);
    static final Outcome FALSE = new Outcome(false, null);

    static Outcome of(boolean holds) {
      return holds ? TRUE : FALSE;
    }

    static Outcome error(String error) {
      return new Outcome(false, error);
    }
  }

  private static final Pattern LABEL_DOMAIN = Pattern.compile("^([^/]+)");
  private static final Set<String> NUMERIC_OPERATORS = Set.of("Gt", "Lt", "Gte", "Lte");

  private static final Map<String, Function<JsonNode, Outcome>> RULES =
      Map.ofEntries(
          Map.entry(
              "!has(self.replicas) || (!has(self.limits) || size(self.limits) == 0 || (size(self.limits) == 1 && 'nodes' in self.limits))",
              self ->
                  Outcome.of(
                      !self.has("replicas")
                          || !self.has("limits")
                          || self.get("limits").size() == 0
                          || (self.get("limits").size() == 1 && self.get("limits").has("nodes")))),
          Map.entry(
              "!has(self.replicas) || !has(self.weight)",
              self -> Outcome.of(!self.has("replicas") || !self.has("weight"))),
          Map.entry(
              "self.all(x, has(x.schedule) == has(x.duration))",
              self -> all(self.elements(), x -> Outcome.of(x.has("schedule") == x.has("duration")))),
          Map.entry(
              "self.all(x, x in [\"karpenter.sh/capacity-type\", \"karpenter.sh/nodepool\"] || !x.find(\"^([^/]+)\").endsWith(\"karpenter.sh\"))",
              self -> all(keys(self), key -> Outcome.of(!inRestrictedDomain(key.asText())))),
          Map.entry(
              "self.all(x, x != \"karpenter.sh/nodepool\")",
              self -> all(keys(self), key -> Outcome.of(!key.asText().equals(Labels.NODE_POOL)))),
          Map.entry(
              "self.all(x, x != \"kubernetes.io/hostname\")",
              self -> all(keys(self), key -> Outcome.of(!key.asText().equals(Labels.HOSTNAME)))),
          Map.entry("self != ''", self -> Outcome.of(!self.asText().isEmpty())),
          Map.entry(
              "self.all(x, x.operator == 'In' ? x.values.size() != 0 : true)",
              self ->
                  all(
                      self.elements(),
                      x -> isOperator(x, "In") ? valuesSize(x).map(size -> size != 0) : Outcome.TRUE)),
          Map.entry(
              "self.all(x, (x.operator == 'Gt' || x.operator == 'Lt' || x.operator == 'Gte' || x.operator == 'Lte') ? (x.values.size() == 1 && int(x.values[0]) >= 0) : true)",
              self -> all(self.elements(), CelRules::singleNonNegativeInteger)),
          Map.entry(
              "self.all(x, (x.operator == 'In' && has(x.minValues)) ? x.values.size() >= x.minValues : true)",
              self ->
                  all(
                      self.elements(),
                      x ->
                          isOperator(x, "In") && x.has("minValues")
                              ? valuesSize(x).map(size -> size >= x.get("minValues").asLong())
                              : Outcome.TRUE)),
          Map.entry(
              "self in [\"karpenter.sh/capacity-type\", \"karpenter.sh/nodepool\"] || !self.find(\"^([^/]+)\").endsWith(\"karpenter.sh\")",
              self -> Outcome.of(!inRestrictedDomain(self.asText()))),
          Map.entry(
              "self != \"karpenter.sh/nodepool\"", self -> Outcome.of(!self.asText().equals(Labels.NODE_POOL))),
          Map.entry(
              "self != \"kubernetes.io/hostname\"", self -> Outcome.of(!self.asText().equals(Labels.HOSTNAME))));

  private CelRules() {}

  /** The evaluation of {@code rule}, or empty when it is not one Karpenter's CRDs use. */
  static Optional<Function<JsonNode, Outcome>> evaluation(String rule) {
    Function<JsonNode, Outcome> evaluation = RULES.get(rule);
    return evaluation != null ? Optional.of(evaluation) : Optional.ofNullable(Ec2NodeClassCelRules.RULES.get(rule));
  }

  /** True for rules that compare with the stored object ({@code oldSelf}); they need no evaluation offline. */
  static boolean isTransitionRule(String rule) {
    return rule.contains("oldSelf");
  }

  /** The CEL label-domain rule: a key whose domain (text before the first '/') ends in karpenter.sh, bar the exceptions. */
  private static boolean inRestrictedDomain(String key) {
    if (Labels.KARPENTER_DOMAIN_EXCEPTIONS.contains(key)) {
      return false;
    }
    Matcher domain = LABEL_DOMAIN.matcher(key);
    return domain.find() && domain.group(1).endsWith(Labels.GROUP);
  }

  private static Outcome singleNonNegativeInteger(JsonNode requirement) {
    if (!NUMERIC_OPERATORS.contains(requirement.path("operator").asText())) {
      return requirement.has("operator") ? Outcome.TRUE : noSuchKey("operator");
    }
    JsonNode values = requirement.get("values");
    if (values == null) {
      return noSuchKey("values");
    }
    if (values.size() != 1) {
      return Outcome.FALSE;
    }
    String value = values.get(0).asText();
    try {
      return Outcome.of(Long.parseLong(value) >= 0);
    } catch (NumberFormatException e) {
      return Outcome.error("type conversion error from 'string' to 'int'");
    }
  }

  private static boolean isOperator(JsonNode requirement, String operator) {
    return operator.equals(requirement.path("operator").asText());
  }

  /** {@code x.values.size()}, or the CEL error for a missing {@code values}. */
  private static SizeRead valuesSize(JsonNode requirement) {
    JsonNode values = requirement.get("values");
    return values == null ? new SizeRead(-1, "no such key: values") : new SizeRead(values.size(), null);
  }

  /** The result of reading {@code x.values.size()}: a size, or the evaluation error of a missing field. */
  private record SizeRead(long size, String error) {
    Outcome map(LongPredicate test) {
      return error != null ? Outcome.error(error) : Outcome.of(test.test(size));
    }
  }

  private static Outcome noSuchKey(String key) {
    return Outcome.error("no such key: " + key);
  }

  /** CEL's {@code all()} macro: false if any element is false, else an error if any errs, else true. */
  static Outcome all(Iterator<JsonNode> elements, Function<JsonNode, Outcome> predicate) {
    Outcome firstError = null;
    while (elements.hasNext()) {
      Outcome outcome = predicate.apply(elements.next());
      if (outcome.error() == null && !outcome.holds()) {
        return Outcome.FALSE;
      }
      if (outcome.error() != null && firstError == null) {
        firstError = outcome;
      }
    }
    return firstError != null ? firstError : Outcome.TRUE;
  }

  /** The keys of a map, as CEL's {@code all()} iterates them. */
  static Iterator<JsonNode> keys(JsonNode map) {
    List<JsonNode> keys = new ArrayList<>();
    map.fieldNames().forEachRemaining(name -> keys.add(TextNode.valueOf(name)));
    return keys.iterator();
  }
}
