package sh.karpenter.providers.aws.instance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Function;
import sh.karpenter.providers.aws.batcher.Batcher;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesResponse;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.Reservation;

/**
 * Merges concurrent single-instance DescribeInstances requests with the same filters into one call
 * for all their IDs (upstream's {@code DescribeInstancesBatcher}: 100 ms idle, 1 s max, 500 IDs).
 * Every caller gets a response holding only its own instance. IDs the merged call did not return,
 * and every ID when the merged call fails, are asked again one by one, as upstream does: one bad or
 * not-yet-visible ID fails a whole DescribeInstances, and the individual answer (an instance, an
 * empty response, or {@code InvalidInstanceID.NotFound}) is what the caller would have got alone.
 */
public final class DescribeInstancesBatcher implements AutoCloseable {
  /** Upstream's window: 100 ms idle, 1 s max, 500 items; at most 100 calls at once. */
  public static final Batcher.Window DEFAULT_WINDOW = new Batcher.Window(Duration.ofMillis(100), Duration.ofSeconds(1), 500, 100);

  private final Function<DescribeInstancesRequest, DescribeInstancesResponse> api;
  private final Batcher<DescribeInstancesRequest, DescribeInstancesResponse> batcher;
  private final ExecutorService singles = Executors.newVirtualThreadPerTaskExecutor();

  /** @param api DescribeInstances, e.g. {@code ec2::describeInstances} */
  public DescribeInstancesBatcher(Function<DescribeInstancesRequest, DescribeInstancesResponse> api, Batcher.Window window) {
    this.api = Objects.requireNonNull(api, "api");
    this.batcher = new Batcher<>("DescribeInstances", window, request -> Set.copyOf(request.filters()), this::run);
  }

  /**
   * Describes the request's one instance as part of a batch; blocks until the answer is there.
   *
   * @throws IllegalArgumentException when the request names other than exactly one instance ID
   * @throws SdkException what EC2 answered for this instance alone (e.g. {@code InvalidInstanceID.NotFound})
   */
  public DescribeInstancesResponse describeInstances(DescribeInstancesRequest request) {
    if (request.instanceIds().size() != 1) {
      throw new IllegalArgumentException("expected to receive a single instance only, got " + request.instanceIds().size());
    }
    return batcher.add(request);
  }

  /** How many merged DescribeInstances calls the batcher has made (the one-by-one retries not counted). */
  public long calls() {
    return batcher.batches();
  }

  private void run(List<Batcher.Call<DescribeInstancesRequest, DescribeInstancesResponse>> group) {
    Set<String> ids = new LinkedHashSet<>();
    group.forEach(call -> ids.add(call.input().instanceIds().get(0)));
    DescribeInstancesRequest first = group.get(0).input();
    Map<String, DescribeInstancesResponse> found = new LinkedHashMap<>();
    try {
      DescribeInstancesRequest merged = first.toBuilder().instanceIds(List.copyOf(ids)).nextToken(null).build();
      String token = null;
      do {
        DescribeInstancesResponse page = api.apply(token == null ? merged : merged.toBuilder().nextToken(token).build());
        for (Reservation reservation : page.reservations()) {
          for (Instance instance : reservation.instances()) {
            found.put(instance.instanceId(), DescribeInstancesResponse.builder()
                .reservations(reservation.toBuilder().instances(instance).build())
                .build());
          }
        }
        token = page.nextToken();
      } while (token != null && !token.isEmpty());
    } catch (SdkException e) {
      // fall through: every ID not found yet is asked alone below
    }
    Set<String> missing = new HashSet<>(ids);
    missing.removeAll(found.keySet());
    List<java.util.concurrent.Future<?>> asked = new ArrayList<>();
    for (String id : missing) {
      asked.add(singles.submit(() -> {
        List<Batcher.Call<DescribeInstancesRequest, DescribeInstancesResponse>> mine =
            group.stream().filter(call -> id.equals(call.input().instanceIds().get(0))).toList();
        try {
          DescribeInstancesResponse alone = api.apply(first.toBuilder().instanceIds(id).nextToken(null).build());
          mine.forEach(call -> call.result().complete(alone));
        } catch (RuntimeException e) {
          mine.forEach(call -> call.result().completeExceptionally(e));
        }
      }));
    }
    for (Batcher.Call<DescribeInstancesRequest, DescribeInstancesResponse> call : group) {
      DescribeInstancesResponse answer = found.get(call.input().instanceIds().get(0));
      if (answer != null) {
        call.result().complete(answer);
      }
    }
    for (java.util.concurrent.Future<?> f : asked) {
      try {
        f.get();
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return;
      } catch (java.util.concurrent.ExecutionException e) {
        // each task completes its own calls; nothing else to do
      }
    }
  }

  /** Stops collecting; requests queued before the stop are still sent, later ones fail. */
  @Override
  public void close() {
    batcher.close();
    singles.shutdown();
  }
}
