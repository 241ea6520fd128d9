package sh.karpenter.providers.aws.interruption;

import io.fabric8.kubernetes.api.model.Node;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.controller.operator.OperatorContext;
import sh.karpenter.controller.operator.OperatorExtension;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.core.wellknown.Labels;
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
 * controller taints, drains and terminates it while provisioning places its pods elsewhere. A message
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
  private volatile InterruptionTargets targets;
  private volatile EventRecorder events;
  private volatile InterruptionMetrics metrics;
  private volatile boolean announced;

  public InterruptionController(SqsProvider queue, UnavailableOfferings unavailableOfferings, Clock clock) {
    this.queue = Objects.requireNonNull(queue, "queue");
    this.unavailableOfferings = unavailableOfferings;
    this.clock = clock;
  }

  @Override
  public void register(OperatorContext context) {
    bind(InterruptionTargets.kubernetes(context.client(), context.informers()), context.events(), new InterruptionMetrics(context.metrics()));
    context.loop(NAME, this::reconcile);
  }

  /** Binds the cluster side without an Operator (unit tests). */
  void bind(InterruptionTargets targets, EventRecorder events, InterruptionMetrics metrics) {
    this.targets = targets;
    this.events = events;
    this.metrics = metrics;
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
    if (messages.isEmpty()) {
      return Result.done();
    }
    List<RuntimeException> failures = new ArrayList<>();
    Semaphore slots = new Semaphore(PARALLELISM);
    try (ExecutorService workers = Executors.newThreadPerTaskExecutor(Thread.ofVirtual().name("interruption-", 0).factory())) {
      List<Future<?>> handled = new ArrayList<>();
      for (Message message : messages) {
        slots.acquire();
        handled.add(workers.submit(() -> {
          try {
            handle(message);
          } finally {
            slots.release();
          }
        }));
      }
      for (Future<?> done : handled) {
        try {
          done.get();
        } catch (ExecutionException e) {
          failures.add(e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause()));
        }
      }
    }
    if (!failures.isEmpty()) {
      RuntimeException first = failures.getFirst();
      failures.stream().skip(1).forEach(first::addSuppressed);
      throw new IllegalStateException(failures.size() + " of " + messages.size() + " interruption messages failed, first: "
          + first.getMessage(), first);
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
    act(parsed);
    if (!parsed.startTime().equals(Instant.EPOCH)) {
      metrics.queueDuration(Duration.between(parsed.startTime(), clock.instant()));
    }
    delete(message);
  }

  private void delete(Message message) {
    queue.delete(message);
    metrics.deleted();
  }

  /** Upstream's {@code handleMessage}: every NodeClaim of every instance the message names. */
  void act(InterruptionMessage message) {
    if (message.kind() == Kind.NO_OP) {
      return;
    }
    RuntimeException failure = null;
    for (String instanceId : message.instanceIds()) {
      for (NodeClaim nodeClaim : targets.nodeClaims(instanceId)) {
        try {
          act(message, nodeClaim, targets.node(instanceId).orElse(null));
        } catch (RuntimeException e) {
          if (failure == null) {
            failure = e;
          } else {
            failure.addSuppressed(e);
          }
        }
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  /** Upstream's {@code handleNodeClaim}: the event, the unavailable offering, then the action. */
  private void act(InterruptionMessage message, NodeClaim nodeClaim, Node node) {
    Kind kind = message.kind();
    InterruptionEvents.notify(events, kind, nodeClaim, node);
    if (kind == Kind.SPOT_INTERRUPTED && unavailableOfferings != null) {
      Map<String, String> labels = nodeClaim.getMetadata().getLabels() == null ? Map.of() : nodeClaim.getMetadata().getLabels();
      String zone = labels.getOrDefault(Labels.ZONE, "");
      String instanceType = labels.getOrDefault(Labels.INSTANCE_TYPE, "");
      if (!zone.isEmpty() && !instanceType.isEmpty()) {
        unavailableOfferings.markUnavailable(instanceType, zone, Labels.CAPACITY_TYPE_SPOT, kind.value());
      }
    }
    if (kind.action() == Action.CORDON_AND_DRAIN && nodeClaim.getMetadata().getDeletionTimestamp() == null) {
      if (!targets.delete(nodeClaim)) {
        return;
      }
      LOG.info("initiating delete from interruption message NodeClaim={} Node={} messageKind={} action={}", nodeClaim.getMetadata().getName(),
          node == null ? "" : node.getMetadata().getName(), kind.value(), kind.action());
      InterruptionEvents.terminating(events, nodeClaim, node);
      metrics.disrupted(DisruptionLabels.of(nodeClaim, kind.value()));
    }
  }
}
