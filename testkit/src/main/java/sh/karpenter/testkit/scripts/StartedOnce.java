package sh.karpenter.testkit.scripts;

import java.util.function.Supplier;

/**
 * A real part that one JVM starts at most once, on first use, and shares: later calls get the same
 * instance, or the same failure (a part that could not start is not tried again by every test).
 */
public final class StartedOnce<T> {

  private final Supplier<T> start;
  private T value;
  private RuntimeException failure;

  public StartedOnce(Supplier<T> start) {
    this.start = start;
  }

  /** The part, started now if this is the first call; rethrows the first call's failure. */
  public synchronized T get() {
    if (value == null && failure == null) {
      try {
        value = start.get();
      } catch (RuntimeException e) {
        failure = e;
      }
    }
    if (failure != null) {
      throw failure;
    }
    return value;
  }
}
