package sh.karpenter.providers.kwok;

import java.util.List;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import sh.karpenter.core.cloudprovider.CreateException;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;

/**
 * Failures a test injects into a {@link KwokCloudProvider}, standing in for what a real cloud does
 * to Karpenter: capacity pools that run out (blocked Offerings, which Create treats as unavailable and
 * answers with {@link InsufficientCapacityException} when nothing else is left), launches that fail
 * ({@link CreateException}), and instances that launch but whose node never registers. Thread-safe;
 * {@link #reset()} restores a healthy cloud.
 */
public final class KwokFailures {

  /** The reason injected launch failures carry unless the test names one. */
  public static final String DEFAULT_CREATE_FAILURE_REASON = "LaunchFailed";

  /** A capacity pool: one instance type in one zone with one capacity type, i.e. one Offering. */
  public record Pool(String instanceType, String zone, String capacityType) {}

  private final List<Predicate<Pool>> blocked = new CopyOnWriteArrayList<>();
  private int createFailures;
  private String createFailureReason = DEFAULT_CREATE_FAILURE_REASON;
  private volatile boolean skipNodeCreation;
  private volatile boolean reportBlockedUnavailable;

  KwokFailures() {}

  /** Blocks every Offering whose pool {@code pools} matches (in addition to those already blocked). */
  public KwokFailures blockOfferings(Predicate<Pool> pools) {
    blocked.add(Objects.requireNonNull(pools, "pools"));
    return this;
  }

  /** Blocks one Offering. */
  public KwokFailures blockOffering(String instanceType, String zone, String capacityType) {
    return blockOfferings(new Pool(instanceType, zone, capacityType)::equals);
  }

  /** Blocks every Offering of an instance type. */
  public KwokFailures blockInstanceType(String instanceType) {
    return blockOfferings(pool -> instanceType.equals(pool.instanceType()));
  }

  /** Blocks every Offering in a zone. */
  public KwokFailures blockZone(String zone) {
    return blockOfferings(pool -> zone.equals(pool.zone()));
  }

  /** Blocks every Offering of a capacity type ({@code spot}, {@code on-demand}, {@code reserved}). */
  public KwokFailures blockCapacityType(String capacityType) {
    return blockOfferings(pool -> capacityType.equals(pool.capacityType()));
  }

  /** Lifts every block. */
  public KwokFailures unblockAll() {
    blocked.clear();
    return this;
  }

  /** Whether the Offering is blocked. */
  public boolean isBlocked(String instanceType, String zone, String capacityType) {
    if (blocked.isEmpty()) {
      return false;
    }
    Pool pool = new Pool(instanceType, zone, capacityType);
    for (Predicate<Pool> p : blocked) {
      if (p.test(pool)) {
        return true;
      }
    }
    return false;
  }

  /** Whether any Offering may be blocked. */
  boolean anyBlocked() {
    return !blocked.isEmpty();
  }

  /**
   * Whether {@link KwokCloudProvider#instanceTypes} reports blocked Offerings as unavailable, as a
   * cloud provider's unavailable-offerings cache does after an insufficient-capacity error, so that the
   * scheduler stops planning them. Off by default: Create alone sees the block, which exercises the
   * insufficient-capacity path.
   */
  public KwokFailures reportBlockedUnavailable(boolean report) {
    this.reportBlockedUnavailable = report;
    return this;
  }

  public boolean reportBlockedUnavailable() {
    return reportBlockedUnavailable;
  }

  /** Makes the next {@code count} creates throw {@link CreateException} with reason {@value #DEFAULT_CREATE_FAILURE_REASON}. */
  public KwokFailures failNextCreates(int count) {
    return failNextCreates(count, DEFAULT_CREATE_FAILURE_REASON);
  }

  /** Makes the next {@code count} creates throw {@link CreateException} with {@code reason}. */
  public synchronized KwokFailures failNextCreates(int count, String reason) {
    if (count < 0) {
      throw new IllegalArgumentException("count must not be negative: " + count);
    }
    this.createFailures = count;
    this.createFailureReason = Objects.requireNonNull(reason, "reason");
    return this;
  }

  /** How many creates are still to fail. */
  public synchronized int pendingCreateFailures() {
    return createFailures;
  }

  /** Consumes one injected create failure, if any is left. */
  synchronized CreateException takeCreateFailure() {
    if (createFailures == 0) {
      return null;
    }
    createFailures--;
    return new CreateException(
        createFailureReason, "injected launch failure (" + createFailures + " more to come)", null);
  }

  /**
   * When true, creates still succeed and return an instance, but its Node is never created: the
   * instance launched and its node never registers (registration-timeout tests). The instance stays
   * visible to Get and List until deleted.
   */
  public KwokFailures skipNodeCreation(boolean skip) {
    this.skipNodeCreation = skip;
    return this;
  }

  public boolean skipNodeCreation() {
    return skipNodeCreation;
  }

  /** Removes every injected failure. */
  public synchronized void reset() {
    blocked.clear();
    createFailures = 0;
    createFailureReason = DEFAULT_CREATE_FAILURE_REASON;
    skipNodeCreation = false;
    reportBlockedUnavailable = false;
  }
}
