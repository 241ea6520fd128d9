package sh.karpenter.providers.aws.expiring;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;

/**
 * A small map whose entries expire a fixed time after they were put (go-cache's {@code SetDefault} /
 * {@code Get} as upstream's providers use it), on an injected clock. Expired entries are dropped when
 * read or when a put finds them. Thread-safe.
 */
public final class ExpiringCache<K, V> {
  private record Entry<V>(V value, Instant expires) {}

  private final Clock clock;
  private final Duration ttl;
  private final Map<K, Entry<V>> entries = new HashMap<>();

  public ExpiringCache(Clock clock, Duration ttl) {
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("ttl must be positive, got " + ttl);
    }
    this.clock = clock;
    this.ttl = ttl;
  }

  public Duration ttl() {
    return ttl;
  }

  /** The value put for {@code key} less than the TTL ago. */
  public synchronized Optional<V> get(K key) {
    Entry<V> entry = entries.get(key);
    if (entry == null) {
      return Optional.empty();
    }
    if (!clock.instant().isBefore(entry.expires())) {
      entries.remove(key);
      return Optional.empty();
    }
    return Optional.of(entry.value());
  }

  /** Puts {@code value} for the default TTL. */
  public void put(K key, V value) {
    put(key, value, ttl);
  }

  /** Puts {@code value} for {@code ttl}. */
  public synchronized void put(K key, V value, Duration ttl) {
    Instant now = clock.instant();
    entries.values().removeIf(entry -> !now.isBefore(entry.expires()));
    entries.put(key, new Entry<>(value, now.plus(ttl)));
  }

  public synchronized void remove(K key) {
    entries.remove(key);
  }

  public synchronized void clear() {
    entries.clear();
  }
}
