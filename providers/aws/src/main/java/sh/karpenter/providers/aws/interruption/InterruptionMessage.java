package sh.karpenter.providers.aws.interruption;

import java.time.Instant;
import java.util.List;

/**
 * A parsed interruption event (upstream's {@code messages.Message}).
 *
 * @param kind what happened
 * @param instanceIds the EC2 instances it is about (none for {@link Kind#NO_OP})
 * @param startTime the event's {@code time}, or {@link Instant#EPOCH} when it has none; the queue
 *     latency metric measures from it
 * @param id the EventBridge event ID, "" when absent (for logs)
 */
public record InterruptionMessage(Kind kind, List<String> instanceIds, Instant startTime, String id) {
  public InterruptionMessage {
    instanceIds = List.copyOf(instanceIds);
  }

  static InterruptionMessage noOp(Instant startTime, String id) {
    return new InterruptionMessage(Kind.NO_OP, List.of(), startTime, id);
  }
}
