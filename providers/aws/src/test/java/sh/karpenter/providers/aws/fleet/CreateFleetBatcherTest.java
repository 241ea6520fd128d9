package sh.karpenter.providers.aws.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import sh.karpenter.providers.aws.batcher.Batcher;
import sh.karpenter.core.wellknown.Labels;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.ec2.model.CreateFleetError;
import software.amazon.awssdk.services.ec2.model.CreateFleetInstance;
import software.amazon.awssdk.services.ec2.model.CreateFleetRequest;
import software.amazon.awssdk.services.ec2.model.CreateFleetResponse;

/**
 * The batcher with a hand-written CreateFleet. Windows close on their item count (a long idle time),
 * so the tests do not depend on timing.
 */
class CreateFleetBatcherTest {
  private static final CreateFleetRequest A = CreateFleetRequests.build(Labels.CAPACITY_TYPE_ON_DEMAND, Map.of("k", "a"), List.of(), null);
  private static final CreateFleetRequest B = CreateFleetRequests.build(Labels.CAPACITY_TYPE_ON_DEMAND, Map.of("k", "b"), List.of(), null);

  /** A fake CreateFleet launching {@code launch.apply(capacity)} instances and recording each call's capacity. */
  private static final class TestingCreateFleet implements Function<CreateFleetRequest, CreateFleetResponse> {
    final List<Integer> capacities = Collections.synchronizedList(new ArrayList<>());
    final Function<Integer, Integer> launch;
    final AtomicInteger ids = new AtomicInteger();

    TestingCreateFleet(Function<Integer, Integer> launch) {
      this.launch = launch;
    }

    @Override
    public CreateFleetResponse apply(CreateFleetRequest request) {
      int capacity = request.targetCapacitySpecification().totalTargetCapacity();
      capacities.add(capacity);
      int n = launch.apply(capacity);
      List<String> instanceIds = new ArrayList<>();
      for (int i = 0; i < n; i++) {
        instanceIds.add("i-" + ids.incrementAndGet());
      }
      CreateFleetResponse.Builder out = CreateFleetResponse.builder().fleetId("fleet-1")
          .instances(CreateFleetInstance.builder().instanceIds(instanceIds).instanceType("m5.large").build());
      if (n < capacity) {
        out.errors(CreateFleetError.builder().errorCode("InsufficientInstanceCapacity").errorMessage("no capacity").build());
      }
      return out.build();
    }
  }

  private static List<CreateFleetResponse> concurrently(CreateFleetBatcher batcher, List<CreateFleetRequest> requests) throws Exception {
    ExecutorService pool = Executors.newFixedThreadPool(requests.size());
    try {
      List<Future<CreateFleetResponse>> futures = new ArrayList<>();
      for (CreateFleetRequest r : requests) {
        futures.add(pool.submit(() -> batcher.createFleet(r)));
      }
      List<CreateFleetResponse> out = new ArrayList<>();
      for (Future<CreateFleetResponse> f : futures) {
        out.add(f.get());
      }
      return out;
    } finally {
      pool.shutdownNow();
    }
  }

  @Test
  void identicalRequestsBecomeOneCallAndEachCallerGetsOneInstance() throws Exception {
    TestingCreateFleet api = new TestingCreateFleet(capacity -> capacity);
    try (CreateFleetBatcher batcher = new CreateFleetBatcher(api, new Batcher.Window(Duration.ofSeconds(30), Duration.ofSeconds(60), 5, 10))) {
      List<CreateFleetResponse> out = concurrently(batcher, Collections.nCopies(5, A));
      assertEquals(List.of(5), api.capacities);
      Set<String> ids = new HashSet<>();
      for (CreateFleetResponse r : out) {
        assertEquals(1, r.instances().size());
        assertEquals(1, r.instances().get(0).instanceIds().size());
        ids.add(r.instances().get(0).instanceIds().get(0));
      }
      assertEquals(5, ids.size(), "every caller its own instance");
      assertEquals(1, batcher.calls());
    }
  }

  @Test
  void differentRequestsAreSeparateCalls() throws Exception {
    TestingCreateFleet api = new TestingCreateFleet(capacity -> capacity);
    try (CreateFleetBatcher batcher = new CreateFleetBatcher(api, new Batcher.Window(Duration.ofSeconds(30), Duration.ofSeconds(60), 6, 10))) {
      concurrently(batcher, List.of(A, B, A, B, A, A));
      List<Integer> capacities = new ArrayList<>(api.capacities);
      Collections.sort(capacities);
      assertEquals(List.of(2, 4), capacities);
    }
  }

  @Test
  void callersLeftWithoutAnInstanceGetTheErrors() throws Exception {
    TestingCreateFleet api = new TestingCreateFleet(capacity -> 1);
    try (CreateFleetBatcher batcher = new CreateFleetBatcher(api, new Batcher.Window(Duration.ofSeconds(30), Duration.ofSeconds(60), 3, 10))) {
      List<CreateFleetResponse> out = concurrently(batcher, Collections.nCopies(3, A));
      assertEquals(1, out.stream().filter(r -> !r.instances().isEmpty()).count());
      List<CreateFleetResponse> empty = out.stream().filter(r -> r.instances().isEmpty()).toList();
      assertEquals(2, empty.size());
      empty.forEach(r -> assertEquals("InsufficientInstanceCapacity", r.errors().get(0).errorCode()));
    }
  }

  @Test
  void aFailedCallFailsEveryCallerOfItsGroup() throws Exception {
    Function<CreateFleetRequest, CreateFleetResponse> api = r -> {
      throw AwsServiceException.builder().message("boom").build();
    };
    try (CreateFleetBatcher batcher = new CreateFleetBatcher(api, new Batcher.Window(Duration.ofSeconds(30), Duration.ofSeconds(60), 2, 10))) {
      java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class, () -> concurrently(batcher, Collections.nCopies(2, A)));
      assertTrue(e.getCause() instanceof AwsServiceException);
    }
  }

  @Test
  void anIdleWindowClosesTheBatch() {
    TestingCreateFleet api = new TestingCreateFleet(capacity -> capacity);
    try (CreateFleetBatcher batcher = new CreateFleetBatcher(api, new Batcher.Window(Duration.ofMillis(10), Duration.ofSeconds(60), 1000, 10))) {
      assertEquals(1, batcher.createFleet(A).instances().size());
      assertEquals(List.of(1), api.capacities);
    }
  }

  @Test
  void onlySingleInstanceRequestsAreAccepted() {
    TestingCreateFleet api = new TestingCreateFleet(capacity -> capacity);
    try (CreateFleetBatcher batcher = new CreateFleetBatcher(api, CreateFleetBatcher.DEFAULT_WINDOW)) {
      CreateFleetRequest two = A.toBuilder().targetCapacitySpecification(A.targetCapacitySpecification().toBuilder().totalTargetCapacity(2).build()).build();
      assertThrows(IllegalArgumentException.class, () -> batcher.createFleet(two));
    }
  }
}
