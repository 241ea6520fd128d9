package sh.karpenter.controller.state.nodepoolhealth;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The registration {@link Tracker} of every NodePool, by NodePool UID (upstream
 * {@code nodepoolhealth.State}), shared by the NodeClaim lifecycle, which records outcomes, and
 * {@code nodepool.registrationhealth}, which resets a tracker when its NodePool or NodeClass changes
 * and re-creates it from the NodePool's condition after a restart. A tracker is created on first use.
 * Thread-safe.
 */
public final class NodePoolHealth {
  private final Map<String, Tracker> trackers = new ConcurrentHashMap<>();

  private Tracker tracker(String nodePoolUid) {
    return trackers.computeIfAbsent(nodePoolUid, uid -> new Tracker());
  }

  public Status status(String nodePoolUid) {
    return tracker(nodePoolUid).status();
  }

  /** Records a launch outcome of the pool: true when a NodeClaim registered, false when one timed out. */
  public void update(String nodePoolUid, boolean registered) {
    tracker(nodePoolUid).update(registered);
  }

  public void setStatus(String nodePoolUid, Status status) {
    tracker(nodePoolUid).setStatus(status);
  }

  /** The status the pool would have after recording {@code registered}; the pool's tracker is left unchanged. */
  public Status dryRun(String nodePoolUid, boolean registered) {
    Tracker copy = tracker(nodePoolUid).copy();
    copy.update(registered);
    return copy.status();
  }
}
