package sh.karpenter.controller.nodepool;

import io.fabric8.kubernetes.api.model.APIGroup;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;

/**
 * Reads the NodeClass a NodePool's {@code nodeClassRef} names, generically by group, kind and name, in
 * the API server's preferred version of the group (remembered per group). No informer watches
 * NodeClasses, so every call reads from the API server.
 */
final class NodeClasses {
  private final KubernetesClient client;
  /** Preferred {@code group/version} of each NodeClass API group seen. */
  private final Map<String, String> apiVersions = new ConcurrentHashMap<>();

  NodeClasses(KubernetesClient client) {
    this.client = client;
  }

  /**
   * The NodeClass, or null when it, its kind or its API group does not exist; other API errors
   * propagate. {@code ref} must name group, kind and name.
   */
  GenericKubernetesResource get(NodeClassReference ref) {
    try {
      String apiVersion = apiVersions.get(ref.getGroup());
      if (apiVersion == null) {
        APIGroup group = client.getApiGroup(ref.getGroup());
        if (group == null || group.getPreferredVersion() == null) {
          return null;
        }
        apiVersion = group.getPreferredVersion().getGroupVersion();
        apiVersions.put(ref.getGroup(), apiVersion);
      }
      return client.genericKubernetesResources(apiVersion, ref.getKind()).withName(ref.getName()).get();
    } catch (KubernetesClientException e) {
      // Code 0: the client could not map the kind to a resource (no such kind in the group).
      if (OptimisticWrites.isNotFound(e) || e.getCode() == 0) {
        return null;
      }
      throw e;
    }
  }

  /** Whether {@code ref} names group, kind and name. */
  static boolean complete(NodeClassReference ref) {
    return ref != null && !empty(ref.getGroup()) && !empty(ref.getKind()) && !empty(ref.getName());
  }

  private static boolean empty(String s) {
    return s == null || s.isEmpty();
  }
}
