package sh.karpenter.controller.cloudprovider;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.core.cloudprovider.CloudProvider;
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
 * karpenter_cloudprovider_errors_total{controller, method, provider, error, nodepool}} and rethrown
 * unchanged.
 *
 * <p>Upstream reads the {@code controller} label from the request context; here each controller
 * takes its own view with {@link #forController(String)}, which shares the delegate (decorate a
 * provider once, then hand out views). Upstream's {@code nodepool} label is the NodePool of the
 * NodeClaim or NodePool the call is about: {@code create} and {@code instanceTypes} name it, {@code
 * delete} and {@code driftReason} look the provider ID up with the given resolver (a leaked instance
 * without a NodeClaim gets ""), {@code get} and {@code list} have none, as upstream's. Durations are
 * read from the injected {@link Clock}.
 */
public final class MeteredCloudProvider implements CloudProvider {
  /** The {@code error} label of an exception that is none of the well-known CloudProvider errors. */
  public static final String UNKNOWN_ERROR = "unknown";

  private final CloudProvider delegate;
  private final Metrics metrics;
  private final Clock clock;
  private final Function<String, String> nodePoolOf;
  private final String controller;

  /** Decorates {@code delegate}; errors of {@code delete} and {@code driftReason} carry no NodePool. */
  public MeteredCloudProvider(CloudProvider delegate, Metrics metrics, Clock clock) {
    this(delegate, metrics, clock, providerId -> "");
  }

  /**
   * Decorates {@code delegate}; calls are labelled with controller "" until {@link #forController}.
   *
   * @param nodePoolOf the NodePool of the NodeClaim with a provider ID ("" when unknown), for the
   *     {@code nodepool} label of {@code delete} and {@code driftReason} errors
   */
  public MeteredCloudProvider(CloudProvider delegate, Metrics metrics, Clock clock, Function<String, String> nodePoolOf) {
    this(delegate, metrics, clock, nodePoolOf, "");
  }

  private MeteredCloudProvider(CloudProvider delegate, Metrics metrics, Clock clock, Function<String, String> nodePoolOf, String controller) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.metrics = Objects.requireNonNull(metrics, "metrics");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.nodePoolOf = Objects.requireNonNull(nodePoolOf, "nodePoolOf");
    this.controller = controller == null ? "" : controller;
  }

  /** A view of the same provider whose calls carry {@code controller} as the controller label. */
  public MeteredCloudProvider forController(String controller) {
    return new MeteredCloudProvider(delegate, metrics, clock, nodePoolOf, controller);
  }

  /** The controller label of this view. */
  public String controller() {
    return controller;
  }

  /**
   * The {@code error} label for a CloudProvider exception (upstream v1.15's {@code
   * GetErrorTypeLabelValue}): {@code InsufficientCapacityError}, {@code NodeClaimNotFoundError} and
   * {@code NodeClassNotReadyError} for the well-known errors, else {@link #UNKNOWN_ERROR}.
   */
  public static String errorLabel(Throwable error) {
    return switch (error) {
      case InsufficientCapacityException e -> "InsufficientCapacityError";
      case NodeClaimNotFoundException e -> "NodeClaimNotFoundError";
      case NodeClassNotReadyException e -> "NodeClassNotReadyError";
      default -> UNKNOWN_ERROR;
    };
  }

  @Override
  public String name() {
    return delegate.name();
  }

  @Override
  public List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef) {
    return measure("GetInstanceTypes", () -> nodePoolName, () -> delegate.instanceTypes(nodePoolName, nodeClassRef));
  }

  @Override
  public Instance create(LaunchRequest request) {
    return measure("Create", request::nodePoolName, () -> delegate.create(request));
  }

  @Override
  public void delete(String providerId) {
    measure(
        "Delete",
        () -> nodePoolOf.apply(providerId),
        () -> {
          delegate.delete(providerId);
          return null;
        });
  }

  @Override
  public Optional<Instance> get(String providerId) {
    return measure("Get", () -> "", () -> delegate.get(providerId));
  }

  @Override
  public List<Instance> list() {
    return measure("List", () -> "", delegate::list);
  }

  @Override
  public String driftReason(String providerId, NodeClassRef nodeClassRef) {
    return measure("IsDrifted", () -> nodePoolOf.apply(providerId), () -> delegate.driftReason(providerId, nodeClassRef));
  }

  @Override
  public String driftReason(String providerId, NodeClassRef nodeClassRef, java.util.Map<String, String> nodeClaimAnnotations) {
    return measure("IsDrifted", () -> nodePoolOf.apply(providerId),
        () -> delegate.driftReason(providerId, nodeClassRef, nodeClaimAnnotations));
  }

  @Override
  public List<RepairPolicy> repairPolicies() {
    return delegate.repairPolicies();
  }

  @Override
  public List<NodeClassRef> supportedNodeClasses() {
    return delegate.supportedNodeClasses();
  }

  /** Times the call; counts its exception under the NodePool {@code nodePool} names (asked only then). */
  private <T> T measure(String method, Supplier<String> nodePool, Supplier<T> call) {
    String provider = providerName();
    Instant start = clock.instant();
    try {
      return call.get();
    } catch (RuntimeException e) {
      metrics.cloudProviderError(controller, method, provider, errorLabel(e), nodePoolName(nodePool));
      throw e;
    } finally {
      metrics.cloudProviderCall(controller, method, provider, Duration.between(start, clock.instant()));
    }
  }

  private static String nodePoolName(Supplier<String> nodePool) {
    try {
      String name = nodePool.get();
      return name == null ? "" : name;
    } catch (RuntimeException e) {
      return ""; // a failing lookup must not hide the provider's error
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
