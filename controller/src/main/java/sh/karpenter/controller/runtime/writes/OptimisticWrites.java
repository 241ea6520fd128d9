package sh.karpenter.controller.runtime.writes;

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
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Writes with controller-runtime's optimistic locking, for every controller: a JSON merge patch
 * that carries {@code metadata.resourceVersion} fails with 409 Conflict when the object changed
 * since it was read, instead of silently replacing a list (finalizers, taints, conditions) someone
 * else just wrote. Callers handle a conflict with {@link #retryOnConflict}: read again, decide
 * again, write again (client-go's {@code retry.RetryOnConflict}).
 */
public final class OptimisticWrites {
  private OptimisticWrites() {}

  /** How many times {@link #retryOnConflict} tries before the conflict propagates (client-go's DefaultRetry: 5 steps). */
  public static final int ATTEMPTS = 5;

  /**
   * Runs {@code attempt} on {@code first}; when it fails with 409 Conflict, runs it again on what
   * {@code reread} returns (the object as the API server has it now, or null when it is gone), at
   * most {@link #ATTEMPTS} times in all, after which the conflict propagates. Any other failure
   * propagates at once. {@code attempt} checks its own preconditions (the object may be null or
   * changed by then) and returns the outcome.
   */
  public static <T, R> R retryOnConflict(T first, Function<T, R> attempt, Supplier<T> reread) {
    T current = first;
    for (int attempts = 1; ; attempts++) {
      try {
        return attempt.apply(current);
      } catch (RuntimeException e) {
        if (!isConflict(e) || attempts >= ATTEMPTS) {
          throw e;
        }
        current = reread.get();
      }
    }
  }

  /** {@link #retryOnConflict(Object, Function, Supplier)} for a write that reads what it needs itself. */
  public static void retryOnConflict(Runnable write) {
    retryOnConflict(null, ignored -> {
      write.run();
      return null;
    }, () -> null);
  }

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

  private static <T> List<T> nullToEmpty(List<T> list) {
    return list == null ? List.of() : list;
  }
}
