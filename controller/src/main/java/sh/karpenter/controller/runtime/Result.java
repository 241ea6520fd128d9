package sh.karpenter.controller.runtime;

import java.time.Duration;

/**
 * What a reconcile asks of the work queue afterwards (controller-runtime's {@code Result}): nothing,
 * or to see the key again after a delay. Errors are thrown instead and retried with per-key backoff.
 */
public record Result(Duration requeueAfter) {
  private static final Result DONE = new Result(null);

  public static Result done() {
    return DONE;
  }

  public static Result requeueAfter(Duration delay) {
    return new Result(delay);
  }

  public boolean requeue() {
    return requeueAfter != null;
  }

  /** The earlier of two requeues (a done result never wins over a requeue). */
  public Result min(Result other) {
    if (!requeue()) {
      return other;
    }
    if (!other.requeue()) {
      return this;
    }
    return requeueAfter.compareTo(other.requeueAfter) <= 0 ? this : other;
  }
}
