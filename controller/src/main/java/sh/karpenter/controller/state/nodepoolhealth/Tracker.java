package sh.karpenter.controller.state.nodepoolhealth;

/**
 * The last {@link #BUFFER_SIZE} launch outcomes of one NodePool (true: a NodeClaim registered; false:
 * one timed out launching or registering), in a ring that overwrites the oldest (upstream
 * {@code nodepoolhealth.Tracker}). The pool is {@link Status#UNHEALTHY} once failures fill at least
 * {@link #THRESHOLD_FALSE} of the buffer's capacity, not of the outcomes recorded: two failures in a
 * row are enough, and after them three successes are needed to outweigh them. Thread-safe.
 */
public final class Tracker {
  /** How many outcomes are kept (upstream BufferSize). */
  public static final int BUFFER_SIZE = 4;
  /** The share of failures, of {@link #BUFFER_SIZE}, at which the pool is unhealthy (upstream ThresholdFalse). */
  public static final double THRESHOLD_FALSE = 0.5;

  private final boolean[] outcomes = new boolean[BUFFER_SIZE];
  private int size;
  /** The oldest outcome's slot once the ring is full. */
  private int head;

  /** Records one outcome, replacing the oldest when the ring is full. */
  public synchronized void update(boolean registered) {
    if (size < BUFFER_SIZE) {
      outcomes[size++] = registered;
      return;
    }
    outcomes[head] = registered;
    head = (head + 1) % BUFFER_SIZE;
  }

  /** Forgets every outcome. */
  public synchronized void reset() {
    size = 0;
    head = 0;
  }

  public synchronized Status status() {
    if (size == 0) {
      return Status.UNKNOWN;
    }
    int failures = 0;
    for (int i = 0; i < size; i++) {
      if (!outcomes[i]) {
        failures++;
      }
    }
    return (double) failures / BUFFER_SIZE >= THRESHOLD_FALSE ? Status.UNHEALTHY : Status.HEALTHY;
  }

  /**
   * Resets the ring to the fewest outcomes that give {@code status}: none for Unknown, one success
   * for Healthy, {@code BUFFER_SIZE × THRESHOLD_FALSE} failures for Unhealthy (how a restart
   * re-creates the tracker from the NodePool's condition).
   */
  public synchronized void setStatus(Status status) {
    reset();
    switch (status) {
      case UNKNOWN -> { }
      case HEALTHY -> update(true);
      case UNHEALTHY -> {
        for (int i = 0; i < (int) (BUFFER_SIZE * THRESHOLD_FALSE); i++) {
          update(false);
        }
      }
    }
  }

  /** A copy with the same outcomes in the same order. */
  synchronized Tracker copy() {
    Tracker copy = new Tracker();
    for (int i = 0; i < size; i++) {
      copy.update(outcomes[(head + i) % size]);
    }
    return copy;
  }
}
