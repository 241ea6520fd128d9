package sh.karpenter.testkit.reliability;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.cloudprovider.RepairPolicy;

/**
 * One controller process's view of a cloud that outlives it: every call goes to the shared cloud
 * provider, except that launches from the {@code n}-th on can be held before they reach the cloud
 * ({@link #holdLaunchesFrom}), so a test stops a controller exactly between creating a NodeClaim and
 * launching its instance, or after the cloud made the instance and before its answer returns
 * ({@link #holdAnswersFrom}), so the NodeClaim never learns of it; and that after {@link #kill}
 * every call, held ones included, fails without touching the cloud: a killed process makes no more
 * calls. {@link #partition} cuts the process off from the cloud for a while.
 */
public final class CloudProviderGate implements CloudProvider {
  private final CloudProvider cloud;
  private final AtomicInteger launches = new AtomicInteger();
  private final AtomicInteger launchAttempts = new AtomicInteger();
  private final CountDownLatch held = new CountDownLatch(1);
  private final CountDownLatch released = new CountDownLatch(1);
  private volatile int holdFrom = Integer.MAX_VALUE;
  private volatile boolean holdAnswers;
  private volatile boolean killed;
  private volatile boolean partitioned;

  public CloudProviderGate(CloudProvider cloud) {
    this.cloud = cloud;
  }

  /** Holds the {@code n}-th launch (1-based) and every later one until {@link #kill} or {@link #release}. */
  public CloudProviderGate holdLaunchesFrom(int n) {
    this.holdAnswers = false;
    this.holdFrom = n;
    return this;
  }

  /**
   * Lets the {@code n}-th launch (1-based) and every later one reach the cloud, then holds its answer
   * until {@link #kill} (the launch then fails: the instance exists, and the controller never hears
   * of it) or {@link #release}.
   */
  public CloudProviderGate holdAnswersFrom(int n) {
    this.holdAnswers = true;
    this.holdFrom = n;
    return this;
  }

  /** Holds the next launch and every later one until {@link #kill} or {@link #release}. */
  public CloudProviderGate holdNextLaunches() {
    return holdLaunchesFrom(launchAttempts.get() + 1);
  }

  /** Waits until a launch is held; false when none was within {@code timeout}. */
  public boolean awaitHeld(Duration timeout) throws InterruptedException {
    return held.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Lets held launches (and later ones) through to the cloud. */
  public void release() {
    holdFrom = Integer.MAX_VALUE;
    released.countDown();
  }

  /** From now on every call fails without reaching the cloud; held launches fail too. */
  public void kill() {
    killed = true;
    released.countDown();
  }

  /** While true, every call fails without reaching the cloud, as when the process's network is cut. */
  public void partition(boolean cut) {
    partitioned = cut;
  }

  /** Launches that reached the cloud through this gate. */
  public int launched() {
    return launches.get();
  }

  private void alive() {
    if (killed) {
      throw new IllegalStateException("the controller process was killed");
    }
    if (partitioned) {
      throw new IllegalStateException("the controller process is cut off from the cloud");
    }
  }

  @Override
  public String name() {
    return cloud.name();
  }

  @Override
  public List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef) {
    alive();
    return cloud.instanceTypes(nodePoolName, nodeClassRef);
  }

  @Override
  public Instance create(LaunchRequest request) {
    alive();
    int attempt = launchAttempts.incrementAndGet();
    boolean hold = attempt >= holdFrom;
    boolean afterCloud = holdAnswers;
    if (hold && !afterCloud) {
      awaitRelease();
    }
    Instance instance = cloud.create(request);
    launches.incrementAndGet();
    if (hold && afterCloud) {
      awaitRelease();
    }
    return instance;
  }

  private void awaitRelease() {
    held.countDown();
    try {
      released.await();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while held", e);
    }
    alive();
  }


  @Override
  public void delete(String providerId) {
    alive();
    cloud.delete(providerId);
  }

  @Override
  public Optional<Instance> get(String providerId) {
    alive();
    return cloud.get(providerId);
  }

  @Override
  public List<Instance> list() {
    alive();
    return cloud.list();
  }

  @Override
  public String driftReason(String providerId, NodeClassRef nodeClassRef) {
    alive();
    return cloud.driftReason(providerId, nodeClassRef);
  }

  @Override
  public String driftReason(String providerId, NodeClassRef nodeClassRef, Map<String, String> nodeClaimAnnotations) {
    alive();
    return cloud.driftReason(providerId, nodeClassRef, nodeClaimAnnotations);
  }

  @Override
  public List<RepairPolicy> repairPolicies() {
    return cloud.repairPolicies();
  }

  @Override
  public List<NodeClassRef> supportedNodeClasses() {
    return cloud.supportedNodeClasses();
  }
}
