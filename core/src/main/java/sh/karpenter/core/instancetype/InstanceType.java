package sh.karpenter.core.instancetype;

import java.util.List;
import java.util.Objects;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * A kind of machine a NodeClaim may launch as: its labels (as requirements defining every
 * well-known label), offerings, capacity and kubelet/system overhead. Immutable; {@link
 * #allocatable()} is computed once.
 */
public final class InstanceType {
  private final String name;
  private final Requirements requirements;
  private final List<Offering> offerings;
  private final Resources capacity;
  private final Overhead overhead;
  private final Resources allocatable;
  /** Every offering is described by zone and capacity type alone, so compatibility is two lookups. */
  private final boolean zoneAndCapacityTypeOnly;

  public InstanceType(
      String name, Requirements requirements, List<Offering> offerings, Resources capacity, Overhead overhead) {
    this.name = Objects.requireNonNull(name, "name");
    this.requirements = Objects.requireNonNull(requirements, "requirements").frozen();
    this.offerings = List.copyOf(offerings);
    this.capacity = Objects.requireNonNull(capacity, "capacity");
    this.overhead = overhead == null ? Overhead.NONE : overhead;
    this.allocatable = capacity.minus(this.overhead.total()).floorZero();
    boolean simple = true;
    for (Offering o : this.offerings) {
      simple &= o.isZoneAndCapacityTypeOnly();
    }
    this.zoneAndCapacityTypeOnly = simple;
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

  public Resources capacity() {
    return capacity;
  }

  public Overhead overhead() {
    return overhead;
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
