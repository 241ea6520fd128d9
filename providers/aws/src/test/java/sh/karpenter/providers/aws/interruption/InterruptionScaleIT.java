package sh.karpenter.providers.aws.interruption;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.SingletonLoop;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;
import sh.karpenter.providers.aws.sqs.SqsProvider;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.TestObjects;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.SendMessageBatchRequestEntry;

/**
 * Measures the interruption controller draining a queue of many messages: the emulator's SQS queue
 * filled with {@code count} EventBridge messages (default 1,000; the first {@code nodeClaims}, default
 * 100, are spot interruption warnings for NodeClaims in the real API server, the rest cycle through
 * rebalance recommendations, scheduled changes, state changes and unknown events for instances of no
 * NodeClaim), then the controller's singleton loop (upstream's rate limit, receives of 10, 10 handled
 * at once) started on the real control plane's informers; the time until every message is deleted and
 * the messages per second are printed, not asserted. Off unless {@code
 * -Dkarpenter.aws.interruptionScale=true} ({@code -Dkarpenter.aws.interruptionScale.count=N}, {@code
 * .nodeClaims=M}). Figures: BENCHMARKS.md#interruption-handling.
 */
@ControlPlaneTest
@AwsEmulatorTest
@EnabledIfSystemProperty(named = "karpenter.aws.interruptionScale", matches = "true")
class InterruptionScaleIT {

  @Test
  void drainAQueueOfInterruptionMessages(KubernetesClient client, SqsClient sqs) throws Exception {
    int count = Integer.getInteger("karpenter.aws.interruptionScale.count", 1000);
    int nodeClaims = Math.min(count, Integer.getInteger("karpenter.aws.interruptionScale.nodeClaims", 100));
    String queue = "interruption-scale-" + UUID.randomUUID().toString().substring(0, 8);
    String url = sqs.createQueue(r -> r.queueName(queue)).queueUrl();

    TestObjects.createNodeClass(client);
    for (int i = 0; i < nodeClaims; i++) {
      NodeClaim claim = TestObjects.createNodeClaim(client, "interrupted-" + i, "default");
      NodeClaimStatus status = new NodeClaimStatus();
      status.setProviderID("aws:///us-west-2a/" + instanceId(i));
      claim.setStatus(status);
      client.resources(NodeClaim.class).resource(claim).updateStatus();
    }
    Duration fill = fill(sqs, url, count, nodeClaims);

    CollectorRegistry registry = new CollectorRegistry();
    try (Informers informers = new Informers(client)) {
      InterruptionController controller = new InterruptionController(new SqsProvider(sqs, queue, Duration.ofSeconds(1)),
          new UnavailableOfferings(Clock.systemUTC()), Clock.systemUTC());
      controller.bind(InterruptionTargets.kubernetes(client, informers), new TestingEventRecorder(), new Metrics(registry));
      informers.start();
      while (!informers.hasSynced()) {
        TimeUnit.MILLISECONDS.sleep(50);
      }
      try (SingletonLoop loop = new SingletonLoop(InterruptionController.NAME, controller::reconcile)) {
        long start = System.nanoTime();
        loop.start();
        while (deleted(registry) < count) {
          TimeUnit.MILLISECONDS.sleep(20);
        }
        Duration wall = Duration.ofNanos(System.nanoTime() - start);
        long runs = loop.runs();
        int remaining = client.resources(NodeClaim.class).list().getItems().size();
        System.out.printf("INTERRUPTION-SCALE: %d messages (%d for NodeClaims) handled and deleted in %d ms: %.1f messages/s; %d receives;"
                + " %d NodeClaims left (filling the queue took %d ms)%n", count, nodeClaims, wall.toMillis(), count / (wall.toNanos() / 1e9), runs,
            remaining, fill.toMillis());
        assertThat(remaining).isZero();
      }
    }

    // the emulator's own cost: the same number of messages received 10 at a time and deleted one by one, nothing else
    fill(sqs, url, count, 0);
    long start = System.nanoTime();
    int drained = 0;
    while (drained < count) {
      for (var message : sqs.receiveMessage(r -> r.queueUrl(url).maxNumberOfMessages(10).waitTimeSeconds(1)).messages()) {
        sqs.deleteMessage(r -> r.queueUrl(url).receiptHandle(message.receiptHandle()));
        drained++;
      }
    }
    Duration bare = Duration.ofNanos(System.nanoTime() - start);
    System.out.printf("INTERRUPTION-SCALE: baseline, %d messages received and deleted one by one with no handling, one thread: %d ms: %.1f messages/s%n",
        count, bare.toMillis(), count / (bare.toNanos() / 1e9));
  }

  /** {@code count} messages sent in batches of 10; how long that took. */
  private static Duration fill(SqsClient sqs, String url, int count, int nodeClaims) {
    long start = System.nanoTime();
    Instant sent = Instant.now();
    List<SendMessageBatchRequestEntry> batch = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      batch.add(SendMessageBatchRequestEntry.builder().id("m" + i).messageBody(message(i, nodeClaims, sent)).build());
      if (batch.size() == 10 || i == count - 1) {
        List<SendMessageBatchRequestEntry> entries = List.copyOf(batch);
        assertThat(sqs.sendMessageBatch(r -> r.queueUrl(url).entries(entries)).failed()).isEmpty();
        batch.clear();
      }
    }
    return Duration.ofNanos(System.nanoTime() - start);
  }

  private static double deleted(CollectorRegistry registry) {
    Double value = registry.getSampleValue(InterruptionMetrics.DELETED);
    return value == null ? 0 : value;
  }

  private static String instanceId(int i) {
    return "i-%017x".formatted(i);
  }

  private static String message(int i, int nodeClaims, Instant sent) {
    if (i < nodeClaims) {
      return InterruptionSamples.spotInterruption(instanceId(i), sent);
    }
    String other = instanceId(1_000_000 + i);
    return switch (i % 5) {
      case 0 -> InterruptionSamples.rebalanceRecommendation(other, sent);
      case 1 -> InterruptionSamples.scheduledChange(other, sent);
      case 2 -> InterruptionSamples.stateChange(other, "terminated", sent);
      case 3 -> InterruptionSamples.stateChange(other, "stopping", sent);
      default -> InterruptionSamples.sample("unknown-event");
    };
  }
}
