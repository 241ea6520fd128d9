package sh.karpenter.providers.aws.instance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import sh.karpenter.providers.aws.batcher.Batcher;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.LaunchFixtures;
import sh.karpenter.providers.aws.cache.UnavailableOfferings;
import sh.karpenter.providers.aws.fleet.CreateFleetBatcher;
import sh.karpenter.providers.aws.fleet.LaunchSubnets;
import sh.karpenter.providers.aws.launchtemplate.LaunchTemplateProvider;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.aws.ClusterNetwork;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Tag;

/** The launch path against the AWS emulator (moto), faults through {@link AwsFaults}. */
@AwsEmulatorTest
class InstanceProviderIT {
  static final String CLUSTER = "test-cluster";
  static final List<String> ZONES = List.of("us-west-2a", "us-west-2b", "us-west-2c");

  /** The launch path wired to one EC2 client; closed after the test. */
  record Launch(Ec2Client ec2, InstanceProvider instances, LaunchTemplateProvider launchTemplates, CreateFleetBatcher batcher,
      DescribeInstancesBatcher describeBatcher, UnavailableOfferings unavailable, EC2NodeClass nodeClass) implements AutoCloseable {
    static Launch create(Ec2Client ec2, Ec2Client setup, Batcher.Window window) {
      return create(ec2, setup, window, ClusterNetwork.create(setup, CLUSTER, ZONES));
    }

    static Launch create(Ec2Client ec2, Ec2Client setup, Batcher.Window window, ClusterNetwork network) {
      String ami = setup.describeImages(r -> r.owners("amazon").filters(f -> f.name("architecture").values("x86_64"))).images().get(0).imageId();
      EC2NodeClass nodeClass = LaunchFixtures.nodeClass("default", "al2023@latest", network.subnetsByZone(), network.securityGroupId(),
          List.of(LaunchFixtures.ami(ami, "amd64")));
      UnavailableOfferings unavailable = new UnavailableOfferings(Clock.systemUTC());
      LaunchTemplateProvider lts = new LaunchTemplateProvider(ec2, LaunchFixtures.CLUSTER);
      CreateFleetBatcher batcher = new CreateFleetBatcher(ec2::createFleet, window);
      DescribeInstancesBatcher describeBatcher = new DescribeInstancesBatcher(ec2::describeInstances, DescribeInstancesBatcher.DEFAULT_WINDOW);
      InstanceProvider instances =
          new InstanceProvider(ec2, CLUSTER, lts, new LaunchSubnets(ec2, Clock.systemUTC()), batcher, describeBatcher, unavailable);
      return new Launch(ec2, instances, lts, batcher, describeBatcher, unavailable, nodeClass);
    }

    @Override
    public void close() {
      batcher.close();
      describeBatcher.close();
    }
  }

  static List<InstanceType> candidates() {
    return List.of(
        LaunchFixtures.instanceType("m5.large", 0.096, 0.04, ZONES),
        LaunchFixtures.instanceType("c5.large", 0.085, 0.035, ZONES),
        LaunchFixtures.instanceType("m5.xlarge", 0.192, 0.08, ZONES));
  }

  @Test
  void createLaunchesTheCheapestOfferingWithKarpentersTags(Ec2Client ec2) {
    try (Launch launch = Launch.create(ec2, ec2, CreateFleetBatcher.DEFAULT_WINDOW)) {
      LaunchRequest request = LaunchFixtures.request("default-pool", "default",
          Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND), Requirement.in(Labels.ZONE, "us-west-2b"));
      Instance instance = launch.instances().create(launch.nodeClass(), request, candidates());
      assertEquals("c5.large", instance.instanceType());
      assertEquals("us-west-2b", instance.zone());
      assertEquals(Labels.CAPACITY_TYPE_ON_DEMAND, instance.capacityType());
      assertTrue(instance.providerId().matches("aws:///us-west-2b/i-[0-9a-f]+"), instance.providerId());
      assertEquals("usw2-az2", instance.labels().get("topology.k8s.aws/zone-id"));
      assertEquals("default-pool", instance.labels().get(Labels.NODE_POOL));
      assertEquals("2", instance.capacity().toQuantities().get("cpu"));

      var described = ec2.describeInstances(r -> r.instanceIds(InstanceProvider.instanceId(instance.providerId())))
          .reservations().get(0).instances().get(0);
      Map<String, String> tags = new java.util.TreeMap<>();
      for (Tag t : described.tags()) {
        tags.put(t.key(), t.value());
      }
      assertEquals("owned", tags.get("kubernetes.io/cluster/" + CLUSTER));
      assertEquals("default-pool", tags.get("karpenter.sh/nodepool"));
      assertEquals(CLUSTER, tags.get("eks:eks-cluster-name"));
      assertEquals("default", tags.get("karpenter.k8s.aws/ec2nodeclass"));
      assertEquals(launch.nodeClass().getStatus().getSubnets().get(1).getId(), described.subnetId());

      var templates = ec2.describeLaunchTemplates(r -> r.filters(f -> f.name("tag:karpenter.k8s.aws/ec2nodeclass").values("default"))).launchTemplates();
      assertEquals(1, templates.size());
      assertTrue(templates.get(0).launchTemplateName().matches("karpenter\\.k8s\\.aws/\\d+"), templates.get(0).launchTemplateName());
      var data = ec2.describeLaunchTemplateVersions(r -> r.launchTemplateId(templates.get(0).launchTemplateId())).launchTemplateVersions().get(0).launchTemplateData();
      String userData = new String(Base64.getDecoder().decode(data.userData()));
      assertTrue(userData.contains("kind: NodeConfig") && userData.contains("name: " + CLUSTER), userData);
    }
  }

  @Test
  void spotWhenAllowedAndGetListDelete(Ec2Client ec2) {
    try (Launch launch = Launch.create(ec2, ec2, CreateFleetBatcher.DEFAULT_WINDOW)) {
      Instance spot = launch.instances().create(launch.nodeClass(), LaunchFixtures.request("default-pool", "default"), candidates());
      assertEquals(Labels.CAPACITY_TYPE_SPOT, spot.capacityType());
      assertEquals("c5.large", spot.instanceType());
      Instance onDemand = launch.instances().create(launch.nodeClass(),
          LaunchFixtures.request("default-pool", "default", Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND)), candidates());

      Optional<Instance> got = launch.instances().get(onDemand.providerId());
      assertTrue(got.isPresent());
      assertEquals("c5.large", got.get().instanceType());
      assertEquals(Labels.CAPACITY_TYPE_ON_DEMAND, got.get().capacityType());
      assertEquals(List.of(onDemand.providerId(), spot.providerId()).stream().sorted().toList(),
          launch.instances().list().stream().map(Instance::providerId).sorted().toList());

      // an instance without Karpenter's tags is not listed
      ec2.runInstances(r -> r.imageId(launch.nodeClass().getStatus().getAmis().get(0).getId()).minCount(1).maxCount(1).instanceType("t3.micro"));
      assertEquals(2, launch.instances().list().size());

      launch.instances().delete(onDemand.providerId());
      // terminating ("shutting-down", then "terminated" and invisible to Get)
      for (int i = 0; i < 5 && launch.instances().get(onDemand.providerId()).isPresent(); i++) {
        try {
          launch.instances().delete(onDemand.providerId());
        } catch (NodeClaimNotFoundException e) {
          break;
        }
      }
      assertThrows(NodeClaimNotFoundException.class, () -> launch.instances().delete(onDemand.providerId()));
      assertFalse(launch.instances().get(onDemand.providerId()).isPresent());
      assertEquals(List.of(spot.providerId()), launch.instances().list().stream().map(Instance::providerId).toList());
      assertThrows(NodeClaimNotFoundException.class, () -> launch.instances().delete("aws:///us-west-2a/i-0000000000000dead"));

      assertEquals(1, launch.launchTemplates().deleteAll(launch.nodeClass()).size() >= 1 ? 1 : 0);
      assertTrue(ec2.describeLaunchTemplates(r -> r.filters(f -> f.name("tag:karpenter.k8s.aws/ec2nodeclass").values("default"))).launchTemplates().isEmpty());
    }
  }

  @Test
  void identicalCreatesAreBatchedIntoFewerCreateFleetCalls(Ec2Client ec2, AwsFaults faults) throws Exception {
    int n = 20;
    try (Ec2Client viaProxy = faults.clients().ec2();
        Launch launch = Launch.create(viaProxy, ec2, new Batcher.Window(Duration.ofMillis(500), Duration.ofSeconds(5), 1000, 100))) {
      LaunchRequest request = LaunchFixtures.request("default-pool", "default", Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND));
      // the first launch creates the launch template; the rest are identical requests
      launch.instances().create(launch.nodeClass(), request, candidates());
      int before = faults.requests("ec2", "CreateFleet").size();
      ExecutorService pool = Executors.newFixedThreadPool(n);
      try {
        List<Future<Instance>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          futures.add(pool.submit(() -> launch.instances().create(launch.nodeClass(), request, candidates())));
        }
        java.util.Set<String> ids = new java.util.HashSet<>();
        for (Future<Instance> f : futures) {
          ids.add(f.get().providerId());
        }
        assertEquals(n, ids.size());
      } finally {
        pool.shutdownNow();
      }
      int calls = faults.requests("ec2", "CreateFleet").size() - before;
      assertTrue(calls < n / 2, n + " creates took " + calls + " CreateFleet calls");
      assertEquals(n + 1, launch.instances().list().size());
    }
  }

  @Test
  void insufficientCapacityMarksTheOfferingAndTheNextLaunchAvoidsIt(Ec2Client ec2, AwsFaults faults) {
    try (Ec2Client viaProxy = faults.clients().ec2(); Launch launch = Launch.create(viaProxy, ec2, CreateFleetBatcher.DEFAULT_WINDOW)) {
      LaunchRequest request = LaunchFixtures.request("default-pool", "default",
          Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND), Requirement.in(Labels.ZONE, "us-west-2a"),
          Requirement.in(Labels.INSTANCE_TYPE, "c5.large"));
      faults.insufficientCapacity("c5.large", "us-west-2a", AwsFaults.CapacityType.ON_DEMAND);
      assertThrows(InsufficientCapacityException.class, () -> launch.instances().create(launch.nodeClass(), request, candidates()));
      assertTrue(launch.unavailable().unavailable("c5.large", "us-west-2a", Labels.CAPACITY_TYPE_ON_DEMAND));
      int calls = faults.requests("ec2", "CreateFleet").size();

      // the same request again: nothing left to try, no CreateFleet call
      assertThrows(InsufficientCapacityException.class, () -> launch.instances().create(launch.nodeClass(), request, candidates()));
      assertEquals(calls, faults.requests("ec2", "CreateFleet").size());

      // a request that allows other types launches the next cheapest one
      LaunchRequest flexible = LaunchFixtures.request("default-pool", "default",
          Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND), Requirement.in(Labels.ZONE, "us-west-2a"));
      Instance instance = launch.instances().create(launch.nodeClass(), flexible, candidates());
      assertEquals("m5.large", instance.instanceType());
    }
  }

  @Test
  void aLaunchTemplateDeletedBehindTheCacheIsCreatedAgain(Ec2Client ec2, AwsFaults faults) {
    try (Ec2Client viaProxy = faults.clients().ec2(); Launch launch = Launch.create(viaProxy, ec2, CreateFleetBatcher.DEFAULT_WINDOW)) {
      LaunchRequest request = LaunchFixtures.request("default-pool", "default", Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND));
      launch.instances().create(launch.nodeClass(), request, candidates());
      assertEquals(1, faults.requests("ec2", "CreateLaunchTemplate").size());
      String name = ec2.describeLaunchTemplates(r -> r.filters(f -> f.name("tag:karpenter.k8s.aws/ec2nodeclass").values("default")))
          .launchTemplates().get(0).launchTemplateName();

      // a second controller (empty cache) finds the template by name instead of creating it
      LaunchTemplateProvider other = new LaunchTemplateProvider(viaProxy, LaunchFixtures.CLUSTER);
      InstanceProvider otherInstances = new InstanceProvider(viaProxy, CLUSTER, other, new LaunchSubnets(viaProxy, Clock.systemUTC()),
          launch.batcher(), launch.describeBatcher(), launch.unavailable());
      otherInstances.create(launch.nodeClass(), request, candidates());
      assertEquals(1, faults.requests("ec2", "CreateLaunchTemplate").size());

      // deleted in EC2 while cached: CreateFleet says not found, the launch is tried again and re-creates it
      ec2.deleteLaunchTemplate(r -> r.launchTemplateName(name));
      faults.error("ec2", "CreateFleet", 400, "InvalidLaunchTemplateName.NotFoundException", "The specified launch template, with template name " + name + ", does not exist.", 1);
      Instance instance = launch.instances().create(launch.nodeClass(), request, candidates());
      assertTrue(instance.providerId().startsWith("aws:///"));
      assertEquals(2, faults.requests("ec2", "CreateLaunchTemplate").size());
      assertEquals(name, ec2.describeLaunchTemplates(r -> r.launchTemplateNames(name)).launchTemplates().get(0).launchTemplateName());
    }
  }

  @Test
  void aPartlyFilledBatchLaunchesSomeAndTellsTheRestCapacityRanOut(Ec2Client ec2, AwsFaults faults) throws Exception {
    int n = 5;
    try (Ec2Client viaProxy = faults.clients().ec2();
        Launch launch = Launch.create(viaProxy, ec2, new Batcher.Window(Duration.ofSeconds(30), Duration.ofSeconds(60), n, 10))) {
      LaunchRequest request = LaunchFixtures.request("default-pool", "default",
          Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND), Requirement.in(Labels.ZONE, "us-west-2a"));
      faults.limitFleetCapacity(2);
      ExecutorService pool = Executors.newFixedThreadPool(n);
      int launched = 0;
      int insufficient = 0;
      try {
        List<Future<Instance>> futures = new ArrayList<>();
        for (int i = 0; i < n; i++) {
          futures.add(pool.submit(() -> launch.instances().create(launch.nodeClass(), request, candidates())));
        }
        for (Future<Instance> f : futures) {
          try {
            assertEquals("c5.large", f.get().instanceType());
            launched++;
          } catch (java.util.concurrent.ExecutionException e) {
            assertTrue(e.getCause() instanceof InsufficientCapacityException, String.valueOf(e.getCause()));
            insufficient++;
          }
        }
      } finally {
        pool.shutdownNow();
      }
      assertEquals(2, launched);
      assertEquals(3, insufficient);
      assertEquals(1, faults.requests("ec2", "CreateFleet").size(), "one merged call");
      assertTrue(launch.unavailable().unavailable("c5.large", "us-west-2a", Labels.CAPACITY_TYPE_ON_DEMAND));
    }
  }
}
