package sh.karpenter.providers.aws.instancestatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.ec2.model.EbsStatusDetails;
import software.amazon.awssdk.services.ec2.model.EbsStatusSummary;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;
import software.amazon.awssdk.services.ec2.model.InstanceStatusDetails;
import software.amazon.awssdk.services.ec2.model.InstanceStatusEvent;
import software.amazon.awssdk.services.ec2.model.InstanceStatusSummary;

/**
 * {@link InstanceStatusProvider} over an in-memory EC2 (upstream's {@code instancestatus} suite): the
 * three filtered calls, pages, one answer per instance, and which failed checks count.
 */
class InstanceStatusProviderTest {
  private static final Instant NOW = Instant.parse("2026-11-26T01:00:00Z");
  private static final String INSTANCE = "i-0123456789";

  private final TestingInstanceStatuses ec2 = new TestingInstanceStatuses();
  private final InstanceStatusProvider provider = new InstanceStatusProvider(ec2, Clock.fixed(NOW, ZoneOffset.UTC));

  @Test
  void asksOncePerFilterSetWithUpstreamsFilters() {
    provider.list();

    assertThat(ec2.requests).extracting(r -> r.filters().getFirst().name()).containsExactly("instance-status.status", "system-status.status",
        "event.code");
    assertThat(ec2.requests).allSatisfy(r -> assertThat(r.filters()).hasSize(1));
    assertThat(ec2.requests.get(0).filters().getFirst().values()).containsExactly("impaired");
    assertThat(ec2.requests.get(1).filters().getFirst().values()).containsExactly("impaired");
    assertThat(ec2.requests.get(2).filters().getFirst().values())
        .containsExactly("instance-reboot", "system-reboot", "system-maintenance", "instance-retirement", "instance-stop");
  }

  @Test
  void returnsEveryCountingDetailOfAnImpairedInstance() {
    Instant impaired = NOW.minus(Duration.ofHours(1));
    InstanceStatusSummary failed = InstanceStatusSummary.builder().status("impaired")
        .details(InstanceStatusDetails.builder().name("reachability").status("failed").impairedSince(impaired).build()).build();
    ec2.add(InstanceStatus.builder().instanceId(INSTANCE).instanceStatus(failed).systemStatus(failed)
        .attachedEbsStatus(EbsStatusSummary.builder().status("impaired")
            .details(EbsStatusDetails.builder().name("reachability").status("failed").impairedSince(impaired).build()).build())
        .events(InstanceStatusEvent.builder().code("instance-retirement").build())
        .build());

    List<HealthStatus> statuses = provider.list();

    assertThat(statuses).hasSize(1);
    assertThat(statuses.getFirst().instanceId()).isEqualTo(INSTANCE);
    assertThat(statuses.getFirst().impairedSince()).isEqualTo(impaired);
    assertThat(statuses.getFirst().details()).containsExactly(
        new Details(Category.INSTANCE_STATUS, "reachability", "failed", impaired),
        new Details(Category.SYSTEM_STATUS, "reachability", "failed", impaired),
        new Details(Category.EBS_STATUS, "reachability", "failed", impaired),
        new Details(Category.EVENT_STATUS, "instance-retirement", "failed", NOW));
    assertThat(ec2.requests).hasSize(3);
  }

  @Test
  void healthyAndInitializingChecksAreNotReturned() {
    ec2.add(InstanceStatus.builder().instanceId(INSTANCE)
        .instanceStatus(InstanceStatusSummary.builder().status("insufficient-data")
            .details(InstanceStatusDetails.builder().name("reachability").status("insufficient-data").build()).build())
        .systemStatus(InstanceStatusSummary.builder().status("initializing")
            .details(InstanceStatusDetails.builder().name("reachability").status("initializing").build()).build())
        .build());
    List<Details> details = InstanceStatusProvider.details(ec2.statuses.getFirst(), NOW);

    assertThat(InstanceStatusProvider.unhealthy(details, INSTANCE, NOW)).isNull();
    assertThat(provider.list()).isEmpty();
  }

  @Test
  void aFailedCheckCountsOnlyFromTheUnhealthyThreshold() {
    Instant since = NOW.minus(InstanceStatusProvider.UNHEALTHY_THRESHOLD);
    List<Details> atThreshold = List.of(new Details(Category.SYSTEM_STATUS, "reachability", "failed", since));
    List<Details> justBefore = List.of(new Details(Category.SYSTEM_STATUS, "reachability", "failed", since.plusMillis(1)));

    assertThat(InstanceStatusProvider.unhealthy(atThreshold, INSTANCE, NOW)).isNotNull();
    assertThat(InstanceStatusProvider.unhealthy(justBefore, INSTANCE, NOW)).isNull();
    assertThat(InstanceStatusProvider.unhealthy(
        List.of(new Details(Category.EBS_STATUS, "reachability", "failed", since.plusSeconds(1))), INSTANCE, NOW)).isNull();
  }

  @Test
  void aFailedCheckWithoutImpairedSinceIsPastTheThreshold() {
    ec2.add(InstanceStatus.builder().instanceId(INSTANCE)
        .instanceStatus(InstanceStatusSummary.builder().status("impaired")
            .details(InstanceStatusDetails.builder().name("reachability").status("failed").build()).build())
        .build());

    assertThat(provider.list()).singleElement().satisfies(s -> assertThat(s.impairedSince()).isEqualTo(Instant.EPOCH));
  }

  @Test
  void aScheduledEventCountsAtOnceEvenWhenTheChecksPass() {
    ec2.add(TestingInstanceStatuses.scheduled(INSTANCE, "system-maintenance"));

    List<HealthStatus> statuses = provider.list();

    assertThat(statuses).singleElement().satisfies(s -> {
      assertThat(s.details()).containsExactly(new Details(Category.EVENT_STATUS, "system-maintenance", "failed", NOW));
      assertThat(s.impairedSince()).isEqualTo(NOW);
    });
  }

  @Test
  void theImpairedSinceOfTheStatusIsItsEarliestCountingDetail() {
    Instant early = NOW.minus(Duration.ofHours(2));
    Instant late = NOW.minus(Duration.ofMinutes(10));
    Instant tooRecent = NOW.minusSeconds(5);
    List<Details> details = List.of(
        new Details(Category.INSTANCE_STATUS, "reachability", "failed", late),
        new Details(Category.SYSTEM_STATUS, "reachability", "failed", early),
        new Details(Category.SYSTEM_STATUS, "reachability", "passed", Instant.EPOCH),
        new Details(Category.INSTANCE_STATUS, "reachability", "failed", tooRecent));

    HealthStatus status = InstanceStatusProvider.unhealthy(details, INSTANCE, NOW);

    assertThat(status.impairedSince()).isEqualTo(early);
    assertThat(status.details()).extracting(Details::impairedSince).containsExactly(late, early);
  }

  @Test
  void anInstanceInSeveralAnswersIsReturnedOnceAndEveryPageIsRead() {
    Instant since = NOW.minus(Duration.ofHours(1));
    ec2.pageSize = 2;
    for (int i = 0; i < 5; i++) {
      ec2.add(TestingInstanceStatuses.impaired("i-" + i, true, since));
    }
    InstanceStatus both = TestingInstanceStatuses.impaired("i-both", true, since).toBuilder()
        .systemStatus(TestingInstanceStatuses.impaired("i-both", false, since).systemStatus())
        .events(InstanceStatusEvent.builder().code("instance-stop").build()).build();
    ec2.add(both);

    List<HealthStatus> statuses = provider.list();

    assertThat(statuses).extracting(HealthStatus::instanceId).containsExactly("i-0", "i-1", "i-2", "i-3", "i-4", "i-both");
    assertThat(statuses.getLast().details()).extracting(Details::category)
        .containsExactly(Category.INSTANCE_STATUS, Category.SYSTEM_STATUS, Category.EVENT_STATUS);
    assertThat(ec2.requests).hasSize(3 + 1 + 1); // 6 impaired instance statuses in 3 pages, then one page each
  }

  @Test
  void anSdkFailureIsThrown() {
    ec2.failNext("UnauthorizedOperation", 1);

    assertThatThrownBy(provider::list).isInstanceOfSatisfying(AwsServiceException.class,
        e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("UnauthorizedOperation"));
  }
}
