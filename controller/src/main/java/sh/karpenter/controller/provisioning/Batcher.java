package sh.karpenter.controller.provisioning;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import sh.karpenter.controller.operator.options.Options;

/**
 * Gathers provisioning triggers into batches (upstream {@code Batcher}), so that pods created
 * together are scheduled in one pass: triggers come from informer handlers on any thread; the
 * provisioner blocks in {@link #waitForBatch()} until a {@link BatchWindow} closes. Decisions use
 * the injected clock; the wait underneath is real, re-checking the clock at least every {@link
 * #POLL}, so a stepped testing clock is noticed.
 */
public final class Batcher {
  /** How long {@link #waitForBatch()} waits for a first trigger before returning false. */
  public static final Duration NO_WINDOW_WAIT = Duration.ofSeconds(1);
  /** The longest real wait between two looks at the clock while a window is open. */
  static final Duration POLL = Duration.ofMillis(100);

  private final Clock clock;
  private final BatchWindow window;
  private final ReentrantLock lock = new ReentrantLock();
  private final Condition changed = lock.newCondition();

  public Batcher(Clock clock, Duration idle, Duration max) {
    this.clock = clock;
    this.window = new BatchWindow(idle, max);
  }

  /** A batcher with {@code --batch-idle-duration} and {@code --batch-max-duration}. */
  public Batcher(Clock clock, Options options) {
    this(clock, options.batchIdleDuration(), options.batchMaxDuration());
  }

  /** Asks for a provisioning pass on behalf of {@code uid} (a pod, a node or a NodePool). Never blocks for long. */
  public void trigger(String uid) {
    lock.lock();
    try {
      window.trigger(uid, clock.instant());
      changed.signalAll();
    } finally {
      lock.unlock();
    }
  }

  /**
   * Blocks until the current window closes and returns true; returns false after {@link
   * #NO_WINDOW_WAIT} when no window opened, so the caller can refresh and come back.
   */
  public boolean waitForBatch() throws InterruptedException {
    lock.lockInterruptibly();
    try {
      long nanos = NO_WINDOW_WAIT.toNanos();
      while (!window.isOpen()) {
        if (nanos <= 0) {
          return false;
        }
        nanos = changed.awaitNanos(nanos);
      }
      while (true) {
        Instant now = clock.instant();
        if (window.isDue(now)) {
          window.reset();
          return true;
        }
        Duration left = Duration.between(now, window.closesAt());
        changed.awaitNanos(Math.min(left.toNanos(), POLL.toNanos()));
      }
    } finally {
      lock.unlock();
    }
  }
}
