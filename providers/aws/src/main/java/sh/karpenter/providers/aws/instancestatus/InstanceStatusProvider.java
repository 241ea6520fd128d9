package sh.karpenter.providers.aws.instancestatus;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceStatusRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceStatusResponse;
import software.amazon.awssdk.services.ec2.model.EventCode;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;
import software.amazon.awssdk.services.ec2.model.InstanceStatusDetails;
import software.amazon.awssdk.services.ec2.model.InstanceStatusEvent;
import software.amazon.awssdk.services.ec2.model.SummaryStatus;

/**
 * The instances with failed status checks or scheduled events (upstream's {@code
 * instancestatus.DefaultProvider}). {@link #list()} calls DescribeInstanceStatus once per filter set of
 * {@link #FILTERS} (EC2 ANDs filters of different names, and the three conditions must be ORed), every
 * page of each, keeps each instance once (its first answer), and returns those with a failed check that
 * counts: an instance or system check that has failed for at least {@link #UNHEALTHY_THRESHOLD}, any
 * attached EBS check that has (reported, not acted on), or a scheduled event, which counts at once.
 * SDK failures ({@code UnauthorizedOperation} included) are thrown to the caller.
 */
public final class InstanceStatusProvider {
  /** How long an instance or system check must have been failing before it counts (upstream's 120 s). */
  public static final Duration UNHEALTHY_THRESHOLD = Duration.ofSeconds(120);
  /** EC2's status of a failed check. */
  public static final String FAILED = "failed";
  /**
   * Upstream's {@code instanceStatusFilters}: impaired instance status; impaired system status; a
   * scheduled event of one of the five codes. EBS status is not asked for.
   */
  public static final List<Filter> FILTERS = List.of(
      Filter.builder().name("instance-status.status").values(SummaryStatus.IMPAIRED.toString()).build(),
      Filter.builder().name("system-status.status").values(SummaryStatus.IMPAIRED.toString()).build(),
      Filter.builder().name("event.code").values(EventCode.INSTANCE_REBOOT.toString(), EventCode.SYSTEM_REBOOT.toString(),
          EventCode.SYSTEM_MAINTENANCE.toString(), EventCode.INSTANCE_RETIREMENT.toString(), EventCode.INSTANCE_STOP.toString()).build());

  private final Ec2Client ec2;
  private final Clock clock;

  public InstanceStatusProvider(Ec2Client ec2, Clock clock) {
    this.ec2 = Objects.requireNonNull(ec2, "ec2");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** The unhealthy instances, each once, in the order EC2 first named them. */
  public List<HealthStatus> list() {
    Map<String, InstanceStatus> statuses = new LinkedHashMap<>();
    for (Filter filter : FILTERS) {
      String nextToken = null;
      do {
        String token = nextToken;
        DescribeInstanceStatusResponse page = ec2.describeInstanceStatus(DescribeInstanceStatusRequest.builder()
            .filters(filter).nextToken(token).build());
        for (InstanceStatus status : page.instanceStatuses()) {
          if (status.instanceId() != null) {
            statuses.putIfAbsent(status.instanceId(), status);
          }
        }
        nextToken = page.nextToken() == null || page.nextToken().isEmpty() ? null : page.nextToken();
      } while (nextToken != null);
    }
    Instant now = clock.instant();
    List<HealthStatus> unhealthy = new ArrayList<>();
    for (InstanceStatus status : statuses.values()) {
      HealthStatus health = unhealthy(details(status, now), status.instanceId(), now);
      if (health != null) {
        unhealthy.add(health);
      }
    }
    return unhealthy;
  }

  /**
   * The checks that count (upstream's filter in {@code List}): failed ones, scheduled events always,
   * instance, system and EBS checks only once they have failed for {@link #UNHEALTHY_THRESHOLD}; null
   * when none does.
   */
  static HealthStatus unhealthy(List<Details> details, String instanceId, Instant now) {
    List<Details> counted = details.stream()
        .filter(d -> FAILED.equals(d.status()))
        .filter(d -> d.category() == Category.EVENT_STATUS || Duration.between(d.impairedSince(), now).compareTo(UNHEALTHY_THRESHOLD) >= 0)
        .toList();
    if (counted.isEmpty()) {
      return null;
    }
    Instant since = counted.stream().map(Details::impairedSince).min(Comparator.naturalOrder()).orElseThrow();
    return new HealthStatus(instanceId, since, counted);
  }

  /** Every check and event of one answer (upstream's {@code newHealthStatus}); events are failures since {@code now}. */
  static List<Details> details(InstanceStatus status, Instant now) {
    List<Details> details = new ArrayList<>();
    if (status.instanceStatus() != null) {
      status.instanceStatus().details().forEach(d -> details.add(details(Category.INSTANCE_STATUS, d)));
    }
    if (status.systemStatus() != null) {
      status.systemStatus().details().forEach(d -> details.add(details(Category.SYSTEM_STATUS, d)));
    }
    if (status.attachedEbsStatus() != null) {
      status.attachedEbsStatus().details().forEach(d -> details.add(
          new Details(Category.EBS_STATUS, d.nameAsString(), d.statusAsString(), orEpoch(d.impairedSince()))));
    }
    for (InstanceStatusEvent event : status.events()) {
      details.add(new Details(Category.EVENT_STATUS, event.codeAsString(), FAILED, now));
    }
    return details;
  }

  private static Details details(Category category, InstanceStatusDetails check) {
    return new Details(category, check.nameAsString(), check.statusAsString(), orEpoch(check.impairedSince()));
  }

  private static Instant orEpoch(Instant time) {
    return time == null ? Instant.EPOCH : time;
  }
}
