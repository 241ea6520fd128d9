package sh.karpenter.providers.aws.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import sh.karpenter.providers.aws.batcher.Batcher;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstancesResponse;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.Reservation;

/**
 * The DescribeInstances batcher with a hand-written EC2 that knows some instances and records each
 * call. Windows close on their item count (a long idle time), so each test's requests share one batch.
 */
class DescribeInstancesBatcherTest {
  private static final Filter RUNNING = Filter.builder().name("instance-state-name").values("running").build();

  /** EC2 that knows {@code known}; a call naming an unknown ID fails as EC2 does, unless {@code failMerged} is off. */
  private static final class TestingEc2 implements Function<DescribeInstancesRequest, DescribeInstancesResponse> {
    final Set<String> known;
    final List<List<String>> calls = new CopyOnWriteArrayList<>();
    volatile boolean failEveryMergedCall;

    TestingEc2(Set<String> known) {
      this.known = known;
    }

    @Override
    public DescribeInstancesResponse apply(DescribeInstancesRequest request) {
      calls.add(request.instanceIds());
      if (failEveryMergedCall && request.instanceIds().size() > 1) {
        throw Ec2Exception.builder().statusCode(503).awsErrorDetails(AwsErrorDetails.builder().errorCode("Unavailable").build()).build();
      }
      for (String id : request.instanceIds()) {
        if (!known.contains(id)) {
          throw Ec2Exception.builder().statusCode(400)
              .awsErrorDetails(AwsErrorDetails.builder().errorCode("InvalidInstanceID.NotFound").errorMessage(id + " does not exist").build()).build();
        }
      }
      List<Reservation> reservations = new ArrayList<>();
      for (String id : request.instanceIds()) {
        reservations.add(Reservation.builder().reservationId("r-" + id).instances(Instance.builder().instanceId(id).build()).build());
      }
      return DescribeInstancesResponse.builder().reservations(reservations).build();
    }
  }

  private static DescribeInstancesRequest request(String id) {
    return DescribeInstancesRequest.builder().instanceIds(id).filters(RUNNING).build();
  }

  private static List<Future<DescribeInstancesResponse>> concurrently(DescribeInstancesBatcher batcher, List<String> ids, ExecutorService pool) {
    List<Future<DescribeInstancesResponse>> futures = new ArrayList<>();
    for (String id : ids) {
      futures.add(pool.submit(() -> batcher.describeInstances(request(id))));
    }
    return futures;
  }

  private static List<String> idsOf(DescribeInstancesResponse response) {
    return response.reservations().stream().flatMap(r -> r.instances().stream()).map(Instance::instanceId).toList();
  }

  private static Batcher.Window windowOf(int items) {
    return new Batcher.Window(Duration.ofSeconds(30), Duration.ofSeconds(60), items, 10);
  }

  @Test
  void concurrentLookupsBecomeOneCallAndEachCallerGetsItsOwnInstance() throws Exception {
    TestingEc2 ec2 = new TestingEc2(Set.of("i-1", "i-2", "i-3", "i-4"));
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        DescribeInstancesBatcher batcher = new DescribeInstancesBatcher(ec2, windowOf(5))) {
      List<Future<DescribeInstancesResponse>> answers = concurrently(batcher, List.of("i-1", "i-2", "i-3", "i-4", "i-2"), pool);
      List<List<String>> got = new ArrayList<>();
      for (Future<DescribeInstancesResponse> answer : answers) {
        got.add(idsOf(answer.get()));
      }
      assertEquals(List.of(List.of("i-1"), List.of("i-2"), List.of("i-3"), List.of("i-4"), List.of("i-2")), got);
      assertEquals(1, ec2.calls.size());
      assertEquals(Set.of("i-1", "i-2", "i-3", "i-4"), Set.copyOf(ec2.calls.get(0)));
      assertEquals(4, ec2.calls.get(0).size(), "a repeated ID is asked once");
      assertEquals(1, batcher.calls());
    }
  }

  @Test
  void anUnknownIdFailsOnlyItsOwnCallerAfterBeingAskedAlone() throws Exception {
    TestingEc2 ec2 = new TestingEc2(Set.of("i-1", "i-2"));
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        DescribeInstancesBatcher batcher = new DescribeInstancesBatcher(ec2, windowOf(3))) {
      List<Future<DescribeInstancesResponse>> answers = concurrently(batcher, List.of("i-1", "i-gone", "i-2"), pool);
      assertEquals(List.of("i-1"), idsOf(answers.get(0).get()));
      assertEquals(List.of("i-2"), idsOf(answers.get(2).get()));
      Exception failure = assertThrows(Exception.class, () -> answers.get(1).get());
      Ec2Exception notFound = assertInstanceOf(Ec2Exception.class, failure.getCause());
      assertEquals("InvalidInstanceID.NotFound", notFound.awsErrorDetails().errorCode());
      // the merged call failed on the unknown ID, so every ID was asked again alone
      assertEquals(4, ec2.calls.size());
      assertTrue(ec2.calls.subList(1, 4).stream().allMatch(ids -> ids.size() == 1));
    }
  }

  @Test
  void aFailedMergedCallFallsBackToOneCallPerInstance() throws Exception {
    TestingEc2 ec2 = new TestingEc2(Set.of("i-1", "i-2"));
    ec2.failEveryMergedCall = true;
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        DescribeInstancesBatcher batcher = new DescribeInstancesBatcher(ec2, windowOf(2))) {
      List<Future<DescribeInstancesResponse>> answers = concurrently(batcher, List.of("i-1", "i-2"), pool);
      assertEquals(List.of("i-1"), idsOf(answers.get(0).get()));
      assertEquals(List.of("i-2"), idsOf(answers.get(1).get()));
      assertEquals(3, ec2.calls.size());
    }
  }

  @Test
  void requestsWithDifferentFiltersAreNotMerged() throws Exception {
    TestingEc2 ec2 = new TestingEc2(Set.of("i-1", "i-2"));
    try (ExecutorService pool = Executors.newVirtualThreadPerTaskExecutor();
        DescribeInstancesBatcher batcher = new DescribeInstancesBatcher(ec2, windowOf(2))) {
      Future<DescribeInstancesResponse> running = pool.submit(() -> batcher.describeInstances(request("i-1")));
      Future<DescribeInstancesResponse> any = pool.submit(() -> batcher.describeInstances(DescribeInstancesRequest.builder().instanceIds("i-2").build()));
      assertEquals(List.of("i-1"), idsOf(running.get()));
      assertEquals(List.of("i-2"), idsOf(any.get()));
      assertEquals(2, ec2.calls.size());
      assertEquals(2, batcher.calls());
    }
  }

  @Test
  void onlySingleInstanceRequestsAreAccepted() {
    try (DescribeInstancesBatcher batcher = new DescribeInstancesBatcher(new TestingEc2(Set.of()), DescribeInstancesBatcher.DEFAULT_WINDOW)) {
      assertThrows(IllegalArgumentException.class,
          () -> batcher.describeInstances(DescribeInstancesRequest.builder().instanceIds("i-1", "i-2").build()));
    }
  }
}
