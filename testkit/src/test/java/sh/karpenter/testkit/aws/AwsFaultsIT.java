package sh.karpenter.testkit.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static sh.karpenter.testkit.aws.AwsEmulatorIT.fleetRequest;
import static sh.karpenter.testkit.aws.AwsEmulatorIT.instances;
import static sh.karpenter.testkit.aws.AwsEmulatorIT.launchTemplate;
import static sh.karpenter.testkit.aws.AwsEmulatorIT.override;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.testkit.aws.AwsFaults.CapacityType;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.CreateFleetError;
import software.amazon.awssdk.services.ec2.model.CreateFleetResponse;
import software.amazon.awssdk.services.ec2.model.DefaultTargetCapacityType;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.ec2.model.FleetLaunchTemplateOverridesRequest;
import software.amazon.awssdk.services.ec2.model.InstanceStatus;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.iam.model.IamException;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.SsmException;

/** Each fault {@link AwsFaults} injects, seen through the real SDK, with moto behind the proxy. */
@AwsEmulatorTest
class AwsFaultsIT {

  private static final List<String> ZONES = List.of("us-west-2a", "us-west-2b", "us-west-2c");

  @Test
  void insufficientCapacityTakesTheOfferingOutOfTheFleetAndReportsIt(AwsFaults faults, Ec2Client ec2, SsmClient ssm) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "faults", ZONES);
    launchTemplate(ec2, ssm, network, "ice");
    faults.insufficientCapacity("m5.xlarge", "us-west-2b", CapacityType.SPOT);
    List<FleetLaunchTemplateOverridesRequest> overrides = List.of(
        override("m5.xlarge", network, "us-west-2b", null),
        override("m5.large", network, "us-west-2c", null),
        override("c5.large", network, "us-west-2a", null));

    try (Ec2Client throughFaults = faults.clients().ec2()) {
      CreateFleetResponse spot = throughFaults.createFleet(fleetRequest("ice", DefaultTargetCapacityType.SPOT, 1, overrides));
      assertThat(spot.instances()).singleElement().satisfies(launched -> {
        assertThat(launched.instanceTypeAsString()).as("moto's first override, once the unavailable one is gone").isEqualTo("m5.large");
        assertThat(launched.launchTemplateAndOverrides().overrides().subnetId()).isEqualTo(network.subnet("us-west-2c"));
      });
      assertThat(spot.errors()).singleElement().satisfies(error -> {
        assertThat(error.errorCode()).isEqualTo("InsufficientInstanceCapacity");
        assertThat(error.lifecycleAsString()).isEqualTo("spot");
        assertThat(error.errorMessage()).contains("m5.xlarge", "us-west-2b");
        assertThat(error.launchTemplateAndOverrides().launchTemplateSpecification().launchTemplateName()).isEqualTo("ice");
        assertThat(error.launchTemplateAndOverrides().overrides().instanceTypeAsString()).isEqualTo("m5.xlarge");
        assertThat(error.launchTemplateAndOverrides().overrides().subnetId()).isEqualTo(network.subnet("us-west-2b"));
        assertThat(error.launchTemplateAndOverrides().overrides().availabilityZone()).isEqualTo("us-west-2b");
      });

      // On-demand capacity of the same type and zone is still there.
      CreateFleetResponse onDemand = throughFaults.createFleet(fleetRequest("ice", DefaultTargetCapacityType.ON_DEMAND, 1, overrides));
      assertThat(onDemand.errors()).isEmpty();
      assertThat(onDemand.instances()).singleElement().satisfies(i -> assertThat(i.instanceTypeAsString()).isEqualTo("m5.xlarge"));
    }
    assertThat(faults.requests("ec2", "CreateFleet")).hasSize(2).first()
        .satisfies(request -> assertThat(request.parameters()).containsEntry("LaunchTemplateConfigs.1.Overrides.1.InstanceType", "m5.xlarge"));
  }

  @Test
  void insufficientCapacityEverywhereLaunchesNothing(AwsFaults faults, Ec2Client ec2, SsmClient ssm) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "faults", ZONES);
    launchTemplate(ec2, ssm, network, "ice");
    faults.insufficientCapacity(null, null, CapacityType.ON_DEMAND);
    try (Ec2Client throughFaults = faults.clients().ec2()) {
      // Overrides that name only a subnet are matched by the subnet's zone.
      CreateFleetResponse fleet = throughFaults.createFleet(fleetRequest("ice", DefaultTargetCapacityType.ON_DEMAND, 1, List.of(
          FleetLaunchTemplateOverridesRequest.builder().instanceType("m5.large").subnetId(network.subnet("us-west-2a")).build(),
          FleetLaunchTemplateOverridesRequest.builder().instanceType("c5.large").subnetId(network.subnet("us-west-2b")).build())));
      assertThat(fleet.fleetId()).startsWith("fleet-");
      assertThat(fleet.instances()).isEmpty();
      assertThat(fleet.errors()).extracting(CreateFleetError::errorCode).containsOnly("InsufficientInstanceCapacity");
      assertThat(fleet.errors()).extracting(e -> e.launchTemplateAndOverrides().overrides().instanceTypeAsString() + "@" + e.errorMessage().replaceAll(".*\\((us-west-2.)\\).*", "$1"))
          .containsExactly("m5.large@us-west-2a", "c5.large@us-west-2b");
    }
    assertThat(instances(ec2)).as("moto never saw the call").isEmpty();
  }

  @Test
  void limitedFleetCapacityGivesAPartialResult(AwsFaults faults, Ec2Client ec2, SsmClient ssm) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "faults", ZONES);
    launchTemplate(ec2, ssm, network, "partial");
    faults.limitFleetCapacity(1);
    List<FleetLaunchTemplateOverridesRequest> overrides = List.of(
        override("c5.large", network, "us-west-2a", null), override("m5.large", network, "us-west-2b", null));
    try (Ec2Client throughFaults = faults.clients().ec2()) {
      CreateFleetResponse three = throughFaults.createFleet(fleetRequest("partial", DefaultTargetCapacityType.SPOT, 3, overrides));
      assertThat(three.instances()).hasSize(1);
      assertThat(three.errors()).singleElement().satisfies(error -> {
        assertThat(error.errorCode()).isEqualTo("InsufficientInstanceCapacity");
        assertThat(error.launchTemplateAndOverrides().overrides().instanceTypeAsString()).as("the pool it launched from").isEqualTo("c5.large");
      });

      faults.limitFleetCapacity(0);
      CreateFleetResponse none = throughFaults.createFleet(fleetRequest("partial", DefaultTargetCapacityType.SPOT, 2, overrides));
      assertThat(none.instances()).isEmpty();
      assertThat(none.errors()).hasSize(2);

      faults.clear();
      assertThat(throughFaults.createFleet(fleetRequest("partial", DefaultTargetCapacityType.SPOT, 2, overrides)).instances()).hasSize(2);
    }
  }

  /** moto launches fleet instances without their launch template's groups; through the proxy they have them, as on EC2. */
  @Test
  void fleetInstancesGetTheirLaunchTemplatesSecurityGroups(AwsFaults faults, Ec2Client ec2, SsmClient ssm) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "faults", ZONES);
    launchTemplate(ec2, ssm, network, "groups");
    // as the AWS provider writes it: the groups on the primary network interface
    ec2.createLaunchTemplate(r -> r.launchTemplateName("interface-groups").launchTemplateData(d -> d
        .imageId(AwsEmulatorIT.amazonLinux(ssm))
        .networkInterfaces(n -> n.deviceIndex(0).groups(network.securityGroupId()))));
    List<FleetLaunchTemplateOverridesRequest> overrides = List.of(override("c5.large", network, "us-west-2a", null));
    try (Ec2Client throughFaults = faults.clients().ec2()) {
      for (DefaultTargetCapacityType capacityType : List.of(DefaultTargetCapacityType.ON_DEMAND, DefaultTargetCapacityType.SPOT)) {
        for (String template : List.of("groups", "interface-groups")) {
          CreateFleetResponse fleet = throughFaults.createFleet(fleetRequest(template, capacityType, 2, overrides));
          assertThat(fleet.instances()).flatExtracting(launched -> launched.instanceIds()).hasSize(2).allSatisfy(id ->
              assertThat(AwsEmulatorIT.instance(ec2, id).securityGroups()).as(capacityType + " from " + template)
                  .extracting(g -> g.groupId()).containsExactly(network.securityGroupId()));
        }
      }
      // with a fault in the way too
      faults.insufficientCapacity("m5.large", null, null);
      CreateFleetResponse partly = throughFaults.createFleet(fleetRequest("groups", DefaultTargetCapacityType.ON_DEMAND, 1,
          List.of(override("m5.large", network, "us-west-2a", null), override("c5.large", network, "us-west-2b", null))));
      assertThat(partly.errors()).hasSize(1);
      assertThat(AwsEmulatorIT.instance(ec2, partly.instances().getFirst().instanceIds().getFirst()).securityGroups())
          .extracting(g -> g.groupId()).containsExactly(network.securityGroupId());
    }
    assertThat(faults.requests("ec2", "ModifyInstanceAttribute")).as("the proxy's own calls are not recorded").isEmpty();
  }

  @Test
  void throttlingIsRetriedByTheSdkOrSurfacesAsItsThrottlingError(AwsFaults faults) {
    faults.throttle("ec2", "DescribeAvailabilityZones", 2);
    try (Ec2Client retrying = faults.clients().ec2()) {
      assertThat(retrying.describeAvailabilityZones().availabilityZones()).hasSize(4);
    }
    assertThat(faults.requests("ec2", "DescribeAvailabilityZones")).as("two throttled attempts, then the answer").hasSize(3);

    faults.throttle("ec2", "DescribeAvailabilityZones", 1);
    try (Ec2Client once = faults.clients().build(Ec2Client.builder().overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())))) {
      assertThatThrownBy(once::describeAvailabilityZones).isInstanceOfSatisfying(Ec2Exception.class, e -> {
        assertThat(e.awsErrorDetails().errorCode()).isEqualTo("RequestLimitExceeded");
        assertThat(e.statusCode()).isEqualTo(503);
        assertThat(e.isThrottlingException()).isTrue();
      });
    }
  }

  @Test
  void throttlingSpeaksEachServicesProtocol(AwsFaults faults, IamClient iam) {
    iam.createInstanceProfile(r -> r.instanceProfileName("throttled"));
    faults.throttle("ssm", "GetParameter", 1).throttle("iam", "GetInstanceProfile", 1);
    var noRetry = faults.clients();
    try (SsmClient ssm = noRetry.build(SsmClient.builder().overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())));
        IamClient throttledIam = noRetry.build(IamClient.builder().overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())))) {
      assertThatThrownBy(() -> ssm.getParameter(r -> r.name("/aws/service/global-infrastructure/regions/us-west-2")))
          .isInstanceOfSatisfying(SsmException.class, e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("ThrottlingException");
            assertThat(e.isThrottlingException()).isTrue();
          });
      assertThatThrownBy(() -> throttledIam.getInstanceProfile(r -> r.instanceProfileName("throttled")))
          .isInstanceOfSatisfying(IamException.class, e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("Throttling");
            assertThat(e.isThrottlingException()).isTrue();
          });
      // Once used up, calls pass.
      assertThat(ssm.getParameter(r -> r.name("/aws/service/global-infrastructure/regions/us-west-2")).parameter().value()).isEqualTo("us-west-2");
      assertThat(throttledIam.getInstanceProfile(r -> r.instanceProfileName("throttled")).instanceProfile().instanceProfileName()).isEqualTo("throttled");
    }
    assertThat(faults.requests("ssm", null)).extracting(AwsRequest::operation).containsExactly("GetParameter", "GetParameter");
  }

  @Test
  void anyErrorCodeCanBeInjected(AwsFaults faults) {
    faults.error("ec2", "CreateFleet", 400, "UnauthorizedOperation", "You are not authorized to perform this operation.", 1);
    try (Ec2Client ec2 = faults.clients().ec2()) {
      assertThatThrownBy(() -> ec2.createFleet(fleetRequest("whatever", DefaultTargetCapacityType.SPOT, 1,
              List.of(FleetLaunchTemplateOverridesRequest.builder().instanceType("m5.large").build()))))
          .isInstanceOfSatisfying(Ec2Exception.class, e -> {
            assertThat(e.awsErrorDetails().errorCode()).isEqualTo("UnauthorizedOperation");
            assertThat(e.awsErrorDetails().errorMessage()).isEqualTo("You are not authorized to perform this operation.");
            assertThat(e.statusCode()).isEqualTo(400);
          });
    }
  }

  @Test
  void instanceStatusesAreAnsweredWithTheirFilters(AwsFaults faults, Ec2Client ec2, SsmClient ssm) {
    Instant since = Instant.parse("2026-11-26T01:00:00Z");
    String healthy = ec2.runInstances(r -> r.imageId(AwsEmulatorIT.amazonLinux(ssm)).minCount(1).maxCount(1)).instances().getFirst().instanceId();
    AwsEmulatorIT.instance(ec2, healthy); // running from the next describe on
    faults.instanceStatuses(List.of(
        InstanceStatus.builder().instanceId("i-0000000000000000a").availabilityZone("us-west-2a")
            .systemStatus(s -> s.status("impaired").details(d -> d.name("reachability").status("failed").impairedSince(since)))
            .instanceStatus(s -> s.status("ok").details(d -> d.name("reachability").status("passed")))
            .build(),
        InstanceStatus.builder().instanceId("i-0000000000000000b")
            .events(e -> e.code("instance-retirement").description("retiring").notBefore(since))
            .build()));

    try (Ec2Client throughFaults = faults.clients().ec2()) {
      var impaired = throughFaults.describeInstanceStatus(r -> r.filters(f -> f.name("system-status.status").values("impaired"))).instanceStatuses();
      assertThat(impaired).singleElement().satisfies(status -> {
        assertThat(status.instanceId()).isEqualTo("i-0000000000000000a");
        assertThat(status.availabilityZone()).isEqualTo("us-west-2a");
        assertThat(status.instanceState().nameAsString()).isEqualTo("running");
        assertThat(status.systemStatus().details()).singleElement().satisfies(d -> {
          assertThat(d.statusAsString()).isEqualTo("failed");
          assertThat(d.impairedSince()).isEqualTo(since);
        });
        assertThat(status.instanceStatus().statusAsString()).isEqualTo("ok");
      });
      assertThat(throughFaults.describeInstanceStatus(r -> r.filters(f -> f.name("event.code").values("instance-stop", "instance-retirement")))
          .instanceStatuses()).singleElement().satisfies(status -> {
            assertThat(status.instanceId()).isEqualTo("i-0000000000000000b");
            assertThat(status.events()).singleElement().satisfies(e -> {
              assertThat(e.codeAsString()).isEqualTo("instance-retirement");
              assertThat(e.notBefore()).isEqualTo(since);
            });
          });
      assertThat(throughFaults.describeInstanceStatus(r -> r.filters(f -> f.name("instance-status.status").values("impaired")))
          .instanceStatuses()).as("moto's healthy instance is not in the answer").isEmpty();
      assertThatThrownBy(() -> throughFaults.describeInstanceStatus(r -> r.filters(f -> f.name("availability-zone").values("us-west-2a"))))
          .isInstanceOfSatisfying(Ec2Exception.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidParameterValue"));

      faults.clear();
      assertThat(throughFaults.describeInstanceStatus(r -> r.filters(f -> f.name("instance-status.status").values("impaired")))
          .instanceStatuses()).as("moto again").extracting(InstanceStatus::instanceId).containsExactly(healthy);
    }
  }

  @Test
  void aSlowAnswerTimesTheClientOut(AwsFaults faults) {
    faults.delay("ec2", "DescribeAvailabilityZones", Duration.ofSeconds(3), 1);
    try (Ec2Client impatient = faults.clients().build(Ec2Client.builder().overrideConfiguration(o -> o
        .retryStrategy(AwsRetryStrategy.doNotRetry()).apiCallAttemptTimeout(Duration.ofMillis(500))))) {
      assertThatThrownBy(impatient::describeAvailabilityZones).isInstanceOf(ApiCallAttemptTimeoutException.class);
      assertThat(impatient.describeAvailabilityZones().availabilityZones()).as("the next call is not delayed").hasSize(4);
    }
  }
}
