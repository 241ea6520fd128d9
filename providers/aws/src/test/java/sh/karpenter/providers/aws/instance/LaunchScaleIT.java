package sh.karpenter.providers.aws.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import sh.karpenter.api.aws.v1.ZoneInfo;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.LaunchFixtures;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;
import sh.karpenter.providers.aws.fleet.CreateFleetBatcher;
import sh.karpenter.providers.aws.instancetype.InstanceTypeProvider;
import sh.karpenter.providers.aws.instancetype.NodeClassInputs;
import sh.karpenter.providers.aws.pricing.PricingProvider;
import sh.karpenter.testkit.aws.AwsEmulator;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.ClusterNetwork;
import software.amazon.awssdk.services.ec2.Ec2Client;

/**
 * Measures launching many instances through the InstanceProvider and the CreateFleet batcher against
 * the emulator: wall time and CreateFleet calls, printed, not asserted. Off unless
 * {@code -Dkarpenter.aws.launchScale=true} ({@code -Dkarpenter.aws.launchScale.count=N}, default 500;
 * {@code .threads}, default 100). See docs/behaviour/aws-launch.md#measured.
 * {@link #refreshInstanceTypesAndPrices} times one full price and instance-type refresh.
 */
@AwsEmulatorTest
@EnabledIfSystemProperty(named = "karpenter.aws.launchScale", matches = "true")
class LaunchScaleIT {

  @Test
  void launchMany(Ec2Client ec2) throws Exception {
    int count = Integer.getInteger("karpenter.aws.launchScale.count", 500);
    int threads = Integer.getInteger("karpenter.aws.launchScale.threads", 100);
    // a /24 has 251 free addresses and moto launches every unit from the first override: use /20s
    String vpc = ec2.createVpc(r -> r.cidrBlock("10.0.0.0/16")).vpc().vpcId();
    Map<String, String> subnets = new LinkedHashMap<>();
    for (int i = 0; i < InstanceProviderIT.ZONES.size(); i++) {
      String cidr = "10.0." + (16 * i) + ".0/20";
      String zone = InstanceProviderIT.ZONES.get(i);
      subnets.put(zone, ec2.createSubnet(r -> r.vpcId(vpc).cidrBlock(cidr).availabilityZone(zone)).subnet().subnetId());
    }
    String sg = ec2.createSecurityGroup(r -> r.vpcId(vpc).groupName("nodes").description("nodes")).groupId();
    ClusterNetwork network = new ClusterNetwork(InstanceProviderIT.CLUSTER, vpc, subnets, sg);
    try (InstanceProviderIT.Launch launch = InstanceProviderIT.Launch.create(ec2, ec2, CreateFleetBatcher.DEFAULT_WINDOW, network)) {
      LaunchRequest request = LaunchFixtures.request("default-pool", "default", Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND));
      ExecutorService pool = Executors.newFixedThreadPool(threads);
      long start = System.nanoTime();
      Set<String> ids = new HashSet<>();
      try {
        List<Future<Instance>> futures = new ArrayList<>();
        for (int i = 0; i < count; i++) {
          futures.add(pool.submit(() -> launch.instances().create(launch.nodeClass(), request, InstanceProviderIT.candidates())));
        }
        for (Future<Instance> f : futures) {
          ids.add(f.get().providerId());
        }
      } finally {
        pool.shutdownNow();
      }
      Duration wall = Duration.ofNanos(System.nanoTime() - start);
      long listStart = System.nanoTime();
      int listed = launch.instances().list().size();
      Duration listTime = Duration.ofNanos(System.nanoTime() - listStart);
      System.out.printf("LAUNCH-SCALE: %d instances, %d threads: %d ms wall, %d CreateFleet calls (%.1f instances per call); list() of %d took %d ms%n",
          ids.size(), threads, wall.toMillis(), launch.batcher().calls(), (double) ids.size() / launch.batcher().calls(), listed, listTime.toMillis());
      assertEquals(count, ids.size());
    }
  }

  /** One full refresh of prices and instance types (what the controller's loops do every 12 hours), timed. */
  @Test
  void refreshInstanceTypesAndPrices(Ec2Client ec2) {
    Clock clock = Clock.systemUTC();
    String region = AwsEmulator.REGION.id();
    long start = System.nanoTime();
    PricingProvider pricing = new PricingProvider(ec2, region, clock);
    pricing.refresh();
    long priced = System.nanoTime();
    InstanceTypeProvider types = new InstanceTypeProvider(ec2, region, pricing, new UnavailableOfferings(clock),
        InstanceTypeProvider.Settings.DEFAULT, clock);
    types.refresh();
    long refreshed = System.nanoTime();
    int listed = types.list(NodeClassInputs.of(types.zones().stream().map(z -> new ZoneInfo(z, null, List.of())).toList())).size();
    long end = System.nanoTime();
    System.out.printf("REFRESH: prices %d ms, instance types and offerings %d ms (%d types in %s), first list() %d ms%n",
        (priced - start) / 1_000_000, (refreshed - priced) / 1_000_000, listed, types.zones(), (end - refreshed) / 1_000_000);
    assertEquals(true, listed > 0);
  }
}
