package sh.karpenter.providers.aws.fleet;

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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.ec2.model.CreateFleetError;
import software.amazon.awssdk.services.ec2.model.CreateFleetInstance;
import software.amazon.awssdk.services.ec2.model.CreateFleetRequest;
import software.amazon.awssdk.services.ec2.model.CreateFleetResponse;

/**
 * Merges identical single-instance CreateFleet requests into one call (upstream's {@code
 * CreateFleetBatcher}). A window opens with the first request and closes when no request has come
 * for {@link Window#idle()}, after {@link Window#max()}, or at {@link Window#maxItems()} requests;
 * each group of equal requests in it becomes one CreateFleet with {@code TotalTargetCapacity} = the
 * group's size, and the instances it returns are handed out one per caller in order. Callers left
 * without an instance get the call's errors (or "too few instances returned"); a failed call fails
 * every caller of its group. Thread-safe; one daemon thread collects windows and calls run on
 * virtual threads, at most {@link Window#maxConcurrentCalls()} at once. {@link #close()} stops it.
 */
public final class CreateFleetBatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CreateFleetBatcher.class);

  /**
   * When a batch closes: upstream's 35 ms idle, 1 s max, 1,000 items, 100 concurrent calls.
   */
  public record Window(Duration idle, Duration max, int maxItems, int maxConcurrentCalls) {
    public static final Window DEFAULT = new Window(Duration.ofMillis(35), Duration.ofSeconds(1), 1_000, 100);

    public Window {
      if (idle.isNegative() || max.isNegative() || maxItems < 1 || maxConcurrentCalls < 1) {
        throw new IllegalArgumentException("invalid CreateFleet batch window " + idle + "/" + max + "/" + maxItems + "/" + maxConcurrentCalls);
      }
    }
  }

  private record Pending(CreateFleetRequest request, CompletableFuture<CreateFleetResponse> result) {}

  private static final Pending STOP = new Pending(null, null);

  private final Function<CreateFleetRequest, CreateFleetResponse> api;
  private final Window window;
  private final LinkedBlockingQueue<Pending> queue = new LinkedBlockingQueue<>();
  private final ExecutorService calls = Executors.newVirtualThreadPerTaskExecutor();
  private final Semaphore concurrentCalls;
  private final Thread collector;
  private final AtomicLong callCount = new AtomicLong();
  private volatile boolean closed;

  /** @param api CreateFleet, e.g. {@code ec2::createFleet} */
  public CreateFleetBatcher(Function<CreateFleetRequest, CreateFleetResponse> api, Window window) {
    this.api = Objects.requireNonNull(api, "api");
    this.window = Objects.requireNonNull(window, "window");
    this.concurrentCalls = new Semaphore(window.maxConcurrentCalls());
    this.collector = Thread.ofPlatform().daemon().name("karpenter-aws-createfleet-batcher").start(this::collect);
  }

  /**
   * Launches the request's one instance as part of a batch; blocks until its batch's call returns.
   *
   * @return a response holding at most one instance (none: the errors say why)
   * @throws IllegalArgumentException when the request asks for more than one instance
   * @throws software.amazon.awssdk.core.exception.SdkException when the batch's call fails
   */
  public CreateFleetResponse createFleet(CreateFleetRequest request) {
    if (request.targetCapacitySpecification() != null && request.targetCapacitySpecification().totalTargetCapacity() != 1) {
      throw new IllegalArgumentException("expected to receive a single instance only, got TotalTargetCapacity "
          + request.targetCapacitySpecification().totalTargetCapacity());
    }
    if (closed) {
      throw new IllegalStateException("the CreateFleet batcher is closed");
    }
    CompletableFuture<CreateFleetResponse> result = new CompletableFuture<>();
    queue.add(new Pending(request, result));
    try {
      return result.get();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for CreateFleet", e);
    } catch (ExecutionException e) {
      if (e.getCause() instanceof RuntimeException re) {
        throw re;
      }
      throw new CompletionException(e.getCause());
    }
  }

  /** How many CreateFleet calls the batcher has made. */
  public long calls() {
    return callCount.get();
  }

  private void collect() {
    try {
      while (true) {
        Pending first = queue.take();
        if (first == STOP) {
          return;
        }
        List<Pending> batch = new ArrayList<>();
        batch.add(first);
        long maxDeadline = System.nanoTime() + window.max().toNanos();
        boolean stop = false;
        while (batch.size() < window.maxItems()) {
          long wait = Math.min(window.idle().toNanos(), maxDeadline - System.nanoTime());
          if (wait <= 0) {
            break;
          }
          Pending next = queue.poll(wait, TimeUnit.NANOSECONDS);
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

  private void dispatch(List<Pending> batch) {
    Map<CreateFleetRequest, List<Pending>> groups = new LinkedHashMap<>();
    for (Pending p : batch) {
      groups.computeIfAbsent(p.request(), r -> new ArrayList<>()).add(p);
    }
    for (List<Pending> group : groups.values()) {
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

  private void run(List<Pending> group) {
    CreateFleetRequest first = group.get(0).request();
    CreateFleetRequest merged = first.toBuilder()
        .targetCapacitySpecification(first.targetCapacitySpecification().toBuilder().totalTargetCapacity(group.size()).build())
        .build();
    CreateFleetResponse output;
    try {
      callCount.incrementAndGet();
      output = api.apply(merged);
    } catch (RuntimeException e) {
      group.forEach(p -> p.result().completeExceptionally(e));
      return;
    } catch (Error e) {
      group.forEach(p -> p.result().completeExceptionally(e));
      throw e;
    }
    for (Map.Entry<Pending, CreateFleetResponse> e : fanOut(output, group).entrySet()) {
      e.getKey().result().complete(e.getValue());
    }
  }

  /** Upstream's {@code execCreateFleetBatch} fan-out: one instance per caller, errors to the rest. */
  static Map<Pending, CreateFleetResponse> fanOut(CreateFleetResponse output, List<Pending> group) {
    Map<Pending, CreateFleetResponse> results = new LinkedHashMap<>();
    int next = 0;
    for (CreateFleetInstance reservation : output.instances()) {
      for (String instanceId : reservation.instanceIds()) {
        if (next >= group.size()) {
          LOG.error("received more instances than requested, ignoring instance {}", instanceId);
          continue;
        }
        results.put(group.get(next++), CreateFleetResponse.builder()
            .fleetId(output.fleetId())
            .errors(output.errors())
            .instances(reservation.toBuilder().instanceIds(instanceId).build())
            .build());
      }
    }
    if (next < group.size()) {
      List<CreateFleetError> errors = output.errors().isEmpty()
          ? List.of(CreateFleetError.builder().errorCode("too few instances returned").errorMessage("too few instances returned").build())
          : output.errors();
      for (int i = next; i < group.size(); i++) {
        results.put(group.get(i), CreateFleetResponse.builder().fleetId(output.fleetId()).errors(errors).build());
      }
    }
    return results;
  }

  /** Stops collecting; requests queued before the stop are still sent, later ones fail. */
  @Override
  public void close() {
    if (!closed) {
      closed = true;
      queue.add(STOP);
      try {
        collector.join(Duration.ofSeconds(10));
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      // requests that raced with close: fail them rather than leave their callers waiting
      for (Pending p = queue.poll(); p != null; p = queue.poll()) {
        if (p != STOP) {
          p.result().completeExceptionally(new IllegalStateException("the CreateFleet batcher is closed"));
        }
      }
      calls.shutdown();
    }
  }
}
