package sh.karpenter.controller.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.Callable;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named loop that runs one body over and over on one thread (upstream operatorpkg's {@code
 * singleton.AsReconciler}), for the global loops over cluster state: provisioner, disruption,
 * garbage collection.
 *
 * <p>After each run the loop waits {@link Result#requeueAfter}; a {@link Result#done()} result runs
 * the body again at once, still held to a token bucket (10 runs/s, burst 100 by default) so a body
 * that never waits cannot spin. An exception is logged and retried with exponential backoff (5 ms
 * doubling to 1000 s), reset by the next successful run. {@link #trigger()} cuts any wait short, and
 * a trigger that arrives while the body is running makes the next run start at once.
 */
public final class SingletonLoop implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(SingletonLoop.class);

  private final String name;
  private final Callable<Result> body;
  private final Clock clock;
  private final ReconcileObserver observer;
  private final ExponentialFailureRateLimiter<String> backoff;
  private final TokenBucket minimumInterval;
  private final Duration closeTimeout;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition wake = lock.newCondition();
  private boolean triggered;
  private boolean closed;
  private Thread thread;
  private volatile Duration lastDelay = Duration.ZERO;
  private volatile long runs;

  /** A loop on the system clock with upstream's backoff and rate limit, reporting nowhere. */
  public SingletonLoop(String name, Callable<Result> body) {
    this(name, body, Clock.systemUTC(), ReconcileObserver.NOOP);
  }

  public SingletonLoop(String name, Callable<Result> body, Clock clock, ReconcileObserver observer) {
    this(name, body, clock, observer,
        new ExponentialFailureRateLimiter<>(RateLimiter.DEFAULT_BASE_DELAY, RateLimiter.DEFAULT_MAX_DELAY),
        new TokenBucket(RateLimiter.DEFAULT_QPS, RateLimiter.DEFAULT_BURST, clock), Controller.DEFAULT_CLOSE_TIMEOUT);
  }

  /**
   * @param backoff delays after consecutive failures
   * @param minimumInterval throttles runs that ask for no wait
   * @param closeTimeout how long {@link #close()} waits for a running body before interrupting it
   */
  public SingletonLoop(String name, Callable<Result> body, Clock clock, ReconcileObserver observer,
      ExponentialFailureRateLimiter<String> backoff, TokenBucket minimumInterval, Duration closeTimeout) {
    this.name = name;
    this.body = body;
    this.clock = clock;
    this.observer = observer;
    this.backoff = backoff;
    this.minimumInterval = minimumInterval;
    this.closeTimeout = closeTimeout;
  }

  public String name() {
    return name;
  }

  /** Starts the loop's thread; calling it again, or after {@link #close()}, does nothing. */
  public void start() {
    lock.lock();
    try {
      if (closed || thread != null) {
        return;
      }
      thread = Thread.ofPlatform().daemon(true).name("singleton-" + name).start(this::loop);
    } finally {
      lock.unlock();
    }
    LOG.atInfo().setMessage("Starting workers").addKeyValue("controller", name).addKeyValue("worker count", 1).log();
  }

  /** Wakes the loop now if it is waiting, or makes it run again straight after the current run. */
  public void trigger() {
    lock.lock();
    try {
      triggered = true;
      wake.signalAll();
    } finally {
      lock.unlock();
    }
  }

  private void loop() {
    while (true) {
      lock.lock();
      try {
        if (closed) {
          return;
        }
        triggered = false; // this run answers every trigger so far
      } finally {
        lock.unlock();
      }
      Duration delay = runOnce();
      try {
        if (!await(delay)) {
          return;
        }
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Runs the body once and returns how long to wait before the next run. */
  private Duration runOnce() {
    Instant start = clock.instant();
    Throwable error = null;
    Duration delay;
    org.slf4j.MDC.put("controller", name);
    try {
      Result result = body.call();
      backoff.forget(name);
      Duration requested = result != null && result.requeue() ? result.requeueAfter() : Duration.ZERO;
      delay = requested.isNegative() || requested.isZero() ? minimumInterval.reserve() : requested;
    } catch (Throwable t) {
      error = t;
      if (t instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      delay = backoff.when(name);
      LOG.atError().setMessage("Reconciler error").addKeyValue("controller", name).addKeyValue("retry-in", delay).setCause(t).log();
    } finally {
      org.slf4j.MDC.remove("controller");
    }
    lastDelay = delay;
    runs++;
    try {
      observer.reconciled(name, Duration.between(start, clock.instant()), error);
    } catch (RuntimeException e) {
      LOG.atWarn().setMessage("reconcile observer failed").addKeyValue("controller", name).setCause(e).log();
    }
    return delay;
  }

  /** Waits up to {@code delay} or until triggered; false when the loop is closed. */
  private boolean await(Duration delay) throws InterruptedException {
    lock.lockInterruptibly();
    try {
      long nanos = delay.toNanos();
      while (!closed && !triggered && nanos > 0) {
        nanos = wake.awaitNanos(nanos);
      }
      return !closed;
    } finally {
      lock.unlock();
    }
  }

  /** Completed runs of the body, failed or not. */
  public long runs() {
    return runs;
  }

  /** The wait chosen after the latest run (the requested requeue, the rate limit or the backoff). */
  public Duration lastDelay() {
    return lastDelay;
  }

  /** Failures since the last successful run. */
  public int consecutiveFailures() {
    return backoff.retries(name);
  }

  /** Stops the loop: wakes it, waits up to the close timeout for a running body, then interrupts it. */
  @Override
  public void close() {
    Thread running;
    lock.lock();
    try {
      if (closed) {
        return;
      }
      closed = true;
      wake.signalAll();
      running = thread;
    } finally {
      lock.unlock();
    }
    if (running == null) {
      return;
    }
    try {
      if (!running.join(closeTimeout)) {
        LOG.warn("singleton close timed out, interrupting controller={}", name);
        running.interrupt();
      }
    } catch (InterruptedException e) {
      running.interrupt();
      Thread.currentThread().interrupt();
    }
    LOG.atInfo().setMessage("All workers finished").addKeyValue("controller", name).log();
  }
}
