package sh.karpenter.providers.aws.interruption;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.OperatorContext;
import sh.karpenter.controller.operator.OperatorExtension;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;
import sh.karpenter.providers.aws.sqs.SqsProvider;
import software.amazon.awssdk.services.sqs.model.Message;

/**
 * The interruption controller (upstream's AWS {@code controllers/interruption.Controller}, named
 * {@code interruption}): a leader-only singleton loop that receives up to ten messages from the
 * interruption queue with long polling, handles them in parallel ({@value #PARALLELISM} at most), and
 * deletes each one it handled or could not parse. For every NodeClaim whose instance a message names it
 * publishes the message's event, marks a spot-interrupted offering unavailable, and, when the kind's
 * {@link Action} is {@link Action#CORDON_AND_DRAIN}, deletes the NodeClaim so the termination
 * controller taints, drains and terminates it while provisioning places its pods elsewhere ({@link
 * InterruptionHandler}, shared with the {@link InstanceStatusController}). A message
 * whose handling fails stays on the queue and is received again after its visibility timeout.
 * Behaviour: docs/behaviour/aws-interruption.md.
 */
public final class InterruptionController implements OperatorExtension {
  public static final String NAME = "interruption";
  /** Messages handled at once (upstream's {@code workqueue.ParallelizeUntil(ctx, 10, ...)}). */
  public static final int PARALLELISM = 10;
  private static final Logger LOG = LoggerFactory.getLogger(InterruptionController.class);

  private final SqsProvider queue;
  private final UnavailableOfferings unavailableOfferings;
  private final Clock clock;
  private final EventParser parser = new EventParser();
  private volatile InterruptionHandler handler;
  private volatile InterruptionMetrics metrics;
  private volatile boolean announced;

  public InterruptionController(SqsProvider queue, UnavailableOfferings unavailableOfferings, Clock clock) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.unavailableOfferings = unavailableOfferings;
    this.clock = clock;
  }

  @Override
  public void register(OperatorContext context) {
    bind(InterruptionTargets.kubernetes(context.client(), context.informers()), context.events(), context.metrics());
    context.loop(NAME, this::reconcile);
  }

  /** Binds the cluster side without an Operator (unit tests); registers the interruption metric families in {@code metrics}. */
  void bind(InterruptionTargets targets, EventRecorder events, Metrics metrics) {
    this.handler = new InterruptionHandler(targets, events, metrics, unavailableOfferings, clock);
    this.metrics = new InterruptionMetrics(metrics);
  }

  /**
   * One round: receive, handle each message, delete the handled and the unparseable ones. Runs again at
   * once (the loop's rate limit paces it), since a long poll already waited for messages. Throws when
   * a message could not be handled or deleted, after all of the round's messages were tried.
   */
  Result reconcile() throws InterruptedException {
    if (!announced) {
      LOG.info("watching interruption queue queue={}", queue.name());
      announced = true;
    }
    List<Message> messages = queue.receive();
    if (!messages.isEmpty()) {
      Parallel.forEach(NAME, "interruption messages", messages, PARALLELISM, this::handle);
    }
    return Result.done();
  }

  /** Parses, acts on and deletes one message; an unparseable one is logged and deleted. */
  void handle(Message message) {
    InterruptionMessage parsed;
    try {
      parsed = parser.parse(message.body());
    } catch (UnparseableMessageException e) {
      LOG.error("failed parsing interruption message queue={} messageId={}: {}", queue.name(), message.messageId(), e.getMessage());
      delete(message);
      return;
    }
    metrics.received(parsed.kind());
    handler.handle(parsed);
    if (!parsed.startTime().equals(Instant.EPOCH)) {
      metrics.queueDuration(Duration.between(parsed.startTime(), clock.instant()));
    }
    delete(message);
  }

  private void delete(Message message) {
    queue.delete(message);
    metrics.deleted();
  }
}
