package sh.karpenter.providers.aws.instancestatus;

import java.time.Instant;
import java.util.List;

/**
 * An instance with at least one failed check (upstream's {@code instancestatus.HealthStatus}).
 *
 * @param instanceId the EC2 instance
 * @param impairedSince the earliest {@link Details#impairedSince()} of {@code details}
 * @param details the failed checks that count: past the unhealthy threshold, or scheduled events
 */
public record HealthStatus(String instanceId, Instant impairedSince, List<Details> details) {
  public HealthStatus {
    details = List.copyOf(details);
  }
}
