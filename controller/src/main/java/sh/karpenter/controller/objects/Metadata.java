package sh.karpenter.controller.objects;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.v1.NodeClaim;

/**
 * What the controllers read from any object's metadata, and the provider ID that joins a Node to
 * its NodeClaim (upstream's field indexers), written once.
 */
public final class Metadata {
  private Metadata() {}

  /** It has a deletionTimestamp: the API server is waiting for its finalizers. */
  public static boolean deleting(HasMetadata object) {
    String deletion = object.getMetadata().getDeletionTimestamp();
    return deletion != null && !deletion.isEmpty();
  }

  public static boolean hasFinalizer(HasMetadata object, String finalizer) {
    List<String> finalizers = object.getMetadata().getFinalizers();
    return finalizers != null && finalizers.contains(finalizer);
  }

  /** The labels, never null. */
  public static Map<String, String> labels(HasMetadata object) {
    return object.getMetadata().getLabels() == null ? Map.of() : object.getMetadata().getLabels();
  }

  /** The annotations, never null. */
  public static Map<String, String> annotations(HasMetadata object) {
    return object.getMetadata().getAnnotations() == null ? Map.of() : object.getMetadata().getAnnotations();
  }

  /** The Node's {@code spec.providerID}, or "" before the cloud provider set it. */
  public static String providerId(Node node) {
    String id = node.getSpec() == null ? null : node.getSpec().getProviderID();
    return id == null ? "" : id;
  }

  /** The NodeClaim's {@code status.providerID}, or "" before launch. */
  public static String providerId(NodeClaim nodeClaim) {
    String id = nodeClaim.getStatus() == null ? null : nodeClaim.getStatus().getProviderID();
    return id == null ? "" : id;
  }

  /** True when the Node's {@code Ready} condition is True (a Node without one is not ready). */
  public static boolean ready(Node node) {
    return node.getStatus() != null && node.getStatus().getConditions() != null
        && node.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
  }
}
