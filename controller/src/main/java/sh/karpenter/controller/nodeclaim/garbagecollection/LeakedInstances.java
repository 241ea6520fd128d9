package sh.karpenter.controller.nodeclaim.garbagecollection;

import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Remembers cloud instances that no NodeClaim references, so that one is called leaked only after it
 * was seen unreferenced on two garbage-collection passes at least {@code minimumAge} apart. A launch
 * in progress is never taken for a leak: Launch writes the provider ID onto the NodeClaim as soon as
 * Create returns, long before a second sighting. Thread-safe.
 */
final class LeakedInstances {
  private final Duration minimumAge;
  private final Map<String, Instant> firstSeen = new HashMap<>();

  LeakedInstances(Duration minimumAge) {
    this.minimumAge = minimumAge;
  }

  /**
   * Records one pass's unreferenced instances and returns those that were already unreferenced at
   * least {@code minimumAge} ago, in no particular order. Instances referenced again, or gone, are
   * forgotten.
   */
  synchronized List<String> observe(Set<String> unreferenced, Instant now) {
    firstSeen.keySet().retainAll(unreferenced);
    for (String providerId : unreferenced) {
      firstSeen.putIfAbsent(providerId, now);
    }
    return firstSeen.entrySet().stream()
        .filter(e -> !e.getValue().plus(minimumAge).isAfter(now))
        .map(Map.Entry::getKey)
        .toList();
  }

  /** Forgets an instance (deleted, or found referenced after all). */
  synchronized void forget(String providerId) {
    firstSeen.remove(providerId);
  }
}
