package sh.karpenter.core.scheduling;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import sh.karpenter.core.instancetype.Offering;

/**
 * Reserved capacity during one pass (upstream's {@code ReservationManager},
 * docs/behaviour/scheduling.md#reserved-capacity): how many more instances each reservation can
 * take, and which reservations each planned NodeClaim holds. A NodeClaim holds one unit of every
 * reservation it could launch into (it is not yet known which one it will get), so the NodeClaims
 * of one pass never count on more reserved instances than a reservation has.
 */
final class ReservationManager {
  /** Per reservation ID, the least capacity any offering reports for it. */
  private final Map<String, Integer> reported;
  /** Per reservation ID, what the NodeClaims of the pass have not yet reserved. */
  private final Map<String, Integer> remaining = new HashMap<>();
  /** Per NodeClaim hostname, the reservation IDs it holds. */
  private final Map<String, Set<String>> held = new HashMap<>();

  /** @param reported per reservation ID, the least capacity any offering reports for it (not modified) */
  ReservationManager(Map<String, Integer> reported) {
    this.reported = reported;
    remaining.putAll(reported);
  }

  /**
   * Whether the offering is reserved capacity a NodeClaim can count on at all: reserved, available
   * and its reservation reported with room for at least one instance. A full reservation is treated
   * like an unavailable offering.
   */
  boolean reservable(Offering offering) {
    return offering.isReserved()
        && offering.available()
        && offering.reservationId() != null
        && reported.getOrDefault(offering.reservationId(), 0) > 0;
  }

  /** Whether the NodeClaim holds the reservation already or the reservation has a unit left. */
  boolean canReserve(String hostname, String reservationId) {
    return held.getOrDefault(hostname, Set.of()).contains(reservationId) || remaining.getOrDefault(reservationId, 0) > 0;
  }

  /** The reservations the NodeClaim holds (empty when none). */
  Set<String> heldBy(String hostname) {
    return held.getOrDefault(hostname, Set.of());
  }

  /** Makes the NodeClaim hold exactly {@code reservationIds}: reserves the new ones, releases the others. */
  void hold(String hostname, Set<String> reservationIds) {
    Set<String> current = held.computeIfAbsent(hostname, h -> new TreeSet<>());
    for (String id : Set.copyOf(current)) {
      if (!reservationIds.contains(id)) {
        current.remove(id);
        remaining.merge(id, 1, Integer::sum);
      }
    }
    for (String id : reservationIds) {
      if (current.add(id)) {
        int left = remaining.getOrDefault(id, 0);
        if (left <= 0) {
          throw new IllegalStateException("reservation " + id + " over-committed by " + hostname);
        }
        remaining.put(id, left - 1);
      }
    }
  }
}
