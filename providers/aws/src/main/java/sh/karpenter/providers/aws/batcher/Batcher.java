package sh.karpenter.providers.aws.batcher;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * Upstream's {@code Batcher}: a window opens with the first request and closes when no request has
 * come for {@link Window#idle()}, after {@link Window#max()}, or at {@link Window#maxItems()}
 * requests; the requests in it are grouped by {@code groupKey} (requests one call can answer
 * together) and each group goes to the {@link Executor} on a virtual thread, at most {@link
 * Window#maxConcurrentCalls()} groups at once. The executor completes each {@link Call}'s future; any
 * it leaves open when it returns or throws fail with that error (or "not answered").
 *
 * <p>Thread-safe; one daemon thread collects windows. {@link #close()} sends what was queued before it
 * and fails what comes after.
 *
 * @param <I> one caller's request
 * @param <O> one caller's answer
 */
public final class Batcher<I, O> implements AutoCloseable {

  /** When a batch closes, and how many of its calls may run at once. */
  public record Window(Duration idle, Duration max, int maxItems, int maxConcurrentCalls) {
    public Window {
      if (idle.isNegative() || max.isNegative() || maxItems < 1 || maxConcurrentCalls < 1) {
        throw new IllegalArgumentException("invalid batch window " + idle + "/" + max + "/" + maxItems + "/" + maxConcurrentCalls);
      }
    }
  }

  /** One caller's request and the answer it waits for. */
  public record Call<I, O>(I input, CompletableFuture<O> result) {}

  /** Makes the API call(s) for one group and completes each call's result. */
  @FunctionalInterface
  public interface Executor<I, O> {
    void execute(List<Call<I, O>> group);
  }

  private static final Call<?, ?> STOP = new Call<>(null, null);

  private final String name;
  private final Window window;
  private final Function<I, ?> groupKey;
  private final Executor<I, O> executor;
  private final LinkedBlockingQueue<Call<I, O>> queue = new LinkedBlockingQueue<>();
  private final ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
  private final Semaphore concurrentCalls;
  private final Thread collector;
  private final AtomicLong batches = new AtomicLong();
  private volatile boolean closed;

  /**
   * @param name the API the batcher calls, for thread names and errors ({@code CreateFleet})
   * @param groupKey requests with equal keys (by {@code equals}) go to the executor together
   */
  public Batcher(String name, Window window, Function<I, ?> groupKey, Executor<I, O> executor) {
    this.name = Objects.requireNonNull(name, "name");
    this.window = Objects.requireNonNull(window, "window");
    this.groupKey = Objects.requireNonNull(groupKey, "groupKey");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.concurrentCalls = new Semaphore(window.maxConcurrentCalls());
    this.collector = Thread.ofPlatform().daemon().name("karpenter-aws-" + name.toLowerCase(java.util.Locale.ROOT) + "-batcher").start(this::collect);
  }

  /**
   * Adds the request to the current window and blocks until its group's executor answers it.
   *
   * @throws RuntimeException the executor's error for this request, as thrown
   * @throws IllegalStateException when the batcher is closed or the wait is interrupted
   */
  public O add(I input) {
    if (closed) {
      throw new IllegalStateException("the " + name + " batcher is closed");
    }
    CompletableFuture<O> result = new CompletableFuture<>();
    queue.add(new Call<>(input, result));
    try {
      return result.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for " + name, e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      if (e.getCause() instanceof Error error) {
        throw error;
      }
      throw new CompletionException(e.getCause());
    }
  }

  /** How many groups have been handed to the executor (one API call each, unless it falls back). */
  public long batches() {
    return batches.get();
  }

  @SuppressWarnings("unchecked")
  private void collect() {
    try {
      while (true) {
        Call<I, O> first = queue.take();
        if (first == STOP) {
          return;
        }
        List<Call<I, O>> batch = new ArrayList<>();
        batch.add(first);
        long maxDeadline = System.nanoTime() + window.max().toNanos();
        boolean stop = false;
        while (batch.size() < window.maxItems()) {
          long wait = Math.min(window.idle().toNanos(), maxDeadline - System.nanoTime());
          if (wait <= 0) {
            break;
          }
          Call<I, O> next = queue.poll(wait, TimeUnit.NANOSECONDS);
          if (next == null) {
            break;
          }
          if (next == STOP) {
            stop = true;
            break;
          }
          batch.add(next);
        }
        dispatch(batch);
        if (stop) {
          return;
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private void dispatch(List<Call<I, O>> batch) {
    Map<Object, List<Call<I, O>>> groups = new LinkedHashMap<>();
    for (Call<I, O> call : batch) {
      groups.computeIfAbsent(groupKey.apply(call.input()), k -> new ArrayList<>()).add(call);
    }
    for (List<Call<I, O>> group : groups.values()) {
      calls.execute(() -> {
        concurrentCalls.acquireUninterruptibly();
        try {
          run(group);
        } finally {
          concurrentCalls.release();
        }
      });
    }
  }

  private void run(List<Call<I, O>> group) {
    batches.incrementAndGet();
    Throwable failure = null;
    try {
      executor.execute(group);
    } catch (RuntimeException | Error e) {
      failure = e;
    }
    for (Call<I, O> call : group) {
      if (!call.result().isDone()) {
        call.result().completeExceptionally(failure != null ? failure : new IllegalStateException(name + " batch left this request unanswered"));
      }
    }
    if (failure instanceof Error error) {
      throw error;
    }
  }

  /** Stops collecting; requests queued before the stop are still sent, later ones fail. */
  @Override
  @SuppressWarnings("unchecked")
  public void close() {
    if (!closed) {
      closed = true;
      queue.add((Call<I, O>) STOP);
      try {
        collector.join(Duration.ofSeconds(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      // requests that raced with close: fail them rather than leave their callers waiting
      for (Call<I, O> call = queue.poll(); call != null; call = queue.poll()) {
        if (call != STOP) {
          call.result().completeExceptionally(new IllegalStateException("the " + name + " batcher is closed"));
        }
      }
      calls.shutdown();
    }
  }
}
