package sh.karpenter.core.instancetype;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * A kind of machine a NodeClaim may launch as: its labels (as requirements defining every
 * well-known label), offerings, capacity, kubelet/system overhead and, when the catalogue knows them,
 * its CSI volume attachment limits. Immutable; {@link #allocatable()} is computed once.
 */
public final class InstanceType {
  private final String name;
  private final Requirements requirements;
  private final List<Offering> offerings;
  private final Resources capacity;
  private final Overhead overhead;
  private final Resources allocatable;
  private final Map<String, Integer> volumeAttachmentLimits;
  /** Every offering is described by zone and capacity type alone, so compatibility is two lookups. */
  private final boolean zoneAndCapacityTypeOnly;
  /** The lowest price of a launchable offering; {@link Double#MAX_VALUE} when none is launchable. */
  private final double cheapestLaunchablePrice;

  /** A type without known CSI volume attachment limits. */
  public InstanceType(
      String name, Requirements requirements, List<Offering> offerings, Resources capacity, Overhead overhead) {
    this(name, requirements, offerings, capacity, overhead, Map.of());
  }

  /**
   * @param volumeAttachmentLimits upstream v1.15 {@code VolumeAttachmentLimits}: how many volumes of
   *     each CSI driver a node of this type can attach, by driver name; a driver without an entry is
   *     unlimited (null or empty: none known). New NodeClaims keep only types whose limits hold their
   *     pods' volumes, and an existing node of the type falls back to them for a driver its CSINode
   *     reports no limit for.
   */
  public InstanceType(
      String name,
      Requirements requirements,
      List<Offering> offerings,
      Resources capacity,
      Overhead overhead,
      Map<String, Integer> volumeAttachmentLimits) {
    this.name = Objects.requireNonNull(name, "name");
    this.volumeAttachmentLimits = volumeAttachmentLimits == null ? Map.of() : Map.copyOf(volumeAttachmentLimits);
    for (Map.Entry<String, Integer> limit : this.volumeAttachmentLimits.entrySet()) {
      if (limit.getValue() < 0) {
        throw new IllegalArgumentException("instance type " + name + ": volumeAttachmentLimits[" + limit.getKey() + "] must not be negative, got " + limit.getValue());
      }
    }
    this.requirements = Objects.requireNonNull(requirements, "requirements").frozen();
    this.offerings = List.copyOf(offerings);
    this.capacity = Objects.requireNonNull(capacity, "capacity");
    this.overhead = overhead == null ? Overhead.NONE : overhead;
    this.allocatable = capacity.minus(this.overhead.total()).floorZero();
    boolean simple = true;
    double cheapest = Double.MAX_VALUE;
    for (Offering o : this.offerings) {
      simple &= o.isZoneAndCapacityTypeOnly();
      if (o.launchable()) {
        cheapest = Math.min(cheapest, o.price());
      }
    }
    this.zoneAndCapacityTypeOnly = simple;
    this.cheapestLaunchablePrice = cheapest;
  }

  public String name() {
    return name;
  }

  /** Frozen. */
  public Requirements requirements() {
    return requirements;
  }

  public List<Offering> offerings() {
    return offerings;
  }

  /**
   * The lowest price of a launchable offering, whatever its zone or capacity type ({@link
   * Double#MAX_VALUE} when none is launchable): no launch price of the type under any requirements,
   * {@link InstanceTypes#worstLaunchPrice} included, is lower.
   */
  public double cheapestLaunchablePrice() {
    return cheapestLaunchablePrice;
  }

  public Resources capacity() {
    return capacity;
  }

  public Overhead overhead() {
    return overhead;
  }

  /** CSI volume attachment limits by driver name; empty when the catalogue knows none. */
  public Map<String, Integer> volumeAttachmentLimits() {
    return volumeAttachmentLimits;
  }

  /** This type with other offerings (everything else kept). */
  public InstanceType withOfferings(List<Offering> offerings) {
    return new InstanceType(name, requirements, offerings, capacity, overhead, volumeAttachmentLimits);
  }

  /** This type with these CSI volume attachment limits (everything else kept). */
  public InstanceType withVolumeAttachmentLimits(Map<String, Integer> limits) {
    return new InstanceType(name, requirements, offerings, capacity, overhead, limits);
  }

  /** capacity − overhead.total(), floored at 0; cached. */
  public Resources allocatable() {
    return allocatable;
  }

  /**
   * The cheapest launchable offering ({@link Offering#launchable()}: available, and with reservation
   * capacity left when reserved) compatible with {@code reqs}, or null. Does not allocate.
   */
  public Offering cheapestOffering(Requirements reqs) {
    Offering cheapest = null;
    if (zoneAndCapacityTypeOnly) {
      Requirement zones = reqs.find(Labels.ZONE);
      Requirement capacityTypes = reqs.find(Labels.CAPACITY_TYPE);
      for (int i = 0, n = offerings.size(); i < n; i++) {
        Offering o = offerings.get(i);
        if (o.launchable()
            && (cheapest == null || o.price() < cheapest.price())
            && (zones == null || zones.has(o.zone()))
            && (capacityTypes == null || capacityTypes.has(o.capacityType()))) {
          cheapest = o;
        }
      }
      return cheapest;
    }
    for (int i = 0, n = offerings.size(); i < n; i++) {
      Offering o = offerings.get(i);
      if (o.launchable() && (cheapest == null || o.price() < cheapest.price()) && o.isCompatible(reqs)) {
        cheapest = o;
      }
    }
    return cheapest;
  }

  /**
   * The offering a node of this type runs on, as its labels say: the cheapest offering in the node's
   * zone and of its capacity type (and reservation, for reserved capacity), available or not, or null
   * when the labels name none. Disruption prices its candidates with it, and the NodePool cost
   * metrics a pool's nodes ({@code core.cost.NodePoolCost}).
   */
  public Offering nodeOffering(Map<String, String> nodeLabels) {
    String zone = nodeLabels.get(Labels.ZONE);
    String capacityType = nodeLabels.get(Labels.CAPACITY_TYPE);
    String reservation = nodeLabels.get(Labels.RESERVATION_ID);
    Offering cheapest = null;
    for (Offering offering : offerings) {
      if (zone != null && !zone.equals(offering.zone())) {
        continue;
      }
      if (capacityType != null && !capacityType.equals(offering.capacityType())) {
        continue;
      }
      if (reservation != null && offering.reservationId() != null && !reservation.equals(offering.reservationId())) {
        continue;
      }
      if (cheapest == null || offering.price() < cheapest.price()) {
        cheapest = offering;
      }
    }
    return cheapest;
  }

  /** The price of {@link #cheapestOffering}, or {@link Double#MAX_VALUE} when there is none. */
  public double cheapestPrice(Requirements reqs) {
    Offering cheapest = cheapestOffering(reqs);
    return cheapest == null ? Double.MAX_VALUE : cheapest.price();
  }

  /** True when some available offering is compatible with {@code reqs}. Does not allocate. */
  public boolean hasAvailableOffering(Requirements reqs) {
    if (zoneAndCapacityTypeOnly) {
      Requirement zones = reqs.find(Labels.ZONE);
      Requirement capacityTypes = reqs.find(Labels.CAPACITY_TYPE);
      for (int i = 0, n = offerings.size(); i < n; i++) {
        Offering o = offerings.get(i);
        if (o.available() && (zones == null || zones.has(o.zone())) && (capacityTypes == null || capacityTypes.has(o.capacityType()))) {
          return true;
        }
      }
      return false;
    }
    for (int i = 0, n = offerings.size(); i < n; i++) {
      Offering o = offerings.get(i);
      if (o.available() && o.isCompatible(reqs)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String toString() {
    return name;
  }
}
