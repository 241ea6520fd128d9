package sh.karpenter.providers.aws.instance;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
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
    Map<String, List<Batcher.Call<DescribeInstancesRequest, DescribeInstancesResponse>>> callsById = new LinkedHashMap<>();
    group.forEach(call -> callsById.computeIfAbsent(call.input().instanceIds().get(0), id -> new ArrayList<>()).add(call));
    DescribeInstancesRequest first = group.get(0).input();
    Map<String, DescribeInstancesResponse> found = new HashMap<>();
    try {
      DescribeInstancesRequest merged = first.toBuilder().instanceIds(List.copyOf(callsById.keySet())).nextToken(null).build();
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
    // closing the executor waits for the one-by-one lookups, each of which completes its own callers
    try (ExecutorService singles = Executors.newVirtualThreadPerTaskExecutor()) {
      callsById.forEach((id, calls) -> {
        DescribeInstancesResponse answer = found.get(id);
        if (answer != null) {
          calls.forEach(call -> call.result().complete(answer));
          return;
        }
        singles.execute(() -> {
          try {
            DescribeInstancesResponse alone = api.apply(first.toBuilder().instanceIds(id).nextToken(null).build());
            calls.forEach(call -> call.result().complete(alone));
          } catch (RuntimeException e) {
            calls.forEach(call -> call.result().completeExceptionally(e));
          }
        });
      });
    }
  }

  /** Stops collecting; requests queued before the stop are still sent, later ones fail. */
  @Override
  public void close() {
    batcher.close();
  }
}
