package sh.karpenter.controller.nodeclaim;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The writes the lifecycle and NodePool controllers make, with controller-runtime's optimistic
 * locking: a JSON merge patch that carries {@code metadata.resourceVersion} fails with 409 Conflict
 * when the object changed since it was read, instead of silently replacing a list (finalizers,
 * taints, conditions) someone else just wrote. Callers handle a conflict by re-reading and retrying.
 */
public final class ObjectWrites {
  private ObjectWrites() {}

  /** HTTP 409: the object changed since it was read. */
  public static boolean isConflict(Throwable t) {
    return t instanceof KubernetesClientException e && e.getCode() == 409;
  }

  /** HTTP 404: the object is gone. */
  public static boolean isNotFound(Throwable t) {
    return t instanceof KubernetesClientException e && e.getCode() == 404;
  }

  /**
   * Applies {@code body} as a JSON merge patch. With a {@code resourceVersion} the patch is locked to
   * that version (409 on mismatch); with null it is not locked (fine for adding a map entry).
   *
   * @return the object as the API server stored it
   */
  public static <T extends HasMetadata> T mergePatch(
      Resource<T> resource, KubernetesSerialization serialization, String resourceVersion, Map<String, Object> body) {
    Map<String, Object> patch = new LinkedHashMap<>(body);
    if (resourceVersion != null) {
      @SuppressWarnings("unchecked")
      Map<String, Object> metadata =
          new LinkedHashMap<>((Map<String, Object>) patch.getOrDefault("metadata", Map.of()));
      metadata.put("resourceVersion", resourceVersion);
      patch.put("metadata", metadata);
    }
    return resource.patch(PatchContext.of(PatchType.JSON_MERGE), serialization.asJson(patch));
  }

  /**
   * Deletes the object if it is still at {@code resourceVersion} (409 when it changed: the caller's
   * decision to delete was made on an older version). A missing object counts as deleted.
   */
  public static <T extends HasMetadata> void deleteAt(Resource<T> resource, String resourceVersion) {
    try {
      (resourceVersion == null ? resource : resource.lockResourceVersion(resourceVersion)).delete();
    } catch (KubernetesClientException e) {
      if (!isNotFound(e)) {
        throw e;
      }
    }
  }

  /** A merge-patch body that sets metadata fields ({@code labels}, {@code finalizers}, ...). */
  public static Map<String, Object> metadata(Map<String, Object> fields) {
    return Map.of("metadata", fields);
  }

  /** The object's finalizers plus {@code finalizer} (unchanged when already present). */
  public static List<String> withFinalizer(HasMetadata object, String finalizer) {
    List<String> finalizers = new ArrayList<>(nullToEmpty(object.getMetadata().getFinalizers()));
    if (!finalizers.contains(finalizer)) {
      finalizers.add(finalizer);
    }
    return finalizers;
  }

  /** The object's finalizers without {@code finalizer}. */
  public static List<String> withoutFinalizer(HasMetadata object, String finalizer) {
    List<String> finalizers = new ArrayList<>(nullToEmpty(object.getMetadata().getFinalizers()));
    finalizers.removeIf(finalizer::equals);
    return finalizers;
  }

  public static boolean hasFinalizer(HasMetadata object, String finalizer) {
    return nullToEmpty(object.getMetadata().getFinalizers()).contains(finalizer);
  }

  public static boolean isDeleting(HasMetadata object) {
    String deletion = object.getMetadata().getDeletionTimestamp();
    return deletion != null && !deletion.isEmpty();
  }

  private static <T> List<T> nullToEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
