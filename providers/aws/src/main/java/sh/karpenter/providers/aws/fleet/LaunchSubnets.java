package sh.karpenter.providers.aws.fleet;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeSet;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.Subnet;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * The subnet each zone launches into (upstream's {@code ZonalSubnetsForLaunch}): of the NodeClass's
 * resolved subnets in a zone, the one with the most free addresses. Free-address counts come from
 * DescribeSubnets and are kept {@link #TTL} (upstream's {@code AvailableIPAddressTTL}); each launch
 * takes one address off its subnet's count until the next describe, and a subnet that ran out is
 * counted as empty, so the next launches in that zone prefer its siblings. Thread-safe.
 */
public final class LaunchSubnets {
  public static final Duration TTL = Duration.ofMinutes(5);

  /** A subnet a launch may use. */
  public record LaunchSubnet(String id, String zone, String zoneId, long availableIps) {}

  private final Ec2Client ec2;
  private final Clock clock;
  private final Map<String, Counted> counts = new LinkedHashMap<>();

  private record Counted(long availableIps, Instant expires) {}

  public LaunchSubnets(Ec2Client ec2, Clock clock) {
    this.ec2 = Objects.requireNonNull(ec2, "ec2");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /**
   * zone → the subnet to launch into there, over the NodeClass's {@code status.subnets}.
   *
   * @throws IllegalArgumentException when the status has no subnets
   * @throws software.amazon.awssdk.core.exception.SdkException when DescribeSubnets fails
   */
  public Map<String, LaunchSubnet> zonalSubnetsForLaunch(EC2NodeClass nodeClass) {
    List<Subnet> subnets = nodeClass.getStatus() == null || nodeClass.getStatus().getSubnets() == null ? List.of() : nodeClass.getStatus().getSubnets();
    if (subnets.isEmpty()) {
      throw new IllegalArgumentException("EC2NodeClass " + nodeClass.getMetadata().getName() + ": no subnets are present in the status");
    }
    refresh(subnets);
    Map<String, LaunchSubnet> byZone = new LinkedHashMap<>();
    synchronized (this) {
      for (Subnet s : subnets) {
        Counted c = counts.get(s.getId());
        LaunchSubnet candidate = new LaunchSubnet(s.getId(), s.getZone(), s.getZoneID(), c == null ? 0 : c.availableIps());
        LaunchSubnet best = byZone.get(s.getZone());
        if (best == null || candidate.availableIps() > best.availableIps()) {
          byZone.put(s.getZone(), candidate);
        }
      }
    }
    return byZone;
  }

  /** Serialises DescribeSubnets, so that many launches at once describe the subnets once. */
  private final Object refreshing = new Object();

  private void refresh(List<Subnet> subnets) {
    synchronized (refreshing) {
      refreshStale(subnets);
    }
  }

  private void refreshStale(List<Subnet> subnets) {
    Instant now = clock.instant();
    List<String> stale = new ArrayList<>();
    synchronized (this) {
      for (Subnet s : subnets) {
        Counted c = counts.get(s.getId());
        if (c == null || !c.expires().isAfter(now)) {
          stale.add(s.getId());
        }
      }
    }
    if (stale.isEmpty()) {
      return;
    }
    Map<String, Long> described = new LinkedHashMap<>();
    ec2.describeSubnets(r -> r.subnetIds(new TreeSet<>(stale))).subnets()
        .forEach(s -> described.put(s.subnetId(), s.availableIpAddressCount() == null ? 0L : s.availableIpAddressCount().longValue()));
    synchronized (this) {
      for (String id : stale) {
        counts.put(id, new Counted(described.getOrDefault(id, 0L), now.plus(TTL)));
      }
    }
  }

  /** One address of the subnet is in use now (upstream tracks in-flight IPs the same way). */
  public synchronized void launched(String subnetId) {
    Counted c = counts.get(subnetId);
    if (c != null) {
      counts.put(subnetId, new Counted(Math.max(0, c.availableIps() - 1), c.expires()));
    }
  }

  /** The subnet ran out of addresses: sorted last until the next describe (upstream's {@code UpdateICEdSubnet}). */
  public synchronized void exhausted(String subnetId) {
    Counted c = counts.get(subnetId);
    if (c != null) {
      counts.put(subnetId, new Counted(0, c.expires()));
    }
  }
}
