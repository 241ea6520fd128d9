package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.IntNode;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import sh.karpenter.api.aws.v1.KubeletConfiguration.Violation;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.core.resources.Quantity;

/**
 * Upstream's {@code ValidateKubeletConfig} (kubeletconfiguration_validation.go): {@code spec.kubelet}
 * is an open map the API server does not check, so the AWS provider's validation controller does,
 * and a problem turns {@code ValidationSucceeded} False (reason
 * {@link EC2NodeClassConditions#REASON_INVALID_KUBELET_CONFIGURATION}), which keeps nodes from
 * launching. Two parts, both always run:
 *
 * <ol>
 *   <li>the shape, against the kubelet's own type ({@link KubeletSchema}): a field of the wrong type
 *       is reported alone (the decode stops there), otherwise every unknown field, at any depth. A
 *       string {@code maxPods} (an expression) is checked as an integer placeholder;
 *   <li>the rules the type cannot express: {@code registerWithTaints} is Karpenter's to set; eviction
 *       maps are keyed by eviction signals and hold percentages or non-negative quantities (grace
 *       periods: non-negative durations); {@code evictionSoft} and {@code evictionSoftGracePeriod} have
 *       the same keys; {@code kubeReserved} and {@code systemReserved} reserve only cpu, memory,
 *       ephemeral-storage and pid, never negative; the image GC percentages are 0..100 with high above
 *       low; {@code podsPerCore}, {@code evictionMaxPodGracePeriod} and an integer {@code maxPods} are
 *       not negative.
 * </ol>
 *
 * The messages are upstream's.
 */
final class KubeletConfigurationValidation {
  private KubeletConfigurationValidation() {}

  /** The signals that may key an eviction map; the kubelet ignores any other key. */
  static final List<String> EVICTION_SIGNALS =
      List.of("memory.available", "nodefs.available", "nodefs.inodesFree", "imagefs.available", "imagefs.inodesFree", "pid.available");

  /** The resources the kubelet can reserve. */
  static final List<String> RESERVED_RESOURCES = List.of("cpu", "memory", "ephemeral-storage", "pid");

  /** Fields Karpenter sets itself, with the reason. */
  static final Map<String, String> KARPENTER_OWNED_FIELDS =
      Map.of("registerWithTaints", "Karpenter sets it from the NodeClaim's taints so the node registers unschedulable until it's ready");

  private static final List<String> EVICTION_MAPS = List.of("evictionHard", "evictionSoft", "evictionSoftGracePeriod", "evictionMinimumReclaim");
  private static final Pattern GO_FLOAT = Pattern.compile("^[+-]?(\\d+(\\.\\d*)?|\\.\\d+)([eE][+-]?\\d+)?$");

  static List<Violation> validate(Map<String, JsonNode> kubelet) {
    if (kubelet.isEmpty()) {
      return List.of();
    }
    List<Violation> violations = new ArrayList<>(againstKubeletType(kubelet));
    violations.addAll(semantics(kubelet));
    return violations;
  }

  private static List<Violation> againstKubeletType(Map<String, JsonNode> kubelet) {
    Map<String, JsonNode> fields = kubelet;
    if (kubelet.containsKey("maxPods") && isJsonString(kubelet.get("maxPods"))) {
      fields = new LinkedHashMap<>(kubelet);
      fields.put("maxPods", IntNode.valueOf(0));
    }
    KubeletSchema.Decoded decoded = KubeletSchema.decode(fields, KubeletSchema.KUBELET_CONFIGURATION, true);
    if (decoded.typeError != null) {
      return List.of(new Violation("spec.kubelet." + decoded.typeErrorPath, decoded.typeError));
    }
    return decoded.unknownFields.stream().map(name -> new Violation("spec.kubelet", "unknown field \"" + name + "\"")).toList();
  }

  private static List<Violation> semantics(Map<String, JsonNode> kubelet) {
    List<Violation> violations = new ArrayList<>();
    new TreeMap<>(KARPENTER_OWNED_FIELDS).forEach((field, reason) -> {
      if (kubelet.containsKey(field)) {
        violations.add(new Violation("spec.kubelet." + field, "can't be set, " + reason));
      }
    });

    for (String field : EVICTION_MAPS) {
      Optional<Map<String, String>> signals = stringMap(kubelet, field);
      if (signals.isEmpty()) {
        continue;
      }
      signals.get().forEach((key, value) -> {
        if (!EVICTION_SIGNALS.contains(key)) {
          violations.add(new Violation("spec.kubelet." + field,
              quote(key) + " isn't a valid eviction signal, must be one of " + String.join(", ", EVICTION_SIGNALS)));
        }
        String entry = "spec.kubelet." + field + "[" + key + "]";
        String problem = field.equals("evictionSoftGracePeriod") ? gracePeriodProblem(value) : thresholdProblem(value);
        if (problem != null) {
          violations.add(new Violation(entry, problem));
        }
      });
    }

    Map<String, String> soft = stringMap(kubelet, "evictionSoft").orElse(Map.of());
    Map<String, String> grace = stringMap(kubelet, "evictionSoftGracePeriod").orElse(Map.of());
    for (String signal : new TreeMap<>(soft).keySet()) {
      if (!grace.containsKey(signal)) {
        violations.add(new Violation("spec.kubelet.evictionSoft[" + signal + "]", "has no matching evictionSoftGracePeriod"));
      }
    }
    for (String signal : new TreeMap<>(grace).keySet()) {
      if (!soft.containsKey(signal)) {
        violations.add(new Violation("spec.kubelet.evictionSoftGracePeriod[" + signal + "]", "has no matching evictionSoft"));
      }
    }

    for (String field : List.of("kubeReserved", "systemReserved")) {
      stringMap(kubelet, field).ifPresent(reserved -> reserved.forEach((key, value) -> {
        if (!RESERVED_RESOURCES.contains(key)) {
          violations.add(new Violation("spec.kubelet." + field,
              quote(key) + " isn't a reservable resource, must be one of " + String.join(", ", RESERVED_RESOURCES)));
        }
        if (value.startsWith("-")) {
          violations.add(new Violation("spec.kubelet." + field + "[" + key + "]", quote(value) + " can't be a negative resource quantity"));
        }
      }));
    }

    for (String field : List.of("imageGCHighThresholdPercent", "imageGCLowThresholdPercent")) {
      integer(kubelet, field).filter(value -> value < 0 || value > 100)
          .ifPresent(value -> violations.add(new Violation("spec.kubelet." + field, value + " must be between 0 and 100")));
    }
    for (String field : List.of("podsPerCore", "evictionMaxPodGracePeriod")) {
      integer(kubelet, field).filter(value -> value < 0)
          .ifPresent(value -> violations.add(new Violation("spec.kubelet." + field, value + " can't be negative")));
    }
    if (kubelet.containsKey("maxPods") && !isJsonString(kubelet.get("maxPods"))) {
      integer(kubelet, "maxPods").filter(value -> value < 0)
          .ifPresent(value -> violations.add(new Violation("spec.kubelet.maxPods", value + " can't be negative")));
    }

    Optional<Long> high = integer(kubelet, "imageGCHighThresholdPercent");
    Optional<Long> low = integer(kubelet, "imageGCLowThresholdPercent");
    if (high.isPresent() && low.isPresent() && high.get() <= low.get()) {
      violations.add(new Violation("spec.kubelet",
          "imageGCHighThresholdPercent (" + high.get() + ") must be greater than imageGCLowThresholdPercent (" + low.get() + ")"));
    }
    return violations;
  }

  /** A percentage in [0, 100] or a non-negative quantity; null when valid. */
  private static String thresholdProblem(String value) {
    if (value.endsWith("%")) {
      String number = value.substring(0, value.length() - 1);
      if (number.equalsIgnoreCase("nan") || number.equalsIgnoreCase("+nan") || number.equalsIgnoreCase("-nan")) {
        return null; // Go's ParseFloat reads NaN, which no range check rejects
      }
      if (!GO_FLOAT.matcher(number).matches()) {
        return quote(value) + " must be a percentage or a resource quantity";
      }
      double percent = Double.parseDouble(number);
      return percent < 0 || percent > 100 ? quote(value) + " must be a percentage or a resource quantity" : null;
    }
    long milli;
    try {
      milli = Quantity.parseMilli(value);
    } catch (IllegalArgumentException e) {
      return quote(value) + " must be a percentage or a resource quantity";
    }
    return milli < 0 ? quote(value) + " can't be a negative resource quantity" : null;
  }

  /** A non-negative Go duration; null when valid. */
  private static String gracePeriodProblem(String value) {
    Duration duration;
    try {
      duration = GoDuration.parse(value).duration();
    } catch (IllegalArgumentException | ArithmeticException e) {
      return quote(value) + " must be a duration";
    }
    return duration.isNegative() ? quote(value) + " can't be a negative duration" : null;
  }

  /**
   * A field that decodes as a {@code map[string]string}, keys sorted; empty when absent or of another
   * shape (the type check reports that). JSON null decodes as an empty map, as in Go.
   */
  private static Optional<Map<String, String>> stringMap(Map<String, JsonNode> kubelet, String field) {
    JsonNode value = kubelet.get(field);
    if (value == null) {
      return Optional.empty();
    }
    Map<String, String> out = new TreeMap<>();
    if (value.isNull()) {
      return Optional.of(out);
    }
    if (!value.isObject()) {
      return Optional.empty();
    }
    for (Map.Entry<String, JsonNode> entry : value.properties()) {
      if (entry.getValue().isTextual()) {
        out.put(entry.getKey(), entry.getValue().asText());
      } else if (!entry.getValue().isNull()) {
        return Optional.empty();
      } else {
        out.put(entry.getKey(), "");
      }
    }
    return Optional.of(out);
  }

  /** A field that decodes as an {@code int64}; JSON null decodes as 0, as in Go. */
  private static Optional<Long> integer(Map<String, JsonNode> kubelet, String field) {
    JsonNode value = kubelet.get(field);
    if (value == null) {
      return Optional.empty();
    }
    if (value.isNull()) {
      return Optional.of(0L);
    }
    if (!value.isIntegralNumber() || value.bigIntegerValue().bitLength() >= Long.SIZE) {
      return Optional.empty();
    }
    return Optional.of(value.bigIntegerValue().longValue());
  }

  /** Whether a value decodes as a Go string (JSON null does). */
  private static boolean isJsonString(JsonNode value) {
    return value.isTextual() || value.isNull();
  }

  /** Go's {@code %q} of a string. */
  private static String quote(String text) {
    return "\"" + text.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }
}
