package sh.karpenter.providers.aws.interruption;

import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.OperatorContext;
import sh.karpenter.controller.operator.OperatorExtension;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.providers.aws.instancestatus.Category;
import sh.karpenter.providers.aws.instancestatus.Details;
import sh.karpenter.providers.aws.instancestatus.HealthStatus;
import sh.karpenter.providers.aws.instancestatus.InstanceStatusProvider;
import sh.karpenter.providers.aws.sdk.SdkErrors;
import software.amazon.awssdk.core.exception.SdkException;

/**
 * The instance-status controller (upstream's AWS {@code InstanceStatusController}, named {@value #NAME}):
 * a leader-only singleton loop that every {@link #INTERVAL} asks EC2 for the instances with failed status
 * checks or scheduled events ({@link InstanceStatusProvider}) and hands each category of each one to the
 * same {@link InterruptionHandler} as the queue's messages: a failed instance or system check is a
 * {@link Kind#INSTANCE_STATUS}/{@link Kind#SYSTEM_STATUS} message (forceful termination), a scheduled
 * event an {@link Kind#EVENT_STATUS} one (cordon and drain); EBS checks are ignored. An instance × category
 * that some NodeClaim has is counted once in {@value InstanceStatusMetrics#UNHEALTHY} while it stays
 * unhealthy ({@link UnhealthyInstances}). If EC2 answers {@code UnauthorizedOperation}, the controller logs
 * it once and polls no more until restarted, as upstream's does. It needs no interruption queue.
 * Behaviour: docs/behaviour/aws-interruption.md#instance-status-checks.
 */
public final class InstanceStatusController implements OperatorExtension {
  public static final String NAME = "interruption.instancestatus";
  /** Between two polls (upstream's {@code InstanceStatusInterval}). */
  public static final Duration INTERVAL = Duration.ofMinutes(1);
  /** Instances handled at once (upstream's {@code workqueue.ParallelizeUntil(ctx, 10, ...)}). */
  public static final int PARALLELISM = 10;
  static final String UNAUTHORIZED = "UnauthorizedOperation";
  private static final Logger LOG = LoggerFactory.getLogger(InstanceStatusController.class);

  private final InstanceStatusProvider statuses;
  private final Clock clock;
  private final Duration interval;
  private final UnhealthyInstances seen = new UnhealthyInstances();
  private volatile InterruptionHandler handler;
  private volatile InstanceStatusMetrics metrics;
  private volatile boolean denied;

  /** @param interval between two polls: {@link #INTERVAL} (tests shorten it) */
  public InstanceStatusController(InstanceStatusProvider statuses, Clock clock, Duration interval) {
    this.statuses = Objects.requireNonNull(statuses, "statuses");
    this.clock = Objects.requireNonNull(clock, "clock");
    if (interval.isNegative() || interval.isZero()) {
      throw new IllegalArgumentException("instance status interval must be positive, got " + interval);
    }
    this.interval = interval;
  }

  @Override
  public void register(OperatorContext context) {
    bind(InterruptionTargets.kubernetes(context.client(), context.informers()), context.events(), context.metrics());
    context.loop(NAME, this::reconcile);
  }

  /** Binds the cluster side without an Operator (unit tests); registers the unhealthy counter in {@code metrics}. */
  void bind(InterruptionTargets targets, EventRecorder events, Metrics metrics) {
    this.handler = new InterruptionHandler(targets, events, metrics, null, clock);
    this.metrics = new InstanceStatusMetrics(metrics);
  }

  /**
   * One poll: list, hand every unhealthy instance's categories to the handler ({@value #PARALLELISM}
   * instances at once), count the newly unhealthy, forget the recovered. Throws when EC2 failed (but
   * for {@code UnauthorizedOperation}) or an instance could not be handled, after all were tried.
   */
  Result reconcile() throws InterruptedException {
    if (denied) {
      return Result.requeueAfter(interval);
    }
    List<HealthStatus> unhealthy;
    try {
      unhealthy = statuses.list();
    } catch (SdkException e) {
      if (SdkErrors.hasCode(e, UNAUTHORIZED)) {
        denied = true;
        LOG.atError().setMessage("ec2:DescribeInstanceStatus permission is not allowed, update the IAM policy and restart the Karpenter "
            + "deployment to enable instance status health checks").addKeyValue("error", SdkErrors.describe(e)).log();
        return Result.requeueAfter(interval);
      }
      throw new IllegalStateException("getting instance statuses: " + SdkErrors.describe(e), e);
    }
    seen.begin();
    try {
      Parallel.forEach(NAME, "unhealthy instances", unhealthy, PARALLELISM, this::handle);
    } finally {
      seen.end();
    }
    return Result.requeueAfter(interval);
  }

  /** Upstream's {@code handleHealthStatus}: one message per category of the instance's failed checks. */
  private void handle(HealthStatus status) {
    Set<Category> categories = EnumSet.noneOf(Category.class);
    status.details().stream().map(Details::category).forEach(categories::add);
    for (Category category : categories) {
      Optional<Kind> kind = kind(category);
      if (kind.isEmpty()) {
        continue;
      }
      boolean found;
      try {
        found = handler.handle(new InterruptionMessage(kind.get(), List.of(status.instanceId()), status.impairedSince(), ""));
      } catch (RuntimeException e) {
        throw new IllegalStateException("handling instance status check message instance=" + status.instanceId() + " category="
            + category.value() + ": " + e.getMessage(), e);
      }
      if (found && seen.observe(status.instanceId(), category)) {
        LOG.atInfo().setMessage("detected unhealthy instance owned by cluster").addKeyValue("instanceID", status.instanceId())
            .addKeyValue("category", category.value()).log();
        metrics.unhealthy(category);
      }
    }
  }

  /** Upstream's {@code categoryToKind}; none for EBS checks, which are not acted on. */
  static Optional<Kind> kind(Category category) {
    return switch (category) {
      case INSTANCE_STATUS -> Optional.of(Kind.INSTANCE_STATUS);
      case SYSTEM_STATUS -> Optional.of(Kind.SYSTEM_STATUS);
      case EVENT_STATUS -> Optional.of(Kind.EVENT_STATUS);
      case EBS_STATUS -> Optional.empty();
    };
  }

  /** Whether EC2 refused the permission and the controller stopped polling. */
  boolean denied() {
    return denied;
  }
}
