package sh.karpenter.providers.aws.interruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static sh.karpenter.providers.aws.interruption.InterruptionControllerTest.node;
import static sh.karpenter.providers.aws.interruption.InterruptionControllerTest.nodeClaim;

import io.fabric8.kubernetes.client.KubernetesClientException;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.runtime.TestingEventRecorder.RecordedEvent;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.providers.aws.instancestatus.Category;
import sh.karpenter.providers.aws.instancestatus.InstanceStatusProvider;
import sh.karpenter.providers.aws.instancestatus.TestingInstanceStatuses;
import software.amazon.awssdk.services.ec2.model.EbsStatusDetails;
import software.amazon.awssdk.services.ec2.model.EbsStatusSummary;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;

/**
 * {@link InstanceStatusController} over an in-memory EC2 and in-memory NodeClaims (upstream's
 * instance-status cases of the interruption suite): category → kind → action, the termination
 * timestamp of a forceful termination, the unhealthy counter once per instance and category, the
 * denied permission.
 */
class InstanceStatusControllerTest {
  private static final Instant NOW = Instant.parse("2026-11-26T01:00:30Z");
  private static final Instant LONG_AGO = NOW.minus(Duration.ofHours(1));
  private static final String INSTANCE = "i-0123456789abcdef0";
  private static final String OTHER = "i-0fedcba9876543210";

  private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
  private TestingInstanceStatuses ec2;
  private TestingInterruptionTargets targets;
  private TestingEventRecorder events;
  private CollectorRegistry registry;
  private InstanceStatusController controller;

  @BeforeEach
  void setUp() {
    ec2 = new TestingInstanceStatuses();
    targets = new TestingInterruptionTargets();
    events = new TestingEventRecorder();
    registry = new CollectorRegistry();
    controller = new InstanceStatusController(new InstanceStatusProvider(ec2, clock), clock, InstanceStatusController.INTERVAL);
    controller.bind(targets, events, new Metrics(registry));
    targets.add(nodeClaim("claim-a", INSTANCE, "on-demand"));
    targets.add(node(INSTANCE));
  }

  @Test
  void categoriesAreUpstreamsKinds() {
    assertThat(InstanceStatusController.kind(Category.INSTANCE_STATUS)).contains(Kind.INSTANCE_STATUS);
    assertThat(InstanceStatusController.kind(Category.SYSTEM_STATUS)).contains(Kind.SYSTEM_STATUS);
    assertThat(InstanceStatusController.kind(Category.EVENT_STATUS)).contains(Kind.EVENT_STATUS);
    assertThat(InstanceStatusController.kind(Category.EBS_STATUS)).isEmpty();
    assertThat(Kind.INSTANCE_STATUS.action()).isEqualTo(Action.FORCEFUL_TERMINATION);
    assertThat(Kind.SYSTEM_STATUS.action()).isEqualTo(Action.FORCEFUL_TERMINATION);
    assertThat(Kind.EVENT_STATUS.action()).isEqualTo(Action.CORDON_AND_DRAIN);
  }

  @Test
  void aFailedSystemCheckTerminatesTheNodeClaimForcefully() throws Exception {
    ec2.add(TestingInstanceStatuses.impaired(INSTANCE, false, LONG_AGO));

    Result result = controller.reconcile();

    assertThat(result.requeueAfter()).isEqualTo(Duration.ofMinutes(1));
    assertThat(targets.terminationTimestamps).containsEntry("claim-a", "2026-11-26T01:00:30Z");
    assertThat(targets.deleted).containsExactly("claim-a");
    assertThat(disrupted("system_status")).isEqualTo(1.0);
    assertThat(unhealthy("SystemStatus")).isEqualTo(1.0);
    assertThat(events.events()).containsExactlyInAnyOrder(
        new RecordedEvent("NodeClaim", null, "claim-a", "Warning", "InstanceUnhealthy", "An unhealthy warning was triggered for the instance"),
        new RecordedEvent("Node", null, INSTANCE, "Warning", "InstanceUnhealthy", "An unhealthy warning was triggered for the instance"),
        new RecordedEvent("NodeClaim", null, "claim-a", "Warning", "TerminatingOnInterruption", "Interruption triggered termination for the NodeClaim"),
        new RecordedEvent("Node", null, INSTANCE, "Warning", "TerminatingOnInterruption", "Interruption triggered termination for the Node"));
  }

  @Test
  void aFailedInstanceCheckTerminatesTheNodeClaimForcefully() throws Exception {
    ec2.add(TestingInstanceStatuses.impaired(INSTANCE, true, LONG_AGO));

    controller.reconcile();

    assertThat(targets.terminationTimestamps).containsKey("claim-a");
    assertThat(targets.deleted).containsExactly("claim-a");
    assertThat(disrupted("instance_status")).isEqualTo(1.0);
    assertThat(unhealthy("InstanceStatus")).isEqualTo(1.0);
  }

  @Test
  void aScheduledEventDrainsWithoutATerminationTimestamp() throws Exception {
    ec2.add(TestingInstanceStatuses.scheduled(INSTANCE, "instance-retirement"));

    controller.reconcile();

    assertThat(targets.terminationTimestamps).isEmpty();
    assertThat(targets.deleted).containsExactly("claim-a");
    assertThat(disrupted("event_status")).isEqualTo(1.0);
    assertThat(unhealthy("EventStatus")).isEqualTo(1.0);
  }

  @Test
  void aSystemFailureAndAScheduledEventTerminateForcefullyOnce() throws Exception {
    targets.finalizers = true;
    ec2.add(TestingInstanceStatuses.impaired(INSTANCE, false, LONG_AGO).toBuilder()
        .events(TestingInstanceStatuses.scheduled(INSTANCE, "instance-retirement").events()).build());

    controller.reconcile();

    assertThat(targets.terminationTimestamps).containsKey("claim-a");
    assertThat(targets.deleted).containsExactly("claim-a");
    assertThat(unhealthy("SystemStatus")).isEqualTo(1.0);
    assertThat(unhealthy("EventStatus")).isEqualTo(1.0);
  }

  @Test
  void anExistingTerminationTimestampIsKept() throws Exception {
    targets.nodeClaims.get(INSTANCE).getMetadata().setAnnotations(java.util.Map.of(Annotations.NODE_CLAIM_TERMINATION_TIMESTAMP, "2026-11-26T02:00:00Z"));
    ec2.add(TestingInstanceStatuses.impaired(INSTANCE, true, LONG_AGO));

    controller.reconcile();

    assertThat(targets.terminationTimestamps).isEmpty();
    assertThat(targets.deleted).containsExactly("claim-a");
  }

  @Test
  void aCheckFailingForLessThanTheThresholdIsLeftAlone() throws Exception {
    ec2.add(TestingInstanceStatuses.impaired(INSTANCE, true, NOW.minusSeconds(119)));

    controller.reconcile();

    assertThat(targets.deleted).isEmpty();
    assertThat(events.events()).isEmpty();
    assertThat(unhealthy("InstanceStatus")).isZero();
  }

  @Test
  void aFailedEbsCheckIsNotActedOn() throws Exception {
    ec2.add(InstanceStatus.builder().instanceId(INSTANCE).instanceStatus(s -> s.status("impaired"))
        .attachedEbsStatus(EbsStatusSummary.builder().status("impaired")
            .details(EbsStatusDetails.builder().name("reachability").status("failed").impairedSince(LONG_AGO).build()).build())
        .build());

    controller.reconcile();

    assertThat(targets.deleted).isEmpty();
    assertThat(events.events()).isEmpty();
    assertThat(unhealthy("EBSStatus")).isZero();
  }

  @Test
  void anInstanceNoNodeClaimHasIsNeitherActedOnNorCounted() throws Exception {
    ec2.add(TestingInstanceStatuses.impaired(OTHER, true, LONG_AGO));

    controller.reconcile();

    assertThat(targets.deleted).isEmpty();
    assertThat(unhealthy("InstanceStatus")).isZero();
  }

  @Test
  void theCounterCountsAnUnhealthyInstanceOnceAcrossPolls() throws Exception {
    targets.finalizers = true;
    ec2.add(TestingInstanceStatuses.impaired(INSTANCE, true, LONG_AGO));

    controller.reconcile();
    controller.reconcile();
    controller.reconcile();

    assertThat(unhealthy("InstanceStatus")).isEqualTo(1.0);
    assertThat(targets.deleted).as("a NodeClaim already being deleted is not deleted again").containsExactly("claim-a");
    assertThat(disrupted("instance_status")).isEqualTo(1.0);
  }

  @Test
  void theCounterCountsEachUnhealthyInstance() throws Exception {
    targets.finalizers = true;
    targets.add(nodeClaim("claim-b", OTHER, "on-demand"));
    ec2.add(TestingInstanceStatuses.impaired(INSTANCE, true, LONG_AGO));
    ec2.add(TestingInstanceStatuses.impaired(OTHER, true, LONG_AGO));

    controller.reconcile();
    assertThat(unhealthy("InstanceStatus")).isEqualTo(2.0);
    controller.reconcile();
    assertThat(unhealthy("InstanceStatus")).isEqualTo(2.0);
  }

  @Test
  void anInstanceThatRecoversAndFailsAgainIsCountedAgain() throws Exception {
    targets.finalizers = true;
    InstanceStatus impaired = TestingInstanceStatuses.impaired(INSTANCE, true, LONG_AGO);
    ec2.add(impaired);
    controller.reconcile();

    ec2.statuses.clear();
    controller.reconcile();
    ec2.add(impaired);
    controller.reconcile();

    assertThat(unhealthy("InstanceStatus")).isEqualTo(2.0);
  }

  @Test
  void theSeenSetForgetsWhatARoundDidNotObserve() {
    UnhealthyInstances seen = new UnhealthyInstances();
    seen.begin();
    assertThat(seen.observe(INSTANCE, Category.INSTANCE_STATUS)).isTrue();
    assertThat(seen.observe(INSTANCE, Category.SYSTEM_STATUS)).isTrue();
    assertThat(seen.observe(INSTANCE, Category.INSTANCE_STATUS)).isFalse();
    seen.end();
    assertThat(seen.size()).isEqualTo(2);

    seen.begin();
    assertThat(seen.observe(INSTANCE, Category.SYSTEM_STATUS)).isFalse();
    seen.end();
    assertThat(seen.size()).isEqualTo(1);

    seen.begin();
    assertThat(seen.observe(INSTANCE, Category.INSTANCE_STATUS)).as("forgotten, so counted again").isTrue();
  }

  @Test
  void aDeniedPermissionIsLoggedOnceAndNotAskedAgain() throws Exception {
    ec2.failNext("UnauthorizedOperation", 1);
    ec2.add(TestingInstanceStatuses.impaired(INSTANCE, true, LONG_AGO));

    assertThat(controller.reconcile().requeueAfter()).isEqualTo(Duration.ofMinutes(1));
    assertThat(controller.denied()).isTrue();
    controller.reconcile();
    controller.reconcile();

    assertThat(ec2.requests).hasSize(1);
    assertThat(targets.deleted).isEmpty();
  }

  @Test
  void anotherEc2FailureIsThrownAndRetried() throws Exception {
    ec2.failNext("RequestLimitExceeded", 1);

    assertThatThrownBy(controller::reconcile).hasMessageContaining("getting instance statuses: RequestLimitExceeded");
    assertThat(controller.denied()).isFalse();
    controller.reconcile();
    assertThat(ec2.requests).hasSize(1 + 3);
  }

  @Test
  void aFailedDeletionFailsTheRoundAfterEveryInstanceWasTried() {
    targets.add(nodeClaim("claim-b", OTHER, "on-demand"));
    targets.deleteFailure = new KubernetesClientException("the API server is away", 503, null);
    ec2.add(TestingInstanceStatuses.impaired(INSTANCE, true, LONG_AGO));
    ec2.add(TestingInstanceStatuses.impaired(OTHER, false, LONG_AGO));

    assertThatThrownBy(controller::reconcile).hasMessageContaining("2 of 2 unhealthy instances failed")
        .hasMessageContaining("API server is away");
    assertThat(targets.terminationTimestamps).containsOnlyKeys("claim-a", "claim-b");
    assertThat(unhealthy("InstanceStatus")).isZero();
  }

  private double unhealthy(String category) {
    return Optional.ofNullable(registry.getSampleValue(InstanceStatusMetrics.UNHEALTHY, new String[] {"category"}, new String[] {category}))
        .orElse(0.0);
  }

  private double disrupted(String reason) {
    return Optional.ofNullable(registry.getSampleValue("karpenter_nodeclaims_disrupted_total",
        new String[] {"reason", "nodepool", "capacity_type", "consolidation_policy", "termination_mode"},
        new String[] {reason, "default", "on-demand", "", "graceful"})).orElse(0.0);
  }
}
