package sh.karpenter.providers.aws.interruption;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.prometheus.client.CollectorRegistry;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.metrics.Metrics;

/** The interruption families under upstream's names, types and labels, on a real scrape of the Operator's registry. */
class InterruptionMetricsTest {

  @Test
  void familiesAreUpstreamsOnTheOperatorsScrape() {
    Metrics metrics = new Metrics(new CollectorRegistry());
    InterruptionMetrics interruption = new InterruptionMetrics(metrics);
    interruption.received(Kind.SPOT_INTERRUPTED);
    interruption.deleted();
    interruption.queueDuration(Duration.ofMillis(1500));

    String scrape = metrics.scrape();

    assertThat(scrape)
        .contains("# TYPE karpenter_interruption_received_messages_total counter")
        .contains("karpenter_interruption_received_messages_total{message_type=\"spot_interrupted\",} 1.0")
        .contains("# TYPE karpenter_interruption_deleted_messages_total counter")
        .contains("karpenter_interruption_deleted_messages_total 1.0")
        .contains("# TYPE karpenter_interruption_message_queue_duration_seconds histogram")
        .contains("karpenter_interruption_message_queue_duration_seconds_bucket{le=\"600.0\",} 1.0")
        .contains("karpenter_interruption_message_queue_duration_seconds_sum 1.5")
        .doesNotContain("karpenter_interruption_deleted_messages_created", "karpenter_interruption_received_messages_created");
  }

  @Test
  void kindsAreUpstreamsMessageTypes() {
    assertThat(java.util.Arrays.stream(Kind.values()).map(Kind::value)).containsExactly("spot_interrupted", "rebalance_recommendation",
        "scheduled_change", "instance_stopped", "instance_terminated", "capacity_reservation_interrupted", "instance_status", "system_status",
        "event_status", "no_op");
  }

  @Test
  void recordsNothingWithoutARegistry() {
    InterruptionMetrics interruption = new InterruptionMetrics(Metrics.noop());
    assertThatCode(() -> {
      interruption.received(Kind.NO_OP);
      interruption.deleted();
      interruption.queueDuration(Duration.ofSeconds(1));
    }).doesNotThrowAnyException();
  }
}
