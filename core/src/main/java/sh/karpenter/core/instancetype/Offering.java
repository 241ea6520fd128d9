package sh.karpenter.core.instancetype;

import java.util.Objects;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;

/**
 * One way to buy an instance type: a zone and capacity type (and, for reserved capacity, a
 * reservation), with its hourly price and whether it can be launched now. Immutable.
 */
public final class Offering {
  private final Requirements requirements;
  private final double price;
  private final boolean available;
  private final int reservationCapacity;
  private final String zone;
  private final String capacityType;
  private final String reservationId;
  /** True when every requirement is single-valued In, which makes compatibility a few lookups. */
  private final boolean singleValued;
  /** See {@link #launchable()}; fixed at construction. */
  private final boolean launchable;

  /**
   * @param requirements zone and capacity type (single-valued In), plus the reservation ID label for
   *     reserved offerings
   * @param price per hour
   * @param reservationCapacity instances left in the reservation (reserved offerings)
   */
  public Offering(Requirements requirements, double price, boolean available, int reservationCapacity) {
    this.requirements = Objects.requireNonNull(requirements, "requirements").frozen();
    this.price = price;
    this.available = available;
    this.reservationCapacity = reservationCapacity;
    this.zone = singleValue(requirements, Labels.ZONE);
    this.capacityType = singleValue(requirements, Labels.CAPACITY_TYPE);
    this.reservationId = singleValue(requirements, Labels.RESERVATION_ID);
    boolean single = true;
    for (Requirement r : requirements) {
      single &= !r.complement() && r.size() == 1;
    }
    this.singleValued = single;
    Requirement capacityTypes = requirements.find(Labels.CAPACITY_TYPE);
    boolean reservationConstrained = capacityTypes != null && capacityTypes.has(Labels.CAPACITY_TYPE_RESERVED);
    this.launchable = available && (!reservationConstrained || reservationCapacity > 0);
  }

  /** True when the requirements are exactly a single zone and a single capacity type. */
  boolean isZoneAndCapacityTypeOnly() {
    return singleValued && zone != null && capacityType != null && requirements.size() == 2;
  }

  /** An offering in {@code zone} of {@code capacityType}. */
  public static Offering of(String zone, String capacityType, double price, boolean available) {
    return new Offering(
        Requirements.of(Requirement.in(Labels.ZONE, zone), Requirement.in(Labels.CAPACITY_TYPE, capacityType)),
        price,
        available,
        0);
  }

  private static String singleValue(Requirements requirements, String key) {
    Requirement r = requirements.find(key);
    return r != null && !r.complement() && r.size() == 1 ? r.any() : null;
  }

  /** The zone, or null when the offering does not name one. */
  public String zone() {
    return zone;
  }

  /** spot, on-demand or reserved; null when the offering does not name one. */
  public String capacityType() {
    return capacityType;
  }

  /** The reservation ID of a reserved offering, else null. */
  public String reservationId() {
    return reservationId;
  }

  public double price() {
    return price;
  }

  public boolean available() {
    return available;
  }

  /**
   * Upstream's {@code Offering.Launchable} (v1.15): whether a new node can be launched into this
   * offering now: it is available and, when it is reserved capacity, its reservation has capacity left.
   * A full reservation stays available (healthy) but is not launchable. Prices, the order of a
   * NodeClaim's options, its capacity types and consolidation savings use launchable offerings;
   * whether an instance type can host a pod at all still asks only for an available one.
   */
  public boolean launchable() {
    return launchable;
  }

  public int reservationCapacity() {
    return reservationCapacity;
  }

  /** Frozen. */
  public Requirements requirements() {
    return requirements;
  }

  public boolean isReserved() {
    return Labels.CAPACITY_TYPE_RESERVED.equals(capacityType);
  }

  /**
   * Upstream's offering compatibility, {@code reqs.IsCompatible(offering.Requirements,
   * AllowUndefinedWellKnownLabels)}: every offering label is well-known, so a key {@code reqs} leaves
   * undefined is fine and a defined one must allow the offering's value. Does not allocate.
   */
  public boolean isCompatible(Requirements reqs) {
    if (singleValued) {
      for (int i = 0, n = requirements.size(); i < n; i++) {
        Requirement r = requirements.at(i);
        Requirement constraint = reqs.find(r.key());
        if (constraint != null && !constraint.has(r.any())) {
          return false;
        }
      }
      return true;
    }
    for (int i = 0, n = requirements.size(); i < n; i++) {
      Requirement r = requirements.at(i);
      Requirement constraint = reqs.find(r.key());
      if (constraint != null && !constraint.intersects(r)) {
        return false;
      }
    }
    return true;
  }

  @Override
  public String toString() {
    return (capacityType == null ? "?" : capacityType) + "/" + (zone == null ? "?" : zone) + " $" + price
        + (available ? "" : " (unavailable)");
  }
}
