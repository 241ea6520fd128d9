package sh.karpenter.controller.nodeclaim.lifecycle;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import sh.karpenter.core.cloudprovider.Instance;

/**
 * Remembers, for an hour, the instance launched for each NodeClaim UID. A reconcile that reads a
 * NodeClaim from a cache that has not yet seen its {@code Launched} status (or whose status write
 * failed) reuses the instance instead of launching a second one (upstream's launch cache).
 */
final class LaunchCache {
  /** Upstream's expiry (docs/behaviour/options.md). */
  static final Duration TTL = Duration.ofHours(1);

  private record Entry(Instance instance, Instant expires) {}

  private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();
  private final Clock clock;
  private volatile Instant nextPurge = Instant.MIN;

  LaunchCache(Clock clock) {
    this.clock = clock;
  }

  Optional<Instance> get(String uid) {
    if (uid == null) {
      return Optional.empty();
    }
    Instant now = clock.instant();
    Entry entry = entries.get(uid);
    if (entry == null) {
      return Optional.empty();
    }
    if (!now.isBefore(entry.expires())) {
      entries.remove(uid, entry);
      return Optional.empty();
    }
    return Optional.of(entry.instance());
  }

  void put(String uid, Instance instance) {
    if (uid == null) {
      return;
    }
    Instant now = clock.instant();
    if (!now.isBefore(nextPurge)) {
      nextPurge = now.plus(Duration.ofMinutes(1));
      entries.values().removeIf(e -> !now.isBefore(e.expires()));
    }
    entries.put(uid, new Entry(instance, now.plus(TTL)));
  }

  void remove(String uid) {
    if (uid != null) {
      entries.remove(uid);
    }
  }

  int size() {
    return entries.size();
  }
}
