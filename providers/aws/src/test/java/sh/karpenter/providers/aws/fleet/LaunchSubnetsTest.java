package sh.karpenter.providers.aws.fleet;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.Subnet;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.providers.aws.LaunchFixtures;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.DescribeSubnetsRequest;
import software.amazon.awssdk.services.ec2.model.DescribeSubnetsResponse;

class LaunchSubnetsTest {

  /** DescribeSubnets answering from a map of free addresses, counting calls. */
  private static final class TestingEc2 implements Ec2Client {
    final Map<String, Integer> free = new LinkedHashMap<>();
    final AtomicInteger describes = new AtomicInteger();

    @Override
    public DescribeSubnetsResponse describeSubnets(DescribeSubnetsRequest request) {
      describes.incrementAndGet();
      return DescribeSubnetsResponse.builder()
          .subnets(request.subnetIds().stream()
              .map(id -> software.amazon.awssdk.services.ec2.model.Subnet.builder().subnetId(id).availableIpAddressCount(free.get(id)).build())
              .toList())
          .build();
    }

    @Override
    public String serviceName() {
      return "ec2";
    }

    @Override
    public void close() {}
  }

  private final TestingClock clock = new TestingClock();
  private final TestingEc2 ec2 = new TestingEc2();
  private final LaunchSubnets subnets = new LaunchSubnets(ec2, clock);

  private static EC2NodeClass nodeClass() {
    EC2NodeClass nodeClass = LaunchFixtures.nodeClass("default", "al2023@latest", Map.of(), "sg-1", List.of());
    nodeClass.getStatus().setSubnets(List.of(
        new Subnet("subnet-a1", "us-west-2a", "usw2-az2"),
        new Subnet("subnet-a2", "us-west-2a", "usw2-az2"),
        new Subnet("subnet-b1", "us-west-2b", "usw2-az1")));
    return nodeClass;
  }

  @Test
  void eachZoneLaunchesIntoItsSubnetWithTheMostFreeAddresses() {
    ec2.free.putAll(Map.of("subnet-a1", 10, "subnet-a2", 11, "subnet-b1", 5));
    Map<String, LaunchSubnets.LaunchSubnet> zonal = subnets.zonalSubnetsForLaunch(nodeClass());
    assertEquals("subnet-a2", zonal.get("us-west-2a").id());
    assertEquals("subnet-b1", zonal.get("us-west-2b").id());
    assertEquals("usw2-az1", zonal.get("us-west-2b").zoneId());

    subnets.launched("subnet-a2");
    subnets.launched("subnet-a2");
    assertEquals("subnet-a1", subnets.zonalSubnetsForLaunch(nodeClass()).get("us-west-2a").id(), "launches use addresses up");
    assertEquals(1, ec2.describes.get(), "counts are kept");
  }

  @Test
  void anExhaustedSubnetGoesLastUntilTheNextDescribe() {
    ec2.free.putAll(Map.of("subnet-a1", 10, "subnet-a2", 200, "subnet-b1", 5));
    subnets.zonalSubnetsForLaunch(nodeClass());
    subnets.exhausted("subnet-a2");
    assertEquals("subnet-a1", subnets.zonalSubnetsForLaunch(nodeClass()).get("us-west-2a").id());
    clock.step(LaunchSubnets.TTL.plus(Duration.ofSeconds(1)));
    assertEquals("subnet-a2", subnets.zonalSubnetsForLaunch(nodeClass()).get("us-west-2a").id());
    assertEquals(2, ec2.describes.get());
  }
}
