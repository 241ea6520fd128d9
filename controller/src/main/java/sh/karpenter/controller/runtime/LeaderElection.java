package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.api.model.coordination.v1.Lease;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderCallbacks;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElectionConfigBuilder;
import io.fabric8.kubernetes.client.extended.leaderelection.LeaderElector;
import io.fabric8.kubernetes.client.extended.leaderelection.resourcelock.LeaseLock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leader gating for the replicas of Karpenter: only the holder of a coordination.k8s.io Lease runs
 * the controllers, while every replica keeps its informers warm. Wraps fabric8's {@code
 * LeaderElector} with a {@code LeaseLock} and controller-runtime's timings (lease 15 s, renew 10 s,
 * retry 2 s, release on cancel).
 *
 * <p>{@link #onStartedLeading} callbacks run once leadership is acquired; {@link #onStoppedLeading}
 * callbacks run when leadership is <em>lost</em> while running (the caller should then stop its loops
 * and exit, as upstream does), not when it is given up by {@link #close()}. Callbacks run in order on
 * one background thread, never on the elector's, so slow callbacks cannot delay renewals. {@link
 * #disabled()} leads at once without a Lease ({@code --disable-leader-election}).
 */
public final class LeaderElection implements AutoCloseable {
  /** Upstream's Lease name ({@code --leader-election-name}). */
  public static final String DEFAULT_NAME = "karpenter-leader-election";

  private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

  /**
   * Where the Lease lives, who we are, and the Lease timings.
   *
   * @param identity this replica's holder identity; {@link #defaults} uses hostname + "_" + UUID
   */
  public record Config(String namespace, String name, String identity, Duration leaseDuration, Duration renewDeadline,
      Duration retryPeriod) {
    public Config {
      Objects.requireNonNull(namespace, "namespace");
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(identity, "identity");
      if (renewDeadline.compareTo(leaseDuration) >= 0 || retryPeriod.compareTo(renewDeadline) >= 0) {
        throw new IllegalArgumentException(
            "need retryPeriod < renewDeadline < leaseDuration, got " + retryPeriod + ", " + renewDeadline + ", " + leaseDuration);
      }
    }

    /** The Lease {@value #DEFAULT_NAME} in {@code namespace}, with controller-runtime's 15 s / 10 s / 2 s. */
    public static Config defaults(String namespace) {
      return new Config(namespace, DEFAULT_NAME, defaultIdentity(), Duration.ofSeconds(15), Duration.ofSeconds(10),
          Duration.ofSeconds(2));
    }

    public Config withName(String leaseName) {
      return new Config(namespace, leaseName, identity, leaseDuration, renewDeadline, retryPeriod);
    }

    public Config withIdentity(String holder) {
      return new Config(namespace, name, holder, leaseDuration, renewDeadline, retryPeriod);
    }

    public Config withDurations(Duration lease, Duration renew, Duration retry) {
      return new Config(namespace, name, identity, lease, renew, retry);
    }
  }

  private final KubernetesClient client;
  private final Config config;
  private final List<Runnable> startedCallbacks = new CopyOnWriteArrayList<>();
  private final List<Runnable> stoppedCallbacks = new CopyOnWriteArrayList<>();
  private final AtomicBoolean leader = new AtomicBoolean();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();
  private final ExecutorService callbacks;
  private volatile LeaderElector elector;
  private volatile CompletableFuture<?> running;
  /** Confirms the Lease while leading (see {@link #checkLease()}); null when leader election is off. */
  private volatile ScheduledExecutorService watchdog;
  /** {@link System#nanoTime()} of the last read of the Lease that showed this replica as its holder. */
  private volatile long confirmedAt;

  /** Leader election on the Lease described by {@code config}. */
  public LeaderElection(KubernetesClient client, Config config) {
    this.client = Objects.requireNonNull(client, "client");
    this.config = Objects.requireNonNull(config, "config");
    this.callbacks = callbackExecutor("leader-election-" + config.name() + "-callbacks");
  }

  private LeaderElection() {
    this.client = null;
    this.config = null;
    this.callbacks = callbackExecutor("leader-election-disabled-callbacks");
  }

  private static ExecutorService callbackExecutor(String threadName) {
    return Executors.newSingleThreadExecutor(runnable -> {
      Thread thread = new Thread(runnable, threadName);
      thread.setDaemon(true);
      return thread;
    });
  }

  /** No election: {@link #start()} makes this replica the leader at once. */
  public static LeaderElection disabled() {
    return new LeaderElection();
  }

  /** The hostname, "_", and a random UUID, as controller-runtime builds its identity. */
  public static String defaultIdentity() {
    String host;
    try {
      host = InetAddress.getLocalHost().getHostName();
    } catch (Exception e) {
      host = Objects.requireNonNullElse(System.getenv("HOSTNAME"), "unknown");
    }
    return host + "_" + UUID.randomUUID();
  }

  /** Registers a callback run each time this replica becomes leader. Register before {@link #start()}. */
  public LeaderElection onStartedLeading(Runnable callback) {
    startedCallbacks.add(callback);
    return this;
  }

  /** Registers a callback run when leadership is lost while running (not on {@link #close()}). */
  public LeaderElection onStoppedLeading(Runnable callback) {
    stoppedCallbacks.add(callback);
    return this;
  }

  /** This replica's holder identity ({@code disabled} when election is off). */
  public String identity() {
    return config == null ? "disabled" : config.identity();
  }

  public boolean isLeader() {
    return leader.get();
  }

  /** Starts competing for the Lease without blocking; calling it again does nothing. */
  public void start() {
    if (closed.get() || !started.compareAndSet(false, true)) {
      return;
    }
    if (config == null) {
      becameLeader();
      return;
    }
    LeaderCallbacks leaderCallbacks = new LeaderCallbacks(this::becameLeader, this::lostLeadership,
        holder -> LOG.info("leader is now {} lease={}/{}", holder, config.namespace(), config.name()));
    elector = client.leaderElector()
        .withConfig(new LeaderElectionConfigBuilder()
            .withName(config.name())
            .withLock(new LeaseLock(config.namespace(), config.name(), config.identity()))
            .withLeaseDuration(config.leaseDuration())
            .withRenewDeadline(config.renewDeadline())
            .withRetryPeriod(config.retryPeriod())
            .withReleaseOnCancel()
            .withLeaderCallbacks(leaderCallbacks)
            .build())
        .build();
    running = elector.start();
    watchdog = Executors.newScheduledThreadPool(2, runnable -> {
      Thread thread = new Thread(runnable, "leader-election-" + config.name() + "-watchdog");
      thread.setDaemon(true);
      return thread;
    });
    long period = config.retryPeriod().toMillis();
    watchdog.scheduleWithFixedDelay(this::confirmLease, period, period, TimeUnit.MILLISECONDS);
    // A separate task, so a read blocked on a dead connection cannot keep the deadline from passing.
    watchdog.scheduleWithFixedDelay(this::checkDeadline, period, period, TimeUnit.MILLISECONDS);
    running.whenComplete((ignored, error) -> {
      if (!closed.get()) {
        // The election loop ended on its own (e.g. the client was closed or failed for good): the Lease
        // is no longer renewed, so whatever we led must stop, or two replicas would lead at once.
        LOG.error("leader election ended lease={}/{}", config.namespace(), config.name(), error);
        lostLeadership();
      }
    });
    LOG.info("leader election started lease={}/{} identity={}", config.namespace(), config.name(), config.identity());
  }

  /**
   * Fencing, independent of the elector's own loop: while leading, read the Lease every retry period;
   * another holder, or no successful read showing us as holder for the renew deadline (the API server
   * is unreachable, the client is gone), means another replica may lead by now, so stop leading.
   * fabric8's elector alone can stay blocked on a dead connection without ever giving leadership up.
   * {@link #confirmLease()} reads, {@link #checkDeadline()} judges.
   */
  private void confirmLease() {
    if (!leader.get() || closed.get()) {
      return;
    }
    try {
      Lease lease = client.resources(Lease.class).inNamespace(config.namespace()).withName(config.name()).get();
      String holder = lease == null || lease.getSpec() == null ? null : lease.getSpec().getHolderIdentity();
      if (config.identity().equals(holder)) {
        confirmedAt = System.nanoTime();
      } else {
        LOG.warn("lease {}/{} is held by {}, not by this replica", config.namespace(), config.name(), holder);
        lostLeadership();
      }
    } catch (RuntimeException e) {
      LOG.debug("could not read lease {}/{}: {}", config.namespace(), config.name(), e.toString());
    }
  }

  private void checkDeadline() {
    if (leader.get() && !closed.get() && System.nanoTime() - confirmedAt > config.renewDeadline().toNanos()) {
      LOG.error("could not confirm lease {}/{} within the renew deadline of {}", config.namespace(), config.name(), config.renewDeadline());
      lostLeadership();
    }
  }

  private void becameLeader() {
    if (closed.get() || !leader.compareAndSet(false, true)) {
      return;
    }
    confirmedAt = System.nanoTime();
    LOG.info("started leading lease={} identity={}", config == null ? "-" : config.namespace() + "/" + config.name(), identity());
    runCallbacks(startedCallbacks, "onStartedLeading");
  }

  private void lostLeadership() {
    if (!leader.compareAndSet(true, false)) {
      return;
    }
    if (closed.get()) {
      return; // given up on purpose
    }
    LOG.warn("stopped leading lease={} identity={}", config == null ? "-" : config.namespace() + "/" + config.name(), identity());
    runCallbacks(stoppedCallbacks, "onStoppedLeading");
  }

  private void runCallbacks(List<Runnable> list, String what) {
    for (Runnable callback : list) {
      try {
        callbacks.execute(() -> {
          try {
            callback.run();
          } catch (RuntimeException e) {
            LOG.error("leader election callback {} failed", what, e);
          }
        });
      } catch (RejectedExecutionException e) {
        LOG.debug("leader election closed, skipping {}", what);
      }
    }
  }

  /** Stops competing and gives the Lease up if held, so another replica takes over at once. */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    if (watchdog != null) {
      watchdog.shutdownNow();
    }
    CompletableFuture<?> future = running;
    if (future != null) {
      future.cancel(true); // fabric8 releases the Lease on cancel (releaseOnCancel)
    }
    LeaderElector current = elector;
    if (current != null) {
      try {
        current.release(); // no-op unless we still hold it
      } catch (RuntimeException e) {
        LOG.warn("could not release lease {}/{}", config.namespace(), config.name(), e);
      }
    }
    leader.set(false);
    callbacks.shutdown();
    try {
      if (!callbacks.awaitTermination(10, TimeUnit.SECONDS)) {
        callbacks.shutdownNow();
      }
    } catch (InterruptedException e) {
      callbacks.shutdownNow();
      Thread.currentThread().interrupt();
    }
    LOG.info("leader election closed identity={}", identity());
  }
}
