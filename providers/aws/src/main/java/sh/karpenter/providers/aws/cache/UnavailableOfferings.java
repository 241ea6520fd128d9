package sh.karpenter.providers.aws.cache;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.providers.aws.instancetype.OfferingAvailability;

/**
 * Offerings that recently failed to launch for lack of capacity (upstream's {@code
 * UnavailableOfferings}): an instance type in a zone of a capacity type, a whole capacity type (spot
 * when the spot service-linked role cannot be created), or a subnet (out of free addresses). Each mark
 * lasts {@link #TTL} on the injected clock, and marking again extends it. Instance types treat a
 * marked offering as unavailable.
 *
 * <p>{@link #seq()} and {@link #seq(String)} change whenever a mark is added or expires, so readers
 * can cache what they derive from it per sequence number, as upstream does per instance type.
 * Thread-safe; expiry is lazy (checked on every read), so nothing runs in the background.
 */
public final class UnavailableOfferings implements OfferingAvailability {
  private static final Logger LOG = LoggerFactory.getLogger(UnavailableOfferings.class);

  /** How long a mark lasts (upstream's {@code UnavailableOfferingsTTL}). */
  public static final Duration TTL = Duration.ofMinutes(3);

  private final Clock clock;
  private final Duration ttl;
  /** {@code <capacityType>:<instanceType>:<zone>} → expiry. */
  private final Map<String, Instant> offerings = new HashMap<>();
  private final Map<String, Instant> capacityTypes = new HashMap<>();
  private final Map<String, Instant> subnets = new HashMap<>();
  private final Map<String, Long> seqByInstanceType = new HashMap<>();
  private long capacityTypeSeq;
  private long subnetSeq;
  private long seq;

  public UnavailableOfferings(Clock clock) {
    this(clock, TTL);
  }

  public UnavailableOfferings(Clock clock, Duration ttl) {
    this.clock = Objects.requireNonNull(clock, "clock");
    if (ttl.isNegative() || ttl.isZero()) {
      throw new IllegalArgumentException("unavailable offerings TTL must be positive, got " + ttl);
    }
    this.ttl = ttl;
  }

  /** True when the offering, its whole capacity type, is marked. */
  @Override
  public boolean unavailable(String instanceType, String zone, String capacityType) {
    return unavailable(instanceType, zone, java.util.List.of(), capacityType);
  }

  /**
   * Upstream's {@code IsUnavailable}: the offering or its capacity type is marked, or every one of
   * {@code subnetIds} (the NodeClass's subnets in {@code zone}; none means no subnet check) is.
   */
  public synchronized boolean unavailable(String instanceType, String zone, Collection<String> subnetIds, String capacityType) {
    expire();
    if (offerings.containsKey(key(instanceType, zone, capacityType)) || capacityTypes.containsKey(capacityType)) {
      return true;
    }
    if (subnetIds.isEmpty()) {
      return false;
    }
    for (String subnet : subnetIds) {
      if (!subnets.containsKey(subnet)) {
        return false;
      }
    }
    return true;
  }

  /** Marks the offering unavailable for {@link #TTL} from now (again: the TTL restarts). */
  public synchronized void markUnavailable(String instanceType, String zone, String capacityType, String reason) {
    expire();
    LOG.debug("removing offering from offerings: reason={} instance-type={} zone={} capacity-type={} ttl={}",
        reason, instanceType, zone, capacityType, ttl);
    offerings.put(key(instanceType, zone, capacityType), clock.instant().plus(ttl));
    seqByInstanceType.merge(instanceType, 1L, Long::sum);
    seq++;
  }

  /** Marks a whole capacity type unavailable (upstream: spot, when its service-linked role cannot be created). */
  public synchronized void markCapacityTypeUnavailable(String capacityType) {
    expire();
    capacityTypes.put(capacityType, clock.instant().plus(ttl));
    capacityTypeSeq++;
    seq++;
  }

  /** Marks a subnet out of addresses; a zone whose subnets are all marked is unavailable. */
  public synchronized void markSubnetUnavailable(String subnetId) {
    expire();
    subnets.put(subnetId, clock.instant().plus(ttl));
    subnetSeq++;
    seq++;
  }

  /** Forgets one offering's mark. */
  public synchronized void delete(String instanceType, String zone, String capacityType) {
    if (offerings.remove(key(instanceType, zone, capacityType)) != null) {
      seqByInstanceType.merge(instanceType, 1L, Long::sum);
      seq++;
    }
  }

  /** Forgets every mark. */
  public synchronized void flush() {
    offerings.clear();
    capacityTypes.clear();
    subnets.clear();
    seq++;
  }

  /** Changes whenever any mark is added, removed or expires. */
  public synchronized long seq() {
    expire();
    return seq;
  }

  /**
   * Upstream's {@code SeqNum(instanceType)}: changes whenever a mark of this instance type, or any
   * capacity type or subnet mark, is added or expires.
   */
  public synchronized long seq(String instanceType) {
    expire();
    return seqByInstanceType.getOrDefault(instanceType, 0L) + capacityTypeSeq + subnetSeq;
  }

  private void expire() {
    Instant now = clock.instant();
    for (Iterator<Map.Entry<String, Instant>> it = offerings.entrySet().iterator(); it.hasNext(); ) {
      Map.Entry<String, Instant> e = it.next();
      if (!e.getValue().isAfter(now)) {
        it.remove();
        String instanceType = e.getKey().split(":", 3)[1];
        seqByInstanceType.merge(instanceType, 1L, Long::sum);
        seq++;
      }
    }
    if (capacityTypes.values().removeIf(expiry -> !expiry.isAfter(now))) {
      capacityTypeSeq++;
      seq++;
    }
    if (subnets.values().removeIf(expiry -> !expiry.isAfter(now))) {
      subnetSeq++;
      seq++;
    }
  }

  private static String key(String instanceType, String zone, String capacityType) {
    return capacityType + ":" + instanceType + ":" + zone;
  }
}
