package sh.karpenter.api.aws.v1;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.NullNode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;

/**
 * {@code spec.kubelet}: the kubelet configuration of the nodes, an open map of
 * kubelet.config.k8s.io/v1beta1 KubeletConfiguration fields (upstream's
 * {@code map[string]apiextensionsv1.JSON}). The API server stores it unchecked
 * ({@code x-kubernetes-preserve-unknown-fields}); {@link #validate()} is the check upstream's
 * validation controller runs, reported as {@code ValidationSucceeded=False}. Karpenter reads the
 * fields of {@link ParsedKubeletConfig} itself; the others pass through to the node unchanged where
 * the AMI family supports it.
 *
 * <p>Immutable; equal when the fields and their JSON values are equal.
 */
public final class KubeletConfiguration {
  private static final JsonMapper JSON = JsonMapper.builder().enable(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS).build();

  private final Map<String, JsonNode> fields;

  /** A configuration of these fields (JSON null values are kept as null nodes). */
  @JsonCreator(mode = JsonCreator.Mode.DELEGATING)
  public KubeletConfiguration(Map<String, JsonNode> fields) {
    Map<String, JsonNode> copy = new LinkedHashMap<>();
    if (fields != null) {
      fields.forEach((name, value) -> copy.put(Objects.requireNonNull(name, "field name"), value == null ? NullNode.getInstance() : value.deepCopy()));
    }
    this.fields = Collections.unmodifiableMap(copy);
  }

  /** A configuration from plain values ({@code Map.of("maxPods", 110, "kubeReserved", Map.of("cpu", "200m"))}). */
  public static KubeletConfiguration of(Map<String, ?> values) {
    Map<String, JsonNode> fields = new LinkedHashMap<>();
    values.forEach((name, value) -> fields.put(name, JSON.valueToTree(value)));
    return new KubeletConfiguration(fields);
  }

  /** The fields as written, in their original order. */
  @JsonValue
  public Map<String, JsonNode> fields() {
    return fields;
  }

  public boolean isEmpty() {
    return fields.isEmpty();
  }

  /**
   * The configuration as compact JSON with keys sorted at every level, {@code null} when empty
   * (upstream's {@code KubeletConfiguration.String()}, which the drift hash uses).
   */
  public String canonicalJson() {
    if (fields.isEmpty()) {
      return "null";
    }
    try {
      return JSON.writeValueAsString(JSON.treeToValue(JSON.valueToTree(new TreeMap<>(fields)), Object.class));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("a JSON tree always serialises", e);
    }
  }

  /**
   * Every problem upstream's {@code ValidateKubeletConfig} reports, empty when valid. See
   * {@link KubeletConfigurationValidation}.
   */
  public List<Violation> validate() {
    return KubeletConfigurationValidation.validate(fields);
  }

  /**
   * The fields Karpenter reads, decoded (upstream's {@code ParseKubeletConfig}).
   *
   * @throws IllegalArgumentException naming the field when one of them has the wrong type
   */
  public ParsedKubeletConfig parse() {
    return ParsedKubeletConfig.parse(fields);
  }

  /** The fields Karpenter does not read itself, sorted (upstream's {@code UnmanagedKubeletFields}). */
  public List<String> unmanagedFields() {
    List<String> unmanaged = new ArrayList<>();
    for (String name : new TreeMap<>(fields).keySet()) {
      if (!ParsedKubeletConfig.FIELDS.contains(name)) {
        unmanaged.add(name);
      }
    }
    return unmanaged;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof KubeletConfiguration that && fields.equals(that.fields);
  }

  @Override
  public int hashCode() {
    return fields.hashCode();
  }

  @Override
  public String toString() {
    return canonicalJson();
  }

  /**
   * One problem of a configuration.
   *
   * @param field the field path, {@code spec.kubelet.evictionHard[memory.available]}
   * @param message what is wrong with it
   */
  public record Violation(String field, String message) {
    /** Upstream's error text: {@code <field>: <message>}. */
    @Override
    public String toString() {
      return field + ": " + message;
    }
  }
}
