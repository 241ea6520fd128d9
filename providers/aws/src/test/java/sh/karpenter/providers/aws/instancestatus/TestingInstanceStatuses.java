package sh.karpenter.providers.aws.instancestatus;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceStatusRequest;
import software.amazon.awssdk.services.ec2.model.DescribeInstanceStatusResponse;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;
import software.amazon.awssdk.services.ec2.model.InstanceStatusDetails;
import software.amazon.awssdk.services.ec2.model.InstanceStatusEvent;
import software.amazon.awssdk.services.ec2.model.InstanceStatusSummary;

/**
 * An EC2 client that answers {@code DescribeInstanceStatus} from a list as EC2 does: the {@code
 * instance-status.status}, {@code system-status.status} and {@code event.code} filters (ANDed across
 * names), pages of {@link #pageSize}; it records the requests and can fail the next calls.
 */
public final class TestingInstanceStatuses implements Ec2Client {
  public final List<InstanceStatus> statuses = Collections.synchronizedList(new ArrayList<>());
  public final List<DescribeInstanceStatusRequest> requests = Collections.synchronizedList(new ArrayList<>());
  public volatile int pageSize = 1000;
  /** The next calls fail with this error code (HTTP 400) while {@link #failures} is positive. */
  public volatile String failureCode;
  public volatile int failures;

  /** An instance whose instance or system check ({@code instance}: which) has failed since {@code since}. */
  public static InstanceStatus impaired(String instanceId, boolean instance, Instant since) {
    InstanceStatusSummary failed = InstanceStatusSummary.builder().status("impaired")
        .details(InstanceStatusDetails.builder().name("reachability").status("failed").impairedSince(since).build()).build();
    InstanceStatusSummary ok = InstanceStatusSummary.builder().status("ok")
        .details(InstanceStatusDetails.builder().name("reachability").status("passed").build()).build();
    return InstanceStatus.builder().instanceId(instanceId)
        .instanceStatus(instance ? failed : ok).systemStatus(instance ? ok : failed).build();
  }

  /** A healthy instance with a scheduled event of this code. */
  public static InstanceStatus scheduled(String instanceId, String code) {
    InstanceStatusSummary ok = InstanceStatusSummary.builder().status("ok")
        .details(InstanceStatusDetails.builder().name("reachability").status("passed").build()).build();
    return InstanceStatus.builder().instanceId(instanceId).instanceStatus(ok).systemStatus(ok)
        .events(InstanceStatusEvent.builder().code(code).description("The instance is running on degraded hardware").build()).build();
  }

  public TestingInstanceStatuses add(InstanceStatus status) {
    statuses.add(status);
    return this;
  }

  public TestingInstanceStatuses failNext(String code, int times) {
    failureCode = code;
    failures = times;
    return this;
  }

  @Override
  public DescribeInstanceStatusResponse describeInstanceStatus(DescribeInstanceStatusRequest request) {
    requests.add(request);
    if (failures > 0) {
      failures--;
      throw AwsServiceException.builder().statusCode(400)
          .awsErrorDetails(AwsErrorDetails.builder().errorCode(failureCode).errorMessage("You are not authorized to perform this operation.").build())
          .build();
    }
    List<InstanceStatus> matching;
    synchronized (statuses) {
      matching = statuses.stream().filter(s -> request.filters().stream().allMatch(f -> matches(s, f))).toList();
    }
    int from = request.nextToken() == null ? 0 : Integer.parseInt(request.nextToken());
    int to = Math.min(matching.size(), from + pageSize);
    return DescribeInstanceStatusResponse.builder()
        .instanceStatuses(matching.subList(from, to))
        .nextToken(to < matching.size() ? String.valueOf(to) : null)
        .build();
  }

  private static boolean matches(InstanceStatus status, Filter filter) {
    return switch (filter.name()) {
      case "instance-status.status" -> status.instanceStatus() != null && filter.values().contains(status.instanceStatus().statusAsString());
      case "system-status.status" -> status.systemStatus() != null && filter.values().contains(status.systemStatus().statusAsString());
      case "event.code" -> status.events().stream().anyMatch(e -> filter.values().contains(e.codeAsString()));
      default -> throw new IllegalArgumentException("TestingInstanceStatuses: no filter " + filter.name());
    };
  }

  @Override
  public String serviceName() {
    return "ec2";
  }

  @Override
  public void close() {}
}
