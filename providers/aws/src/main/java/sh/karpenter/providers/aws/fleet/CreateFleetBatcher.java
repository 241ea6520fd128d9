package sh.karpenter.providers.aws.fleet;

import java.time.Duration;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.providers.aws.batcher.Batcher;
import software.amazon.awssdk.services.ec2.model.CreateFleetError;
import software.amazon.awssdk.services.ec2.model.CreateFleetInstance;
import software.amazon.awssdk.services.ec2.model.CreateFleetRequest;
import software.amazon.awssdk.services.ec2.model.CreateFleetResponse;

/**
 * Merges identical single-instance CreateFleet requests into one call (upstream's {@code
 * CreateFleetBatcher}), on the generic {@link Batcher}: each group of equal requests in a window
 * becomes one CreateFleet with {@code TotalTargetCapacity} = the group's size, and the instances it
 * returns are handed out one per caller in order. Callers left without an instance get the call's
 * errors (or "too few instances returned"); a failed call fails every caller of its group.
 * Thread-safe. {@link #close()} stops it.
 */
public final class CreateFleetBatcher implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(CreateFleetBatcher.class);

  /** Upstream's window: 35 ms idle, 1 s max, 1,000 items; at most 100 calls at once. */
  public static final Batcher.Window DEFAULT_WINDOW = new Batcher.Window(Duration.ofMillis(35), Duration.ofSeconds(1), 1_000, 100);

  private final Function<CreateFleetRequest, CreateFleetResponse> api;
  private final Batcher<CreateFleetRequest, CreateFleetResponse> batcher;

  /** @param api CreateFleet, e.g. {@code ec2::createFleet} */
  public CreateFleetBatcher(Function<CreateFleetRequest, CreateFleetResponse> api, Batcher.Window window) {
    this.api = Objects.requireNonNull(api, "api");
    this.batcher = new Batcher<>("CreateFleet", window, request -> request, this::run);
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
    return batcher.add(request);
  }

  /** How many CreateFleet calls the batcher has made. */
  public long calls() {
    return batcher.batches();
  }

  private void run(List<Batcher.Call<CreateFleetRequest, CreateFleetResponse>> group) {
    CreateFleetRequest first = group.get(0).input();
    CreateFleetRequest merged = first.toBuilder()
        .targetCapacitySpecification(first.targetCapacitySpecification().toBuilder().totalTargetCapacity(group.size()).build())
        .build();
    CreateFleetResponse output = api.apply(merged);
    List<CreateFleetResponse> answers = fanOut(output, group.size());
    for (int i = 0; i < group.size(); i++) {
      group.get(i).result().complete(answers.get(i));
    }
  }

  /** Upstream's {@code execCreateFleetBatch} fan-out: one instance per caller, in order, errors to the rest. */
  static List<CreateFleetResponse> fanOut(CreateFleetResponse output, int callers) {
    List<CreateFleetResponse> results = new java.util.ArrayList<>(callers);
    for (CreateFleetInstance reservation : output.instances()) {
      for (String instanceId : reservation.instanceIds()) {
        if (results.size() >= callers) {
          LOG.error("received more instances than requested, ignoring instance {}", instanceId);
          continue;
        }
        results.add(CreateFleetResponse.builder()
            .fleetId(output.fleetId())
            .errors(output.errors())
            .instances(reservation.toBuilder().instanceIds(instanceId).build())
            .build());
      }
    }
    if (results.size() < callers) {
      List<CreateFleetError> errors = output.errors().isEmpty()
          ? List.of(CreateFleetError.builder().errorCode("too few instances returned").errorMessage("too few instances returned").build())
          : output.errors();
      while (results.size() < callers) {
        results.add(CreateFleetResponse.builder().fleetId(output.fleetId()).errors(errors).build());
      }
    }
    return results;
  }

  /** Stops collecting; requests queued before the stop are still sent, later ones fail. */
  @Override
  public void close() {
    batcher.close();
  }
}
