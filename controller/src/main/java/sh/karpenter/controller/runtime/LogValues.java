package sh.karpenter.controller.runtime;

import java.util.Map;

/**
 * Values of structured log fields in upstream's shape. Controllers log with SLF4J key-value pairs
 * ({@code LOG.atInfo().addKeyValue("NodeClaim", LogValues.ref(name))...}) so that the controller's
 * encoder writes each key as a field of the line (docs/behaviour/observability.md#logs); the keys are upstream's
 * ({@code NodeClaim}, {@code NodePool}, {@code Node}, {@code Pod}, {@code provider-id}, ...).
 */
public final class LogValues {
  private LogValues() {}

  /** A cluster-scoped object as upstream's {@code klog.KObj} renders it: {@code {"name": ...}}. */
  public static Map<String, String> ref(String name) {
    return Map.of("name", name == null ? "" : name);
  }

  /** A namespaced object: {@code {"name": ..., "namespace": ...}}. */
  public static Map<String, String> ref(String namespace, String name) {
    return namespace == null || namespace.isEmpty()
        ? ref(name)
        : new java.util.TreeMap<>(Map.of("name", name == null ? "" : name, "namespace", namespace));
  }

  /** A pod (any namespaced object): {@code {"name": ..., "namespace": ...}}. */
  public static Map<String, String> ref(io.fabric8.kubernetes.api.model.HasMetadata object) {
    return ref(object.getMetadata().getNamespace(), object.getMetadata().getName());
  }
}
