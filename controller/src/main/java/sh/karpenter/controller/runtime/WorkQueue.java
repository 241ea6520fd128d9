package sh.karpenter.controller.runtime;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.PriorityQueue;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.IntConsumer;

/**
 * A keyed work queue with client-go / controller-runtime semantics, which Karpenter's controllers
 * assume:
 *
 * <ul>
 *   <li><b>de-duplication</b>: a key waits in the queue at most once, however often it is added;
 *   <li><b>per-key serialisation</b>: a key handed out by {@link #get()} is not handed out again
 *       until {@link #done} is called; if it was added meanwhile it is queued again at that point;
 *   <li><b>delays</b>: {@link #addAfter} parks a key until its time (by the queue's {@link Clock});
 *       a key parked twice keeps the earlier time;
 *   <li><b>retries</b>: {@link #addRateLimited} delays by the {@link RateLimiter} (by default the
 *       larger of a per-key exponential backoff and an overall token bucket), {@link #forget} resets
 *       a key's backoff.
 * </ul>
 *
 * <p>Thread-safe. Delayed keys are released by one daemon thread; tests that step a {@code
 * TestingClock} call {@link #promoteDue()} instead of waiting for it. After {@link #shutDown()}
 * nothing is handed out and adds are ignored.
 */
public final class WorkQueue<K> implements AutoCloseable {
  private final String name;
  private final Clock clock;
  private final RateLimiter<K> rateLimiter;
  private final IntConsumer depthListener;
  private final ScheduledExecutorService timer;

  private final ReentrantLock lock = new ReentrantLock();
  private final Condition available = lock.newCondition();
  private final ArrayDeque<K> queue = new ArrayDeque<>();
  private final Set<K> dirty = new HashSet<>();
  private final Set<K> processing = new HashSet<>();
  private final Map<K, Instant> waitingUntil = new HashMap<>();
  private final PriorityQueue<Waiting<K>> waiting = new PriorityQueue<>();
  private long sequence;
  private boolean shuttingDown;
  private ScheduledFuture<?> wakeUp;
  private Instant wakeUpAt;

  private record Waiting<K>(Instant readyAt, long sequence, K key) implements Comparable<Waiting<K>> {
    @Override
    public int compareTo(Waiting<K> o) {
      int byTime = readyAt.compareTo(o.readyAt);
      return byTime != 0 ? byTime : Long.compare(sequence, o.sequence);
    }
  }

  /** A queue with controller-runtime's default rate limiter on the system clock. */
  public WorkQueue(String name) {
    this(name, Clock.systemUTC());
  }

  /** A queue with controller-runtime's default rate limiter. */
  public WorkQueue(String name, Clock clock) {
    this(name, clock, RateLimiter.controllerDefault(clock), depth -> {});
  }

  /**
   * @param depthListener told the number of keys ready to be handed out whenever it changes (the
   *     queue-depth gauge); called outside the queue's lock and must not throw
   */
  public WorkQueue(String name, Clock clock, RateLimiter<K> rateLimiter, IntConsumer depthListener) {
    this.name = name;
    this.clock = clock;
    this.rateLimiter = rateLimiter;
    this.depthListener = depthListener;
    this.timer = Executors.newSingleThreadScheduledExecutor(runnable -> {
      Thread thread = new Thread(runnable, "workqueue-" + name + "-delay");
      thread.setDaemon(true);
      return thread;
    });
  }

  public String name() {
    return name;
  }

  public RateLimiter<K> rateLimiter() {
    return rateLimiter;
  }

  /** Queues {@code key} unless it is already waiting; a key being processed is queued when done. */
  public void add(K key) {
    int depth;
    lock.lock();
    try {
      if (!addLocked(key)) {
        return;
      }
      depth = queue.size();
    } finally {
      lock.unlock();
    }
    depthListener.accept(depth);
  }

  /** Returns true when the queue grew. Caller holds the lock. */
  private boolean addLocked(K key) {
    if (shuttingDown || !dirty.add(key)) {
      return false;
    }
    if (processing.contains(key)) {
      return false;
    }
    queue.addLast(key);
    available.signal();
    return true;
  }

  /** Queues {@code key} once {@code delay} has passed; zero or negative delays add at once. */
  public void addAfter(K key, Duration delay) {
    if (delay == null || delay.isNegative() || delay.isZero()) {
      add(key);
      return;
    }
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      Instant readyAt = clock.instant().plus(delay);
      Instant current = waitingUntil.get(key);
      if (current != null && !readyAt.isBefore(current)) {
        return; // already parked for an earlier time
      }
      waitingUntil.put(key, readyAt);
      waiting.add(new Waiting<>(readyAt, sequence++, key));
      scheduleWakeUpLocked();
    } finally {
      lock.unlock();
    }
  }

  /** Queues {@code key} after the rate limiter's delay for it (a retry). */
  public void addRateLimited(K key) {
    addAfter(key, rateLimiter.when(key));
  }

  /** Resets {@code key}'s retry backoff. */
  public void forget(K key) {
    rateLimiter.forget(key);
  }

  /** Retries recorded for {@code key} since it was last forgotten. */
  public int numRequeues(K key) {
    return rateLimiter.retries(key);
  }

  /**
   * Blocks until a key is ready and hands it out, marking it as being processed; empty once the
   * queue is shut down. Every key handed out must be passed to {@link #done} afterwards.
   */
  public Optional<K> get() throws InterruptedException {
    return take(false, 0);
  }

  /** Like {@link #get()} but gives up after {@code timeout}, returning empty. */
  public Optional<K> poll(Duration timeout) throws InterruptedException {
    return take(true, timeout.toNanos());
  }

  /** Hands out the first key, waiting at most {@code nanos} when {@code timed}, else for ever. */
  private Optional<K> take(boolean timed, long nanos) throws InterruptedException {
    K key;
    int depth;
    lock.lockInterruptibly();
    try {
      while (queue.isEmpty() && !shuttingDown) {
        if (!timed) {
          available.await();
        } else if (nanos <= 0) {
          return Optional.empty();
        } else {
          nanos = available.awaitNanos(nanos);
        }
      }
      if (shuttingDown) {
        return Optional.empty();
      }
      key = queue.pollFirst();
      processing.add(key);
      dirty.remove(key);
      depth = queue.size();
    } finally {
      lock.unlock();
    }
    depthListener.accept(depth);
    return Optional.of(key);
  }

  /** Marks {@code key} as processed; if it was added while being processed it is queued again. */
  public void done(K key) {
    int depth;
    lock.lock();
    try {
      processing.remove(key);
      if (!dirty.contains(key) || shuttingDown) {
        return;
      }
      queue.addLast(key);
      available.signal();
      depth = queue.size();
    } finally {
      lock.unlock();
    }
    depthListener.accept(depth);
  }

  /**
   * Moves every parked key whose time has come (by the queue's clock) into the queue. The delay
   * thread calls this on time; tests that step a {@code TestingClock} call it directly.
   */
  public void promoteDue() {
    int depth;
    boolean grew = false;
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      Instant now = clock.instant();
      while (!waiting.isEmpty() && !waiting.peek().readyAt().isAfter(now)) {
        Waiting<K> next = waiting.poll();
        if (!next.readyAt().equals(waitingUntil.get(next.key()))) {
          continue; // superseded by an earlier time
        }
        waitingUntil.remove(next.key());
        grew |= addLocked(next.key());
      }
      if (wakeUp != null) {
        wakeUp.cancel(false); // harmless when it is the task running this
      }
      wakeUp = null;
      wakeUpAt = null;
      scheduleWakeUpLocked();
      depth = queue.size();
    } finally {
      lock.unlock();
    }
    if (grew) {
      depthListener.accept(depth);
    }
  }

  /** Makes sure the delay thread wakes up by the earliest parked key's time. Caller holds the lock. */
  private void scheduleWakeUpLocked() {
    while (!waiting.isEmpty() && !waiting.peek().readyAt().equals(waitingUntil.get(waiting.peek().key()))) {
      waiting.poll(); // drop superseded entries
    }
    if (waiting.isEmpty() || shuttingDown) {
      return;
    }
    Instant earliest = waiting.peek().readyAt();
    if (wakeUp != null && wakeUpAt != null && !wakeUpAt.isAfter(earliest)) {
      return;
    }
    if (wakeUp != null) {
      wakeUp.cancel(false);
    }
    long delayNanos = Math.max(0, Duration.between(clock.instant(), earliest).toNanos());
    wakeUpAt = earliest;
    wakeUp = timer.schedule(this::promoteDue, delayNanos, TimeUnit.NANOSECONDS);
  }

  /** Keys ready to be handed out. */
  public int depth() {
    return locked(() -> queue.size());
  }

  /** Keys parked by {@link #addAfter} or {@link #addRateLimited}, not yet due. */
  public int waitingCount() {
    return locked(() -> waitingUntil.size());
  }

  /** When a parked key becomes due, if it is parked. */
  public Optional<Instant> readyAt(K key) {
    return locked(() -> Optional.ofNullable(waitingUntil.get(key)));
  }

  private <T> T locked(java.util.function.Supplier<T> read) {
    lock.lock();
    try {
      return read.get();
    } finally {
      lock.unlock();
    }
  }

  /** Keys handed out and not yet done. */
  public int processingCount() {
    return locked(() -> processing.size());
  }

  /** Stops handing out keys and wakes every blocked {@link #get()}; parked keys are dropped. */
  public void shutDown() {
    lock.lock();
    try {
      if (shuttingDown) {
        return;
      }
      shuttingDown = true;
      queue.clear();
      dirty.clear();
      waiting.clear();
      waitingUntil.clear();
      available.signalAll();
    } finally {
      lock.unlock();
    }
    timer.shutdownNow();
    depthListener.accept(0);
  }

  public boolean isShuttingDown() {
    lock.lock();
    try {
      return shuttingDown;
    } finally {
      lock.unlock();
    }
  }

  @Override
  public void close() {
    shutDown();
  }
}
