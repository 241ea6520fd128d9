package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.Map;

/**
 * Upstream's event de-duplication (pkg/events/recorder.go): the first event with a given (object,
 * type, reason, message) opens a window of the given length, and identical events inside it are
 * dropped; duplicates do not extend the window. The object is its UID, or kind/namespace/name when
 * it has none. Expired entries are swept as time passes, so memory stays bounded by the events of
 * one window.
 */
final class EventDeduplicator {
  private final Clock clock;
  private final Map<String, Instant> expiries = new HashMap<>();
  private Instant nextSweep;

  EventDeduplicator(Clock clock) {
    this.clock = clock;
    this.nextSweep = clock.instant();
  }

  /** True when the event is new (and opens its window); false for a duplicate inside the window. */
  synchronized boolean admit(HasMetadata involved, String type, String reason, String message, Duration window) {
    Instant now = clock.instant();
    sweep(now);
    String key = key(involved, type, reason, message);
    Instant expiry = expiries.get(key);
    if (expiry != null && expiry.isAfter(now)) {
      return false;
    }
    if (window != null && window.isPositive()) {
      expiries.put(key, now.plus(window));
    }
    return true;
  }

  synchronized void clear() {
    expiries.clear();
  }

  private void sweep(Instant now) {
    if (now.isBefore(nextSweep)) {
      return;
    }
    expiries.values().removeIf(expiry -> !expiry.isAfter(now));
    nextSweep = now.plusSeconds(30);
  }

  static String key(HasMetadata involved, String type, String reason, String message) {
    String uid = involved.getMetadata() == null ? null : involved.getMetadata().getUid();
    String object = uid != null && !uid.isEmpty()
        ? uid
        : kind(involved) + "/" + namespace(involved) + "/" + name(involved);
    return object + "\u0000" + type + "\u0000" + reason + "\u0000" + message;
  }

  static String kind(HasMetadata involved) {
    String kind = involved.getKind();
    return kind != null ? kind : HasMetadata.getKind(involved.getClass());
  }

  static String apiVersion(HasMetadata involved) {
    String apiVersion = involved.getApiVersion();
    return apiVersion != null ? apiVersion : HasMetadata.getApiVersion(involved.getClass());
  }

  static String namespace(HasMetadata involved) {
    return involved.getMetadata() == null ? null : involved.getMetadata().getNamespace();
  }

  static String name(HasMetadata involved) {
    return involved.getMetadata() == null ? null : involved.getMetadata().getName();
  }
}
