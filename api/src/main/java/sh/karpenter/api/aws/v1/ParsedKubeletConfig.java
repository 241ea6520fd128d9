package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.IntOrString;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.core.resources.Quantity;

/**
 * The kubelet fields Karpenter reads itself, for scheduling and for the node's bootstrap (upstream's
 * {@code ParsedKubeletConfig}); every other field of {@link KubeletConfiguration} passes through.
 * {@code maxPods} is an integer or, behind the NodeClassCEL feature gate, an expression evaluated per
 * instance type; {@code kubeReserved} and {@code systemReserved} values are quantities or such
 * expressions. Absent fields are null (maps and lists empty).
 */
public record ParsedKubeletConfig(
    List<String> clusterDNS,
    IntOrString maxPods,
    Integer podsPerCore,
    Map<String, String> systemReserved,
    Map<String, String> kubeReserved,
    Map<String, String> evictionHard,
    Map<String, String> evictionSoft,
    Map<String, GoDuration> evictionSoftGracePeriod,
    Integer evictionMaxPodGracePeriod,
    Integer imageGCHighThresholdPercent,
    Integer imageGCLowThresholdPercent,
    Boolean cpuCFSQuota) {

  /** The JSON names of the fields above. */
  public static final Set<String> FIELDS = KubeletSchema.PARSED.fields().keySet();

  static ParsedKubeletConfig parse(Map<String, JsonNode> fields) {
    KubeletSchema.Decoded decoded = KubeletSchema.decode(fields, KubeletSchema.PARSED, false);
    if (decoded.typeError != null) {
      throw new IllegalArgumentException("spec.kubelet." + decoded.typeErrorPath + ": " + decoded.typeError);
    }
    return new ParsedKubeletConfig(
        strings(fields.get("clusterDNS")),
        intOrString(fields.get("maxPods")),
        integer(fields.get("podsPerCore")),
        stringMap(fields.get("systemReserved")),
        stringMap(fields.get("kubeReserved")),
        stringMap(fields.get("evictionHard")),
        stringMap(fields.get("evictionSoft")),
        durationMap(fields.get("evictionSoftGracePeriod")),
        integer(fields.get("evictionMaxPodGracePeriod")),
        integer(fields.get("imageGCHighThresholdPercent")),
        integer(fields.get("imageGCLowThresholdPercent")),
        present(fields.get("cpuCFSQuota")) ? fields.get("cpuCFSQuota").booleanValue() : null);
  }

  /** {@code maxPods} as a count, empty when unset or an expression (upstream's {@code MaxPodsValue}). */
  public Optional<Integer> maxPodsValue() {
    return maxPods == null || maxPods.getIntVal() == null ? Optional.empty() : Optional.of(maxPods.getIntVal());
  }

  /** True when {@code maxPods}, {@code kubeReserved} or {@code systemReserved} holds an expression. */
  public boolean hasExpressions() {
    return (maxPods != null && maxPods.getStrVal() != null) || hasResourceExpressions();
  }

  /** True when a {@code kubeReserved} or {@code systemReserved} value is not a quantity, so an expression. */
  public boolean hasResourceExpressions() {
    for (Map<String, String> reserved : List.of(kubeReserved, systemReserved)) {
      for (String value : reserved.values()) {
        try {
          Quantity.parseMilli(value);
        } catch (IllegalArgumentException e) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean present(JsonNode value) {
    return value != null && !value.isNull();
  }

  private static List<String> strings(JsonNode value) {
    List<String> out = new ArrayList<>();
    if (present(value)) {
      value.forEach(item -> out.add(item.isNull() ? "" : item.asText()));
    }
    return List.copyOf(out);
  }

  private static IntOrString intOrString(JsonNode value) {
    if (!present(value)) {
      return null;
    }
    return value.isTextual() ? new IntOrString(value.asText()) : new IntOrString(value.intValue());
  }

  private static Integer integer(JsonNode value) {
    return present(value) ? value.intValue() : null;
  }

  private static Map<String, String> stringMap(JsonNode value) {
    Map<String, String> out = new LinkedHashMap<>();
    if (present(value)) {
      value.properties().forEach(e -> out.put(e.getKey(), e.getValue().isNull() ? "" : e.getValue().asText()));
    }
    return java.util.Collections.unmodifiableMap(out);
  }

  private static Map<String, GoDuration> durationMap(JsonNode value) {
    Map<String, GoDuration> out = new LinkedHashMap<>();
    if (present(value)) {
      value.properties().forEach(e -> {
        if (!e.getValue().isNull()) {
          out.put(e.getKey(), GoDuration.parse(e.getValue().asText()));
        }
      });
    }
    return java.util.Collections.unmodifiableMap(out);
  }
}
