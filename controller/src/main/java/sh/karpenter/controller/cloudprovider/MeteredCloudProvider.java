package sh.karpenter.controller.cloudprovider;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.CreateException;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.cloudprovider.RepairPolicy;
import sh.karpenter.core.instancetype.InstanceType;

/**
 * The CloudProvider decorator of upstream pkg/cloudprovider/metrics: every call to {@code create},
 * {@code delete}, {@code get}, {@code list}, {@code instanceTypes} and {@code driftReason} is timed
 * into {@code karpenter_cloudprovider_duration_seconds{controller, method, provider}} (method names
 * as upstream: {@code Create}, {@code Delete}, {@code Get}, {@code List}, {@code GetInstanceTypes},
 * {@code IsDrifted}), and every exception it throws is counted in {@code
 * karpenter_cloudprovider_errors_total{controller, method, provider, error}} and rethrown unchanged.
 *
 * <p>Upstream reads the {@code controller} label from the request context; here each controller
 * takes its own view with {@link #forController(String)}, which shares the delegate (decorate a
 * provider once, then hand out views). Durations are read from the injected {@link Clock}.
 */
public final class MeteredCloudProvider implements CloudProvider {
  private final CloudProvider delegate;
  private final Metrics metrics;
  private final Clock clock;
  private final String controller;

  /** Decorates {@code delegate}; calls are labelled with controller "" until {@link #forController}. */
  public MeteredCloudProvider(CloudProvider delegate, Metrics metrics, Clock clock) {
    this(delegate, metrics, clock, "");
  }

  private MeteredCloudProvider(CloudProvider delegate, Metrics metrics, Clock clock, String controller) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.controller = controller == null ? "" : controller;
  }

  /** A view of the same provider whose calls carry {@code controller} as the controller label. */
  public MeteredCloudProvider forController(String controller) {
    return new MeteredCloudProvider(delegate, metrics, clock, controller);
  }

  /** The controller label of this view. */
  public String controller() {
    return controller;
  }

  /**
   * The {@code error} label for a CloudProvider exception: upstream's names for the well-known
   * errors ({@code InsufficientCapacityError}, {@code NodeClaimNotFoundError}, {@code
   * NodeClassNotReadyError}, {@code CreateError}), else the exception's simple class name.
   */
  public static String errorLabel(Throwable error) {
    return switch (error) {
      case InsufficientCapacityException e -> "InsufficientCapacityError";
      case NodeClaimNotFoundException e -> "NodeClaimNotFoundError";
      case NodeClassNotReadyException e -> "NodeClassNotReadyError";
      case CreateException e -> "CreateError";
      default -> {
        String simple = error.getClass().getSimpleName();
        yield simple.isEmpty() ? error.getClass().getName() : simple;
      }
    };
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef) {
    return measure("GetInstanceTypes", () -> delegate.instanceTypes(nodePoolName, nodeClassRef));
  }

  @Override
  public Instance create(LaunchRequest request) {
    return measure("Create", () -> delegate.create(request));
  }

  @Override
  public void delete(String providerId) {
    measure(
        "Delete",
        () -> {
          delegate.delete(providerId);
          return null;
        });
  }

  @Override
  public Optional<Instance> get(String providerId) {
    return measure("Get", () -> delegate.get(providerId));
  }

  @Override
  public List<Instance> list() {
    return measure("List", delegate::list);
  }

  @Override
  public String driftReason(String providerId, NodeClassRef nodeClassRef) {
    return measure("IsDrifted", () -> delegate.driftReason(providerId, nodeClassRef));
  }

  @Override
  public List<RepairPolicy> repairPolicies() {
    return delegate.repairPolicies();
  }

  @Override
  public List<NodeClassRef> supportedNodeClasses() {
    return delegate.supportedNodeClasses();
  }

  private <T> T measure(String method, Supplier<T> call) {
    String provider = providerName();
    Instant start = clock.instant();
    try {
      return call.get();
    } catch (RuntimeException e) {
      metrics.cloudProviderError(controller, method, provider, errorLabel(e));
      throw e;
    } finally {
      metrics.cloudProviderCall(controller, method, provider, Duration.between(start, clock.instant()));
    }
  }

  private String providerName() {
    try {
      return delegate.name();
    } catch (RuntimeException e) {
      return ""; // a provider without a name still gets measured
    }
  }
}
