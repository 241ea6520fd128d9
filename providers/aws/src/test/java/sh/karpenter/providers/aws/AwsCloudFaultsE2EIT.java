package sh.karpenter.providers.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.hamcrest.Matchers;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.providers.aws.garbagecollection.InstanceGarbageCollection;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.providers.aws.interruption.InstanceStatusController;
import sh.karpenter.providers.aws.operator.AwsProvider;
import sh.karpenter.providers.aws.sdk.AwsSdk;
import sh.karpenter.testkit.aws.AwsEmulatorTest;
import sh.karpenter.testkit.aws.AwsFaults;
import sh.karpenter.testkit.aws.AwsRequest;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.controlplane.KwokNodes;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.ssm.SsmClient;

/**
 * Cloud faults end to end (issue 16; RELIABILITY.md#cloud-faults): the controller with the AWS provider
 * on the real control plane, talking to the emulator through an {@link AwsFaults} proxy, and {@link
 * CloudInvariants} watching instances, NodeClaims and Nodes throughout. Each case ends settled: every
 * pod Running, every instance a NodeClaim's and launched once, every NodeClaim with a Node. Covered
 * elsewhere: capacity errors on every offering of a type ({@link AwsInsufficientCapacityE2EIT}), and
 * through {@link InstanceProvider} alone a zone out of capacity and a partly filled batch ({@code
 * InstanceProviderIT}).
 *
 * <p>Instance garbage collection runs every 2 s here and takes instances older than 20 s (upstream: 2
 * min and 30 s), so that the stray instance of a timed-out launch goes within the test.
 */
@ControlPlaneTest
@AwsEmulatorTest
class AwsCloudFaultsE2EIT {
  private static final AwsProvider.Tuning TUNING = new AwsProvider.Tuning(
      new InstanceGarbageCollection.Settings(Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(20)),
      Duration.ofSeconds(1), InstanceStatusController.INTERVAL);
  /**
   * The provider's AWS calls time out after this in the timeout case (production: 60 s, the other
   * cases), so that a delayed answer times them out. Not much shorter: on a loaded 2-core machine
   * (load 25) moto's DescribeInstanceTypes took more than 8 s, and sometimes more than 25 s.
   */
  private static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(25);
  private static final Duration LATE = Duration.ofSeconds(30);
  private static final Duration SETTLE = Duration.ofMinutes(3);

  private AwsE2EFixture e2e;
  private CloudInvariants invariants;

  private void start(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam, Duration socketTimeout) {
    e2e = new AwsE2EFixture(client, faults, ec2, ssm, iam, TUNING, "", socketTimeout);
    invariants = new CloudInvariants(e2e);
  }

  @AfterEach
  void stop() {
    if (invariants != null) {
      invariants.close();
    }
    if (e2e != null) {
      e2e.close();
    }
  }

  @Test
  void aZoneOutOfCapacityIsLeftOutOfTheNextLaunch(KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    faults.insufficientCapacity("c5.large", "us-west-2a", AwsFaults.CapacityType.ON_DEMAND);
    start(client, faults, ec2, ssm, iam, AwsSdk.SOCKET_TIMEOUT);
    e2e.createNodeClassAndPool(List.of("c5.large"), "{consolidateAfter: 1h}");
    Map<String, String> zoneOfSubnet = ec2.describeSubnets().subnets().stream()
        .collect(Collectors.toMap(s -> s.subnetId(), s -> s.availabilityZone()));

    // one c5.large pod: the fleet offers both zones, 2a answers InsufficientInstanceCapacity, 2b launches
    client.apps().deployments().resource(AwsE2EFixture.deployment("first", "1", "1Gi")).create();
    await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.runningPod("first").isPresent());
    List<AwsRequest> fleets = faults.requests("ec2", "CreateFleet");
    assertThat(zones(fleets.get(0), zoneOfSubnet)).contains("us-west-2a", "us-west-2b");

    // the next pod's solve knows c5.large in 2a is unavailable: its fleet offers 2b only
    client.apps().deployments().resource(AwsE2EFixture.deployment("second", "1", "1Gi")).create();
    await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.runningPod("second").isPresent());
    List<AwsRequest> later = faults.requests("ec2", "CreateFleet").subList(fleets.size(), faults.requests("ec2", "CreateFleet").size());
    assertThat(later).isNotEmpty().allSatisfy(fleet -> assertThat(zones(fleet, zoneOfSubnet)).containsExactly("us-west-2b"));
    assertThat(e2e.karpenterInstances()).extracting(i -> i.placement().availabilityZone()).containsOnly("us-west-2b");

    await().atMost(SETTLE).until(() -> invariants.unsettled(Map.of("first", 1, "second", 1)), Matchers.empty());
    assertThat(invariants.violations()).isEmpty();
  }

  @Test
  void throttledAndTimedOutLaunchesAndTerminationsEndWithOneInstancePerNodeClaim(
      KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    start(client, faults, ec2, ssm, iam, SOCKET_TIMEOUT);
    e2e.createNodeClassAndPool(List.of("c5.large", "m5.large"), "{consolidateAfter: 0s}");

    // CreateFleet: throttled six times (the SDK's retries give up, the NodeClaim's launch is retried),
    // then one call answered after the client timed out: moto launches that instance anyway
    faults.throttle("ec2", "CreateFleet", 6);
    faults.delay("ec2", "CreateFleet", LATE, 1);
    client.apps().deployments().resource(AwsE2EFixture.deployment("app", "1", "1Gi")).create();
    await().atMost(AwsE2EFixture.WAIT).until(() -> e2e.runningPod("app").isPresent());
    assertThat(faults.requests("ec2", "CreateFleet")).hasSizeGreaterThanOrEqualTo(8);
    // the timed-out call's instance is no NodeClaim's: garbage collection terminates it
    await().atMost(SETTLE).until(() -> invariants.unsettled(Map.of("app", 1)), Matchers.empty());
    assertThat(client.resources(NodeClaim.class).list().getItems()).hasSize(1);

    // TerminateInstances: throttled six times, then timed out once; the empty node still goes
    faults.throttle("ec2", "TerminateInstances", 6);
    faults.delay("ec2", "TerminateInstances", LATE, 1);
    int terminations = faults.requests("ec2", "TerminateInstances").size();
    client.apps().deployments().withName("app").scale(0);
    await().atMost(SETTLE).until(() -> client.resources(NodeClaim.class).list().getItems().isEmpty()
        && e2e.karpenterInstances().isEmpty() && client.nodes().list().getItems().isEmpty());
    assertThat(faults.requests("ec2", "TerminateInstances").size() - terminations).isGreaterThanOrEqualTo(8);
    assertThat(invariants.unsettled(Map.of("app", 0))).isEmpty();
    assertThat(invariants.violations()).isEmpty();
  }

  @Test
  void aPartlyFilledFleetAndAnInstanceThatVanishesEndWithEveryPodRunning(
      KubernetesClient client, AwsFaults faults, Ec2Client ec2, SsmClient ssm, IamClient iam) {
    start(client, faults, ec2, ssm, iam, AwsSdk.SOCKET_TIMEOUT);
    e2e.createNodeClassAndPool(List.of("c5.large", "m5.large"), "{consolidateAfter: 1h}");

    // three one-CPU pods need three nodes; every CreateFleet launches at most one instance and reports
    // the rest of its pool out of capacity
    faults.limitFleetCapacity(1);
    client.apps().deployments().resource(AwsE2EFixture.deployment("app", "1", "1Gi")).create();
    client.apps().deployments().withName("app").scale(3);
    await().atMost(SETTLE).until(() -> invariants.unsettled(Map.of("app", 3)), Matchers.empty());
    assertThat(faults.requests("ec2", "CreateFleet")).hasSizeGreaterThanOrEqualTo(2);
    faults.clear();

    // one instance is terminated behind Karpenter's back; its kubelet stops. Node-claim garbage
    // collection (every 2 min) deletes its NodeClaim, and the evicted pod gets a new instance
    Instance gone = e2e.karpenterInstances().get(0);
    ec2.terminateInstances(r -> r.instanceIds(gone.instanceId()));
    KwokNodes.stopKubelet(client, gone.instanceId());
    String goneProviderId = InstanceProvider.providerId(gone.placement().availabilityZone(), gone.instanceId());
    await().atMost(SETTLE).until(() -> client.resources(NodeClaim.class).list().getItems().stream()
        .noneMatch(c -> c.getStatus() != null && goneProviderId.equals(c.getStatus().getProviderID())));
    await().atMost(SETTLE).until(() -> invariants.unsettled(Map.of("app", 3)), Matchers.empty());
    assertThat(client.nodes().withName(gone.instanceId()).get()).isNull();
    assertThat(invariants.violations()).isEmpty();
  }

  /** The zones of a CreateFleet call's overrides, from their subnets. */
  private static Set<String> zones(AwsRequest fleet, Map<String, String> zoneOfSubnet) {
    return fleet.parameters().entrySet().stream()
        .filter(e -> e.getKey().matches("LaunchTemplateConfigs\\.\\d+\\.Overrides\\.\\d+\\.SubnetId"))
        .map(e -> zoneOfSubnet.getOrDefault(e.getValue(), "?" + e.getValue()))
        .collect(Collectors.toCollection(java.util.TreeSet::new));
  }
}
