package sh.karpenter.controller.runtime;

import java.time.Duration;

/**
 * Hears about every reconcile and queue-depth change of the runtime's {@link Controller}s and {@link
 * SingletonLoop}s, so metrics (reconcile duration, errors, queue depth) live outside the runtime.
 * Implementations must be fast and must not throw; the default does nothing.
 */
public interface ReconcileObserver {
  /** Does nothing. */
  ReconcileObserver NOOP = new ReconcileObserver() {};

  /** One reconcile of {@code controller} finished after {@code took}, failing when {@code errorOrNull} is set. */
  default void reconciled(String controller, Duration took, Throwable errorOrNull) {}

  /** {@code controller}'s queue now holds {@code depth} keys ready to be reconciled. */
  default void queueDepth(String controller, int depth) {}
}
