package sh.karpenter.controller.runtime;

/**
 * Brings one object (named by its key) to its desired state. Never runs twice at once for the same
 * key. A thrown exception requeues the key with exponential backoff; otherwise the {@link Result}
 * decides.
 */
@FunctionalInterface
public interface Reconciler<K> {
  Result reconcile(K key) throws Exception;
}
