package sh.karpenter.providers.aws.interruption;

import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Histogram;
import java.time.Duration;
import sh.karpenter.controller.metrics.Metrics;

/**
 * Upstream's interruption queue metric families (AWS provider {@code controllers/interruption/metrics.go}),
 * registered in the Operator's registry so its scrape serves them. Records nothing with {@link
 * Metrics#noop()}. The core {@code karpenter_nodeclaims_disrupted_total} of each NodeClaim deleted is
 * {@link InterruptionHandler}'s; the fourth family is {@link InstanceStatusMetrics}.
 */
public final class InterruptionMetrics {
  public static final String RECEIVED = "karpenter_interruption_received_messages_total";
  public static final String DELETED = "karpenter_interruption_deleted_messages_total";
  public static final String QUEUE_DURATION = "karpenter_interruption_message_queue_duration_seconds";
  static final String MESSAGE_TYPE = "message_type";

  private final Counter received;
  private final Counter deleted;
  private final Histogram queueDuration;

  public InterruptionMetrics(Metrics metrics) {
    CollectorRegistry registry = metrics.registry().orElse(null);
    if (registry == null) {
      received = null;
      deleted = null;
      queueDuration = null;
      return;
    }
    received = Counter.build().name(RECEIVED)
        .help("Count of messages received from the SQS queue. Broken down by message type and whether the message was actionable.")
        .labelNames(MESSAGE_TYPE).register(registry);
    deleted = Counter.build().name(DELETED).help("Count of messages deleted from the SQS queue.").register(registry);
    queueDuration = Histogram.build().name(QUEUE_DURATION)
        .help("Amount of time an interruption message is on the queue before it is processed by karpenter.")
        .buckets(Metrics.durationBuckets()).register(registry);
  }

  /** A parsed message of this kind (unparseable messages are not counted here, only as deleted). */
  void received(Kind kind) {
    if (received != null) {
      received.labels(kind.value()).inc();
    }
  }

  /** A message deleted from the queue, handled or unparseable. */
  void deleted() {
    if (deleted != null) {
      deleted.inc();
    }
  }

  /** How long a handled message was on the queue: from its event time to the end of its handling. */
  void queueDuration(Duration onQueue) {
    if (queueDuration != null) {
      queueDuration.observe(Math.max(0, onQueue.toNanos() / 1e9));
    }
  }
}
