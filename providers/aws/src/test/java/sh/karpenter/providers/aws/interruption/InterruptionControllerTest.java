package sh.karpenter.providers.aws.interruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.runtime.TestingEventRecorder.RecordedEvent;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;
import sh.karpenter.providers.aws.sqs.SqsProvider;

/**
 * {@link InterruptionController} over an in-memory queue and in-memory NodeClaims: which kinds delete
 * the NodeClaim, the events, the unavailable offering, the metrics, poison messages and failures.
 */
class InterruptionControllerTest {
  private static final Instant NOW = Instant.parse("2026-11-26T01:00:30Z");
  private static final Instant SENT = NOW.minusSeconds(30);
  private static final String INSTANCE = "i-0123456789abcdef0";

  private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
  private TestingSqsClient sqs;
  private TestingInterruptionTargets targets;
  private TestingEventRecorder events;
  private CollectorRegistry registry;
  private UnavailableOfferings unavailable;
  private InterruptionController controller;

  @BeforeEach
  void setUp() {
    sqs = new TestingSqsClient("interruptions");
    targets = new TestingInterruptionTargets();
    events = new TestingEventRecorder();
    registry = new CollectorRegistry();
    unavailable = new UnavailableOfferings(clock);
    controller = new InterruptionController(new SqsProvider(sqs, "interruptions", Duration.ZERO), unavailable, clock);
    controller.bind(targets, events, new Metrics(registry));
    targets.add(nodeClaim("spot-a", INSTANCE, "spot"));
    targets.add(node(INSTANCE));
  }

  @Test
  void aSpotInterruptionDeletesTheNodeClaimAndMarksTheOfferingUnavailable() throws Exception {
    sqs.send(InterruptionSamples.spotInterruption(INSTANCE, SENT));

    controller.reconcile();

    assertThat(targets.deleted).containsExactly("spot-a");
    assertThat(unavailable.unavailable("m5.large", "us-west-2a", "spot")).isTrue();
    assertThat(unavailable.unavailable("m5.large", "us-west-2a", "on-demand")).isFalse();
    assertThat(events.events()).containsExactlyInAnyOrder(
        new RecordedEvent("NodeClaim", null, "spot-a", "Warning", "SpotInterrupted", "Spot interruption warning was triggered"),
        new RecordedEvent("Node", null, INSTANCE, "Warning", "SpotInterrupted", "Spot interruption warning was triggered"),
        new RecordedEvent("NodeClaim", null, "spot-a", "Warning", "TerminatingOnInterruption", "Interruption triggered termination for the NodeClaim"),
        new RecordedEvent("Node", null, INSTANCE, "Warning", "TerminatingOnInterruption", "Interruption triggered termination for the Node"));
    assertThat(sqs.inFlight()).isZero();
    assertThat(sqs.waiting()).isZero();
    assertThat(metric(InterruptionMetrics.RECEIVED, "message_type", "spot_interrupted")).isEqualTo(1.0);
    assertThat(metric(InterruptionMetrics.DELETED)).isEqualTo(1.0);
    assertThat(registry.getSampleValue(InterruptionMetrics.QUEUE_DURATION + "_sum")).isEqualTo(30.0);
    assertThat(registry.getSampleValue("karpenter_nodeclaims_disrupted_total",
        new String[] {"reason", "nodepool", "capacity_type", "consolidation_policy", "termination_mode"},
        new String[] {"spot_interrupted", "default", "spot", "", "graceful"})).isEqualTo(1.0);
  }

  @Test
  void theReceiveIsUpstreamsLongPollOfTenMessages() throws Exception {
    controller.reconcile();
    var request = sqs.receives.getFirst();
    assertThat(request.queueUrl()).isEqualTo(TestingSqsClient.URL + "interruptions");
    assertThat(request.maxNumberOfMessages()).isEqualTo(10);
    assertThat(request.visibilityTimeout()).isEqualTo(20);
    assertThat(new SqsProvider(sqs, "interruptions").receive()).isEmpty();
    assertThat(sqs.receives.getLast().waitTimeSeconds()).isEqualTo(20);
  }

  @Test
  void cordonAndDrainKindsDeleteTheNodeClaim() throws Exception {
    for (String body : new String[] {
        InterruptionSamples.stateChange(INSTANCE, "stopping", SENT),
        InterruptionSamples.stateChange(INSTANCE, "stopped", SENT),
        InterruptionSamples.stateChange(INSTANCE, "shutting-down", SENT),
        InterruptionSamples.stateChange(INSTANCE, "terminated", SENT),
        InterruptionSamples.scheduledChange(INSTANCE, SENT),
        InterruptionSamples.capacityReservationInterruption(INSTANCE, SENT)}) {
      targets.nodeClaims.clear();
      targets.deleted.clear();
      targets.add(nodeClaim("claim", INSTANCE, "on-demand"));
      sqs.send(body);
      controller.reconcile();
      assertThat(targets.deleted).as(body).containsExactly("claim");
    }
    assertThat(unavailable.seq()).as("only spot interruptions mark offerings").isZero();
    assertThat(events.events()).extracting(RecordedEvent::reason)
        .contains("InstanceStopping", "InstanceTerminating", "InstanceUnhealthy", "CapacityReservationInstanceInterrupted");
    assertThat(metric(InterruptionMetrics.RECEIVED, "message_type", "instance_stopped")).isEqualTo(2.0);
    assertThat(metric(InterruptionMetrics.RECEIVED, "message_type", "instance_terminated")).isEqualTo(2.0);
    assertThat(metric(InterruptionMetrics.DELETED)).isEqualTo(6.0);
  }

  @Test
  void aRebalanceRecommendationIsOnlyAnEvent() throws Exception {
    sqs.send(InterruptionSamples.rebalanceRecommendation(INSTANCE, SENT));

    controller.reconcile();

    assertThat(targets.deleted).isEmpty();
    assertThat(events.events()).extracting(RecordedEvent::kind, RecordedEvent::type, RecordedEvent::reason).containsExactlyInAnyOrder(
        org.assertj.core.groups.Tuple.tuple("NodeClaim", "Normal", "SpotRebalanceRecommendation"),
        org.assertj.core.groups.Tuple.tuple("Node", "Normal", "SpotRebalanceRecommendation"));
    assertThat(sqs.inFlight()).isZero();
  }

  @Test
  void aPoisonMessageIsDeletedAndCountedButNotReceived() throws Exception {
    sqs.send("this is not an event");
    sqs.send("{\"version\":\"0\",\"source\":\"aws.ec2\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\",\"detail\":[]}");

    controller.reconcile();
    sqs.expireVisibility();
    controller.reconcile();

    assertThat(sqs.waiting() + sqs.inFlight()).isZero();
    assertThat(sqs.deletes).isEqualTo(2);
    assertThat(metric(InterruptionMetrics.DELETED)).isEqualTo(2.0);
    assertThat(registry.getSampleValue(InterruptionMetrics.RECEIVED + "_total")).isNull();
    assertThat(targets.deleted).isEmpty();
  }

  @Test
  void messagesAboutOtherInstancesAndUnknownEventsAreDeletedWithoutAction() throws Exception {
    sqs.send(InterruptionSamples.spotInterruption("i-00000000000000000", SENT));
    sqs.send(InterruptionSamples.sample("unknown-event"));
    sqs.send(InterruptionSamples.stateChange(INSTANCE, "running", SENT));

    controller.reconcile();

    assertThat(targets.deleted).isEmpty();
    assertThat(events.events()).isEmpty();
    assertThat(metric(InterruptionMetrics.RECEIVED, "message_type", "no_op")).isEqualTo(2.0);
    assertThat(metric(InterruptionMetrics.DELETED)).isEqualTo(3.0);
  }

  @Test
  void aNodeClaimAlreadyBeingDeletedIsNotDeletedAgain() throws Exception {
    NodeClaim deleting = nodeClaim("spot-a", INSTANCE, "spot");
    deleting.getMetadata().setDeletionTimestamp("2026-11-26T01:00:00Z");
    targets.add(deleting);
    sqs.send(InterruptionSamples.spotInterruption(INSTANCE, SENT));

    controller.reconcile();

    assertThat(targets.deleted).isEmpty();
    assertThat(unavailable.unavailable("m5.large", "us-west-2a", "spot")).isTrue();
    assertThat(events.events()).extracting(RecordedEvent::reason).doesNotContain("TerminatingOnInterruption");
    assertThat(metric(InterruptionMetrics.DELETED)).isEqualTo(1.0);
  }

  @Test
  void aMessageWhoseHandlingFailsStaysOnTheQueueAndTheOthersAreDeleted() throws Exception {
    targets.deleteFailure = new KubernetesClientException("the API server is away", 503, null);
    sqs.send(InterruptionSamples.spotInterruption(INSTANCE, SENT));
    sqs.send(InterruptionSamples.rebalanceRecommendation(INSTANCE, SENT));
    sqs.send("poison");

    assertThatThrownBy(controller::reconcile).hasMessageContaining("1 of 3 interruption messages failed").hasMessageContaining("API server is away");
    assertThat(sqs.inFlight()).isEqualTo(1);
    assertThat(metric(InterruptionMetrics.DELETED)).isEqualTo(2.0);

    targets.deleteFailure = null;
    sqs.expireVisibility();
    controller.reconcile();
    assertThat(targets.deleted).containsExactly("spot-a");
    assertThat(sqs.waiting() + sqs.inFlight()).isZero();
  }

  @Test
  void aBatchOfTenIsHandledCompletely() throws Exception {
    for (int i = 0; i < 25; i++) {
      String instance = "i-%017d".formatted(i);
      targets.add(nodeClaim("claim-" + i, instance, "spot"));
      sqs.send(InterruptionSamples.spotInterruption(instance, SENT));
    }
    controller.reconcile();
    assertThat(targets.deleted).hasSize(10);
    controller.reconcile();
    controller.reconcile();
    assertThat(targets.deleted).hasSize(25);
    assertThat(sqs.waiting() + sqs.inFlight()).isZero();
  }

  @Test
  void anUnknownQueueIsAnError() {
    var missing = new InterruptionController(new SqsProvider(sqs, "missing", Duration.ZERO), unavailable, clock);
    missing.bind(targets, events, Metrics.noop());
    assertThatThrownBy(missing::reconcile).hasMessageContaining("does not exist");
  }

  private double metric(String name, String... labels) {
    String[] names = new String[labels.length / 2];
    String[] values = new String[labels.length / 2];
    for (int i = 0; i < labels.length; i += 2) {
      names[i / 2] = labels[i];
      values[i / 2] = labels[i + 1];
    }
    Double value = registry.getSampleValue(name, names, values);
    return value == null ? 0 : value;
  }

  static NodeClaim nodeClaim(String name, String instanceId, String capacityType) {
    NodeClaim claim = new NodeClaim();
    claim.getMetadata().setName(name);
    claim.getMetadata().setUid("uid-" + name);
    claim.getMetadata().setLabels(Map.of(Labels.NODE_POOL, "default", Labels.CAPACITY_TYPE, capacityType,
        Labels.ZONE, "us-west-2a", Labels.INSTANCE_TYPE, "m5.large"));
    NodeClaimStatus status = new NodeClaimStatus();
    status.setProviderID("aws:///us-west-2a/" + instanceId);
    claim.setStatus(status);
    return claim;
  }

  static Node node(String instanceId) {
    return new NodeBuilder().withNewMetadata().withName(instanceId).endMetadata()
        .withNewSpec().withProviderID("aws:///us-west-2a/" + instanceId).endSpec().build();
  }
}
