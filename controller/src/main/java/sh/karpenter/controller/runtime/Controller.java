package sh.karpenter.controller.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A named per-object controller (controller-runtime's {@code Controller}): a {@link WorkQueue} of
 * keys drained by {@code workers} virtual threads, each handing keys to the {@link Reconciler}.
 *
 * <p>After a reconcile: an exception is logged with the controller name and key and the key is
 * retried with backoff ({@link WorkQueue#addRateLimited}); {@link Result#requeueAfter} with a
 * positive delay resets the backoff and requeues after the delay (a zero delay counts as a retry);
 * {@link Result#done()} resets the backoff. Keys may be enqueued before {@link #start()}; they wait.
 * {@link #close()} stops handing out keys and waits for in-flight reconciles up to a timeout.
 */
public final class Controller<K> implements AutoCloseable {
  /** How long {@link #close()} waits for in-flight reconciles by default. */
  public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);

  private static final Logger LOG = LoggerFactory.getLogger(Controller.class);

  private final String name;
  private final Reconciler<K> reconciler;
  private final int workers;
  private final WorkQueue<K> queue;
  private final ReconcileObserver observer;
  private final Clock clock;
  private final Duration closeTimeout;
  private final List<Thread> threads = new ArrayList<>();
  private final AtomicBoolean started = new AtomicBoolean();
  private final AtomicBoolean closed = new AtomicBoolean();

  /** A controller on the system clock with the default queue, no observer and a 30 s close timeout. */
  public Controller(String name, Reconciler<K> reconciler, int workers) {
    this(name, reconciler, workers, Clock.systemUTC(), ReconcileObserver.NOOP);
  }

  /** A controller with controller-runtime's default queue, reporting to {@code observer}. */
  public Controller(String name, Reconciler<K> reconciler, int workers, Clock clock, ReconcileObserver observer) {
    this(name, reconciler, workers,
        new WorkQueue<>(name, clock, RateLimiter.controllerDefault(clock), depth -> report(observer, name, depth)),
        observer, clock, DEFAULT_CLOSE_TIMEOUT);
  }

  /**
   * @param queue the controller's own queue (owned: closed with the controller); report its depth
   *     to {@code observer} through its depth listener if wanted
   */
  public Controller(String name, Reconciler<K> reconciler, int workers, WorkQueue<K> queue,
      ReconcileObserver observer, Clock clock, Duration closeTimeout) {
    if (workers < 1) {
      throw new IllegalArgumentException(name + ": workers must be >= 1, got " + workers);
    }
    this.name = name;
    this.reconciler = reconciler;
    this.workers = workers;
    this.queue = queue;
    this.observer = observer;
    this.clock = clock;
    this.closeTimeout = closeTimeout;
  }

  private static void report(ReconcileObserver observer, String name, int depth) {
    try {
      observer.queueDepth(name, depth);
    } catch (RuntimeException e) {
      LOG.warn("reconcile observer failed on queue depth controller={}", name, e);
    }
  }

  public String name() {
    return name;
  }

  public int workers() {
    return workers;
  }

  public WorkQueue<K> queue() {
    return queue;
  }

  /** Asks for {@code key} to be reconciled (de-duplicated with any pending request). */
  public void enqueue(K key) {
    queue.add(key);
  }

  /** Asks for {@code key} to be reconciled after {@code delay}. */
  public void enqueueAfter(K key, Duration delay) {
    queue.addAfter(key, delay);
  }

  /** Starts the workers; calling it again does nothing. */
  public void start() {
    if (closed.get() || !started.compareAndSet(false, true)) {
      return;
    }
    synchronized (threads) {
      for (int i = 0; i < workers; i++) {
        threads.add(Thread.ofVirtual().name(name + "-worker-" + i).start(this::work));
      }
    }
    LOG.atInfo().setMessage("Starting workers").addKeyValue("controller", name).addKeyValue("worker count", workers).log();
  }

  private void work() {
    while (true) {
      Optional<K> next;
      try {
        next = queue.get();
      } catch (InterruptedException e) {
        return;
      }
      if (next.isEmpty()) {
        return;
      }
      reconcile(next.get());
    }
  }

  private void reconcile(K key) {
    Instant start = clock.instant();
    Throwable error = null;
    org.slf4j.MDC.put("controller", name); // every line logged while reconciling names its controller, as upstream's do
    try {
      Result result = reconciler.reconcile(key);
      if (result != null && result.requeue() && result.requeueAfter().compareTo(Duration.ZERO) > 0) {
        queue.forget(key);
        queue.addAfter(key, result.requeueAfter());
      } else if (result != null && result.requeue()) {
        queue.addRateLimited(key);
      } else {
        queue.forget(key);
      }
    } catch (Throwable t) {
      error = t;
      if (t instanceof InterruptedException) {
        Thread.currentThread().interrupt();
      }
      LOG.atError().setMessage("Reconciler error").addKeyValue("controller", name).addKeyValue("key", String.valueOf(key)).setCause(t).log();
      queue.addRateLimited(key);
    } finally {
      queue.done(key);
      org.slf4j.MDC.remove("controller");
    }
    try {
      observer.reconciled(name, Duration.between(start, clock.instant()), error);
    } catch (RuntimeException e) {
      LOG.atWarn().setMessage("reconcile observer failed").addKeyValue("controller", name).setCause(e).log();
    }
  }

  /**
   * Stops handing out keys and waits up to the close timeout for in-flight reconciles; workers
   * still busy after that are interrupted. Idempotent.
   */
  @Override
  public void close() {
    if (!closed.compareAndSet(false, true)) {
      return;
    }
    queue.shutDown();
    List<Thread> running;
    synchronized (threads) {
      running = List.copyOf(threads);
    }
    long deadline = System.nanoTime() + closeTimeout.toNanos();
    boolean interrupted = false;
    for (Thread thread : running) {
      long remaining = deadline - System.nanoTime();
      try {
        if (remaining <= 0 || !thread.join(Duration.ofNanos(remaining))) {
          LOG.warn("controller close timed out, interrupting worker controller={} worker={}", name, thread.getName());
          thread.interrupt();
        }
      } catch (InterruptedException e) {
        interrupted = true;
        thread.interrupt();
      }
    }
    if (interrupted) {
      Thread.currentThread().interrupt();
    }
    LOG.atInfo().setMessage("All workers finished").addKeyValue("controller", name).log();
  }

  /**
   * Upstream's {@code LinearScaleReconciles}: worker count scaled linearly from {@code min} at 1
   * core to {@code max} at 60 cores, clamped to [min, max].
   */
  public static int linearScaleReconciles(int cpus, int min, int max) {
    double slope = (max - min) / 59.0;
    int result = (int) (slope * (cpus - 1)) + min;
    return Math.max(min, Math.min(max, result));
  }
}
