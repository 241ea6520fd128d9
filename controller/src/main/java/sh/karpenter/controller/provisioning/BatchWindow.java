package sh.karpenter.controller.provisioning;

import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Objects;
import java.util.Set;

/**
 * The decision logic of provisioning's batch window (upstream {@code Batcher},
 * docs/behaviour/scheduling.md#batching), apart from any waiting: the first trigger opens the
 * window; it closes once no new pod arrived for the idle duration, or the maximum duration after it
 * opened, whichever comes first. A pod UID seen again within the window does not keep it open. Not
 * thread-safe: {@link Batcher} guards it.
 */
public final class BatchWindow {
  private final Duration idle;
  private final Duration max;
  private final Set<String> uids = new HashSet<>();
  private Instant openedAt;
  private Instant lastTriggerAt;

  /**
   * @param idle {@code --batch-idle-duration} (1 s by default)
   * @param max {@code --batch-max-duration} (10 s by default)
   */
  public BatchWindow(Duration idle, Duration max) {
    this.idle = Objects.requireNonNull(idle, "idle");
    this.max = Objects.requireNonNull(max, "max");
  }

  /**
   * Records a trigger for {@code uid} at {@code now}.
   *
   * @return true when this trigger opened the window
   */
  public boolean trigger(String uid, Instant now) {
    boolean opened = openedAt == null;
    if (opened) {
      openedAt = now;
    }
    if (uids.add(uid) || opened) {
      lastTriggerAt = now;
    }
    return opened;
  }

  public boolean isOpen() {
    return openedAt != null;
  }

  /** When the window closes if nothing new arrives: the earlier of idle after the last new UID and max after opening; null when closed. */
  public Instant closesAt() {
    if (openedAt == null) {
      return null;
    }
    Instant idleEnd = lastTriggerAt.plus(idle);
    Instant maxEnd = openedAt.plus(max);
    return idleEnd.isBefore(maxEnd) ? idleEnd : maxEnd;
  }

  /** True when the window is open and its time is up at {@code now}. */
  public boolean isDue(Instant now) {
    return openedAt != null && !now.isBefore(closesAt());
  }

  /** The distinct UIDs triggered in this window. */
  public int size() {
    return uids.size();
  }

  /** Closes the window (the batch was taken). */
  public void reset() {
    openedAt = null;
    lastTriggerAt = null;
    uids.clear();
  }
}
