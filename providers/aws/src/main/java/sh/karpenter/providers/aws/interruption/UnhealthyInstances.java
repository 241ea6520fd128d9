package sh.karpenter.providers.aws.interruption;

import java.util.HashSet;
import java.util.Set;
import sh.karpenter.providers.aws.instancestatus.Category;

/**
 * The instance × category pairs already counted unhealthy (upstream's {@code seen} map of the
 * instance-status controller), so that {@code karpenter_interruption_instance_status_unhealthy_total}
 * counts each once while it stays unhealthy, and again if it recovers and fails anew. A poll {@link
 * #begin begins} a round, {@link #observe observes} the pairs it acted on, and {@link #end ends} it,
 * forgetting the pairs it did not observe. Thread-safe: a round observes from parallel workers.
 */
final class UnhealthyInstances {
  record Key(String instanceId, Category category) {}

  private final Set<Key> seen = new HashSet<>();
  private final Set<Key> current = new HashSet<>();

  synchronized void begin() {
    current.clear();
  }

  /** Records the pair for this round; true when it was not seen before, i.e. when to count it. */
  synchronized boolean observe(String instanceId, Category category) {
    Key key = new Key(instanceId, category);
    current.add(key);
    return seen.add(key);
  }

  /** Forgets the pairs this round did not observe. */
  synchronized void end() {
    seen.retainAll(current);
  }

  synchronized int size() {
    return seen.size();
  }
}
