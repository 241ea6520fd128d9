package sh.karpenter.api.aws.v1;

import java.util.ArrayList;
import java.util.List;

/**
 * One zone of an EC2NodeClass's resolved subnets (upstream's {@code ZoneInfo}).
 *
 * @param zone the availability zone name ({@code us-west-2a})
 * @param zoneId the availability zone ID ({@code usw2-az1}); empty when the status has none
 * @param subnetIds the subnets in it, in status order
 */
public record ZoneInfo(String zone, String zoneId, List<String> subnetIds) {
  public ZoneInfo {
    subnetIds = List.copyOf(subnetIds);
  }

  static final class Builder {
    private final String zone;
    private final String zoneId;
    final List<String> subnetIds = new ArrayList<>();

    Builder(String zone, String zoneId) {
      this.zone = zone;
      this.zoneId = zoneId;
    }

    ZoneInfo build() {
      return new ZoneInfo(zone, zoneId, subnetIds);
    }
  }
}
