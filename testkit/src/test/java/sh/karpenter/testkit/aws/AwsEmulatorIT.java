package sh.karpenter.testkit.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.services.ec2.Ec2Client;
import software.amazon.awssdk.services.ec2.model.ArchitectureValues;
import software.amazon.awssdk.services.ec2.model.AvailabilityZone;
import software.amazon.awssdk.services.ec2.model.CreateFleetRequest;
import software.amazon.awssdk.services.ec2.model.CreateFleetResponse;
import software.amazon.awssdk.services.ec2.model.DefaultTargetCapacityType;
import software.amazon.awssdk.services.ec2.model.Ec2Exception;
import software.amazon.awssdk.services.ec2.model.Filter;
import software.amazon.awssdk.services.ec2.model.FleetLaunchTemplateConfigRequest;
import software.amazon.awssdk.services.ec2.model.FleetLaunchTemplateOverridesRequest;
import software.amazon.awssdk.services.ec2.model.FleetOnDemandAllocationStrategy;
import software.amazon.awssdk.services.ec2.model.FleetType;
import software.amazon.awssdk.services.ec2.model.Instance;
import software.amazon.awssdk.services.ec2.model.InstanceTypeInfo;
import software.amazon.awssdk.services.ec2.model.InstanceTypeOffering;
import software.amazon.awssdk.services.ec2.model.LaunchTemplate;
import software.amazon.awssdk.services.ec2.model.LaunchTemplateTagSpecificationRequest;
import software.amazon.awssdk.services.ec2.model.LocationType;
import software.amazon.awssdk.services.ec2.model.RequestLaunchTemplateData;
import software.amazon.awssdk.services.ec2.model.ResourceType;
import software.amazon.awssdk.services.ec2.model.SpotAllocationStrategy;
import software.amazon.awssdk.services.ec2.model.SpotPrice;
import software.amazon.awssdk.services.ec2.model.Tag;
import software.amazon.awssdk.services.ec2.model.TagSpecification;
import software.amazon.awssdk.services.ec2.model.TargetCapacitySpecificationRequest;
import software.amazon.awssdk.services.iam.IamClient;
import software.amazon.awssdk.services.iam.model.IamException;
import software.amazon.awssdk.services.iam.model.InstanceProfile;
import software.amazon.awssdk.services.iam.model.LimitExceededException;
import software.amazon.awssdk.services.iam.model.NoSuchEntityException;
import software.amazon.awssdk.services.sqs.SqsClient;
import software.amazon.awssdk.services.sqs.model.Message;
import software.amazon.awssdk.services.ssm.SsmClient;
import software.amazon.awssdk.services.ssm.model.ParameterNotFoundException;
import software.amazon.awssdk.services.ssm.model.ParameterType;
import software.amazon.awssdk.services.ssm.model.SsmException;

/**
 * What the AWS provider may rely on in moto 5.2.5, each call made through the real AWS SDK for Java
 * v2 against the emulator, with what moto fills and where it differs from EC2 asserted as found
 * (summarised in docs/aws-emulator.md). A moto upgrade that changes any of it fails here first.
 */
@AwsEmulatorTest
class AwsEmulatorIT {

  private static final List<String> ZONES = List.of("us-west-2a", "us-west-2b", "us-west-2c");
  /** An Amazon Linux 2023 AMI that moto ships (and serves under /aws/service/ami-amazon-linux-latest/). */
  private static final String AL2023_PARAMETER = "/aws/service/ami-amazon-linux-latest/al2023-ami-kernel-default-x86_64";
  private static final String EKS_AMI_PARAMETER = "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id";

  // ------------------------------------------------------------------------------------------
  // Instance types, offerings, prices, zones
  // ------------------------------------------------------------------------------------------

  @Test
  void describeInstanceTypesServesAwsCatalogueInOnePage(Ec2Client ec2) {
    var firstPage = ec2.describeInstanceTypes(r -> r.maxResults(5));
    assertThat(firstPage.instanceTypes()).as("MaxResults is ignored").hasSize(1395);
    assertThat(firstPage.nextToken()).as("no pagination").isNull();

    Map<String, InstanceTypeInfo> types = firstPage.instanceTypes().stream()
        .collect(Collectors.toMap(InstanceTypeInfo::instanceTypeAsString, Function.identity()));
    assertThat(types).hasSize(1395).containsKeys("m5.large", "c7g.large", "g5.xlarge", "trn1.2xlarge").doesNotContainKey("p3.2xlarge");

    InstanceTypeInfo m5 = types.get("m5.large");
    assertThat(m5.vCpuInfo().defaultVCpus()).isEqualTo(2);
    assertThat(m5.memoryInfo().sizeInMiB()).isEqualTo(8192L);
    assertThat(m5.networkInfo().maximumNetworkInterfaces()).isEqualTo(3);
    assertThat(m5.networkInfo().ipv4AddressesPerInterface()).isEqualTo(10);
    assertThat(m5.networkInfo().defaultNetworkCardIndex()).isZero();
    assertThat(m5.networkInfo().networkCards()).singleElement()
        .satisfies(card -> assertThat(card.maximumNetworkInterfaces()).isEqualTo(3));
    assertThat(m5.networkInfo().networkPerformance()).isEqualTo("Up to 10 Gigabit");
    assertThat(m5.processorInfo().supportedArchitecturesAsStrings()).containsExactly("x86_64");
    assertThat(m5.hypervisorAsString()).isEqualTo("nitro");
    assertThat(m5.instanceStorageSupported()).isFalse();
    assertThat(m5.instanceStorageInfo()).isNull();
    assertThat(m5.gpuInfo()).isNull();
    assertThat(m5.supportedUsageClassesAsStrings()).containsExactly("on-demand", "spot");
    assertThat(m5.ebsInfo().ebsOptimizedInfo().maximumBandwidthInMbps()).isEqualTo(4750);

    InstanceTypeInfo g5 = types.get("g5.xlarge");
    assertThat(g5.gpuInfo().gpus()).singleElement().satisfies(gpu -> {
      assertThat(gpu.name()).isEqualTo("A10G");
      assertThat(gpu.manufacturer()).isEqualTo("NVIDIA");
      assertThat(gpu.count()).isEqualTo(1);
      assertThat(gpu.memoryInfo().sizeInMiB()).isEqualTo(22888);
    });
    assertThat(g5.instanceStorageInfo().totalSizeInGB()).isEqualTo(250L);
    assertThat(g5.instanceStorageInfo().nvmeSupportAsString()).isEqualTo("required");

    assertThat(types.get("c7g.large").processorInfo().supportedArchitecturesAsStrings()).containsExactly("arm64");
    assertThat(types.get("trn1.2xlarge").neuronInfo().neuronDevices()).singleElement()
        .satisfies(device -> assertThat(device.coreInfo().count()).isEqualTo(2));
    assertThat(types.get("inf1.xlarge").inferenceAcceleratorInfo().accelerators()).singleElement()
        .satisfies(accelerator -> assertThat(accelerator.name()).isEqualTo("Inferentia"));
    assertThat(types.get("p5.48xlarge").networkInfo().efaInfo().maximumEfaInterfaces()).isEqualTo(32);
    // Bare metal types have no hypervisor, as in EC2.
    assertThat(types.get("m5.metal").bareMetal()).isTrue();
    assertThat(types.get("m5.metal").hypervisor()).isNull();

    // Which optional fields moto fills, over the whole catalogue.
    assertThat(count(types, t -> t.gpuInfo() != null)).isEqualTo(65);
    assertThat(count(types, t -> t.instanceStorageInfo() != null)).isEqualTo(579);
    assertThat(count(types, t -> t.hypervisor() == null)).isEqualTo(154);
    assertThat(count(types, t -> t.vCpuInfo() != null && t.memoryInfo() != null && t.networkInfo() != null
        && t.networkInfo().maximumNetworkInterfaces() != null && t.networkInfo().ipv4AddressesPerInterface() != null))
        .as("vCPU, memory and ENI limits on every type").isEqualTo(1395);
    assertThat(types.values().stream().flatMap(t -> t.processorInfo().supportedArchitecturesAsStrings().stream()).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("x86_64", "arm64", "i386", "x86_64_mac", "arm64_mac");
  }

  @Test
  void describeInstanceTypeOfferingsByZoneCoversFourZones(Ec2Client ec2) {
    List<InstanceTypeOffering> offerings = ec2.describeInstanceTypeOfferingsPaginator(r -> r.locationType(LocationType.AVAILABILITY_ZONE))
        .instanceTypeOfferings().stream().toList();
    assertThat(offerings).hasSize(5070);
    assertThat(offerings.stream().map(InstanceTypeOffering::location).collect(Collectors.toSet()))
        .containsExactlyInAnyOrder("us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d");
    assertThat(offerings.stream().map(InstanceTypeOffering::instanceTypeAsString).distinct().count())
        .as("types offered in some zone of us-west-2 (of 1395 described)").isEqualTo(1354);

    var m5 = ec2.describeInstanceTypeOfferings(r -> r.locationType(LocationType.AVAILABILITY_ZONE)
        .filters(Filter.builder().name("instance-type").values("m5.large").build())).instanceTypeOfferings();
    assertThat(m5).extracting(InstanceTypeOffering::location).containsExactlyInAnyOrder("us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d");
    var regional = ec2.describeInstanceTypeOfferings(r -> r.locationType(LocationType.REGION)
        .filters(Filter.builder().name("instance-type").values("m5.large").build())).instanceTypeOfferings();
    assertThat(regional).extracting(InstanceTypeOffering::location).containsExactly("us-west-2");
  }

  @Test
  void describeSpotPriceHistoryHasOneFixedPricePerOffering(Ec2Client ec2) {
    // The request upstream's pricing provider makes.
    List<SpotPrice> prices = ec2.describeSpotPriceHistoryPaginator(r -> r
            .productDescriptions("Linux/UNIX", "Linux/UNIX (Amazon VPC)").startTime(Instant.now()).maxResults(2000))
        .spotPriceHistory().stream().toList();
    assertThat(prices).as("one row per zonal offering, in one page").hasSize(5070);
    assertThat(prices).allSatisfy(price -> {
      assertThat(price.spotPrice()).isEqualTo("0.00001");
      assertThat(price.productDescriptionAsString()).isEqualTo("Linux/UNIX (Amazon VPC)");
      assertThat(price.timestamp()).isEqualTo(Instant.parse("2006-01-02T15:04:05Z"));
    });
    var m5 = ec2.describeSpotPriceHistory(r -> r.instanceTypesWithStrings("m5.large")).spotPriceHistory();
    assertThat(m5).extracting(SpotPrice::availabilityZone).containsExactlyInAnyOrder("us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d");
  }

  @Test
  void describeAvailabilityZonesNamesZoneIds(Ec2Client ec2) {
    assertThat(ec2.describeAvailabilityZones().availabilityZones())
        .extracting(AvailabilityZone::zoneName, AvailabilityZone::zoneId, AvailabilityZone::zoneType, AvailabilityZone::stateAsString)
        .containsExactly(
            tuple("us-west-2a", "usw2-az2", "availability-zone", "available"),
            tuple("us-west-2b", "usw2-az1", "availability-zone", "available"),
            tuple("us-west-2c", "usw2-az3", "availability-zone", "available"),
            tuple("us-west-2d", "usw2-az4", "availability-zone", "available"));
  }

  // ------------------------------------------------------------------------------------------
  // Subnets, security groups, images by tag
  // ------------------------------------------------------------------------------------------

  @Test
  void subnetsAndSecurityGroupsAreFoundByTag(Ec2Client ec2) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "probe", ZONES);
    Filter byTag = Filter.builder().name("tag:" + ClusterNetwork.DISCOVERY_TAG).values("probe").build();
    var subnets = ec2.describeSubnets(r -> r.filters(byTag)).subnets();
    assertThat(subnets).extracting(s -> s.availabilityZone() + "=" + s.subnetId())
        .containsExactlyInAnyOrderElementsOf(network.subnetsByZone().entrySet().stream().map(e -> e.getKey() + "=" + e.getValue()).toList());
    assertThat(subnets).allSatisfy(subnet -> {
      assertThat(subnet.availableIpAddressCount()).as("a /20 less AWS's 5 reserved addresses").isEqualTo(4091);
      assertThat(subnet.availabilityZoneId()).startsWith("usw2-az");
    });
    assertThat(ec2.describeSubnets(r -> r.filters(Filter.builder().name("tag-key").values(ClusterNetwork.DISCOVERY_TAG).build())).subnets())
        .hasSize(3);
    assertThat(ec2.describeSubnets().subnets()).as("plus the default VPC's subnet per zone").hasSize(3 + 4);

    assertThat(ec2.describeSecurityGroups(r -> r.filters(byTag)).securityGroups())
        .singleElement().satisfies(group -> {
          assertThat(group.groupId()).isEqualTo(network.securityGroupId());
          assertThat(group.vpcId()).isEqualTo(network.vpcId());
        });
    assertThat(ec2.describeSecurityGroups(r -> r.filters(Filter.builder().name("group-name").values("probe-nodes").build())).securityGroups())
        .hasSize(1);
  }

  @Test
  void imagesAreFoundByTagOnceTaggedWithCreateTags(Ec2Client ec2, SsmClient ssm) {
    TagSpecification teamA = TagSpecification.builder().resourceType(ResourceType.IMAGE).tags(tag("team", "a")).build();
    String registered = ec2.registerImage(r -> r.name("custom-arm64").architecture(ArchitectureValues.ARM64)
        .rootDeviceName("/dev/xvda").tagSpecifications(teamA)).imageId();
    Filter teamAFilter = Filter.builder().name("tag:team").values("a").build();
    assertThat(ec2.describeImages(r -> r.filters(teamAFilter)).images())
        .as("moto drops RegisterImage's TagSpecifications").isEmpty();
    var described = ec2.describeImages(r -> r.imageIds(registered)).images().getFirst();
    assertThat(described.architecture()).as("nor does it keep RegisterImage's Architecture").isNull();
    assertThat(described.stateAsString()).isEqualTo("available");
    assertThat(described.creationDate()).isNotBlank();

    ec2.createTags(r -> r.resources(registered).tags(tag("team", "a")));
    assertThat(ec2.describeImages(r -> r.filters(teamAFilter)).images()).extracting(i -> i.imageId()).containsExactly(registered);

    // CreateImage keeps its TagSpecifications, and the image takes the instance's architecture.
    String baseImage = amazonLinux(ssm);
    String instance = ec2.runInstances(r -> r.imageId(baseImage).minCount(1).maxCount(1).instanceType("m5.large"))
        .instances().getFirst().instanceId();
    String created = ec2.createImage(r -> r.instanceId(instance).name("from-instance")
        .tagSpecifications(TagSpecification.builder().resourceType(ResourceType.IMAGE).tags(tag("team", "b")).build())).imageId();
    assertThat(ec2.describeImages(r -> r.filters(Filter.builder().name("tag:team").values("b").build())).images())
        .singleElement().satisfies(image -> {
          assertThat(image.imageId()).isEqualTo(created);
          assertThat(image.architectureAsString()).isEqualTo("x86_64");
        });
    assertThat(ec2.describeImages(r -> r.owners("self")).images()).extracting(i -> i.imageId()).containsExactlyInAnyOrder(registered, created);
    assertThat(ec2.describeImages(r -> r.owners("amazon")).images()).as("the public AMIs moto ships").hasSize(1299);
    assertThat(ec2.describeImages(r -> r.filters(Filter.builder().name("name").values("custom-*").build())).images())
        .extracting(i -> i.imageId()).containsExactly(registered);
    assertThat(ec2.describeImages(r -> r.filters(Filter.builder().name("architecture").values("arm64").build())).images())
        .isNotEmpty().allSatisfy(image -> assertThat(image.architectureAsString()).isEqualTo("arm64"));
  }

  // ------------------------------------------------------------------------------------------
  // SSM
  // ------------------------------------------------------------------------------------------

  @Test
  void ssmServesSomePublicParametersButNotTheEksOrBottlerocketOnes(SsmClient ssm, Ec2Client ec2) {
    String al2023 = ssm.getParameter(r -> r.name(AL2023_PARAMETER)).parameter().value();
    assertThat(ec2.describeImages(r -> r.imageIds(al2023)).images()).singleElement()
        .satisfies(image -> assertThat(image.architectureAsString()).isEqualTo("x86_64"));
    assertThat(ssm.getParameter(r -> r.name("/aws/service/ecs/optimized-ami/amazon-linux-2023/recommended/image_id")).parameter().value())
        .startsWith("ami-");
    assertThat(ssm.getParameter(r -> r.name("/aws/service/global-infrastructure/regions/us-west-2")).parameter().value())
        .isEqualTo("us-west-2");

    var byPath = ssm.getParametersByPath(r -> r.path("/aws/service/ami-amazon-linux-latest").recursive(true));
    assertThat(byPath.parameters()).as("a page of 10").hasSize(10);
    assertThat(byPath.nextToken()).isNotNull();

    for (String missing : List.of(EKS_AMI_PARAMETER, "/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id")) {
      assertThatThrownBy(() -> ssm.getParameter(r -> r.name(missing))).isInstanceOf(ParameterNotFoundException.class);
    }
    assertThatThrownBy(() -> ssm.putParameter(r -> r.name(EKS_AMI_PARAMETER).value(al2023).type(ParameterType.STRING)))
        .isInstanceOfSatisfying(SsmException.class, e -> {
          assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDeniedException");
          assertThat(e.awsErrorDetails().errorMessage()).contains("No access to reserved parameter name");
        });
  }

  /** The workaround: the provider reads {@code <prefix>/aws/service/...}, where tests can put parameters. */
  @Test
  void aliasParametersLiveUnderAConfigurablePrefix(SsmClient ssm, Ec2Client ec2) {
    String ami = amazonLinux(ssm);
    String prefix = AwsEmulator.SSM_PARAMETER_PREFIX;
    ssm.putParameter(r -> r.name(prefix + EKS_AMI_PARAMETER).value(ami).type(ParameterType.STRING).dataType("aws:ec2:image"));
    ssm.putParameter(r -> r.name(prefix + "/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id").value(ami).type(ParameterType.STRING));

    Function<String, String> resolve = path -> ssm.getParameter(r -> r.name(prefix + path)).parameter().value();
    assertThat(resolve.apply(EKS_AMI_PARAMETER)).isEqualTo(ami);
    assertThat(resolve.apply("/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id")).isEqualTo(ami);
    assertThat(ec2.describeImages(r -> r.imageIds(resolve.apply(EKS_AMI_PARAMETER))).images()).hasSize(1);
    var parameter = ssm.getParameter(r -> r.name(prefix + EKS_AMI_PARAMETER)).parameter();
    assertThat(parameter.version()).isEqualTo(1L);
    assertThat(parameter.dataType()).isEqualTo("aws:ec2:image");
  }

  // ------------------------------------------------------------------------------------------
  // IAM
  // ------------------------------------------------------------------------------------------

  @Test
  void instanceProfilesCarryTheirRoleAndTags(IamClient iam) {
    String role = iam.createRole(r -> r.roleName("KarpenterNodeRole-probe").assumeRolePolicyDocument(
        "{\"Version\":\"2012-10-17\",\"Statement\":[{\"Effect\":\"Allow\",\"Principal\":{\"Service\":\"ec2.amazonaws.com\"},\"Action\":\"sts:AssumeRole\"}]}"))
        .role().arn();
    assertThat(role).isEqualTo("arn:aws:iam::123456789012:role/KarpenterNodeRole-probe");
    InstanceProfile created = iam.createInstanceProfile(r -> r.instanceProfileName("probe_1234").path("/karpenter/us-west-2/probe/")
        .tags(software.amazon.awssdk.services.iam.model.Tag.builder().key("karpenter.k8s.aws/ec2nodeclass").value("default").build()))
        .instanceProfile();
    assertThat(created.arn()).isEqualTo("arn:aws:iam::123456789012:instance-profile/karpenter/us-west-2/probe/probe_1234");
    iam.addRoleToInstanceProfile(r -> r.instanceProfileName("probe_1234").roleName("KarpenterNodeRole-probe"));

    InstanceProfile profile = iam.getInstanceProfile(r -> r.instanceProfileName("probe_1234")).instanceProfile();
    assertThat(profile.roles()).singleElement().satisfies(r -> assertThat(r.roleName()).isEqualTo("KarpenterNodeRole-probe"));
    assertThat(profile.path()).isEqualTo("/karpenter/us-west-2/probe/");
    assertThat(profile.tags()).extracting(t -> t.key() + "=" + t.value()).containsExactly("karpenter.k8s.aws/ec2nodeclass=default");
    assertThat(iam.listInstanceProfiles(r -> r.pathPrefix("/karpenter/")).instanceProfiles()).hasSize(1);
    iam.tagInstanceProfile(r -> r.instanceProfileName("probe_1234")
        .tags(software.amazon.awssdk.services.iam.model.Tag.builder().key("extra").value("1").build()));
    assertThat(iam.getInstanceProfile(r -> r.instanceProfileName("probe_1234")).instanceProfile().tags()).hasSize(2);

    assertThatThrownBy(() -> iam.addRoleToInstanceProfile(r -> r.instanceProfileName("probe_1234").roleName("KarpenterNodeRole-probe")))
        .isInstanceOf(LimitExceededException.class).hasMessageContaining("InstanceSessionsPerInstanceProfile");
    assertThatThrownBy(() -> iam.getInstanceProfile(r -> r.instanceProfileName("missing")))
        .isInstanceOf(NoSuchEntityException.class);

    iam.removeRoleFromInstanceProfile(r -> r.instanceProfileName("probe_1234").roleName("KarpenterNodeRole-probe"));
    iam.deleteInstanceProfile(r -> r.instanceProfileName("probe_1234"));
    assertThatThrownBy(() -> iam.getInstanceProfile(r -> r.instanceProfileName("probe_1234"))).isInstanceOf(NoSuchEntityException.class);
  }

  @Test
  void listInstanceProfileTagsIsNotImplemented(AwsEmulator emulator) {
    try (IamClient iam = emulator.clients().build(IamClient.builder().overrideConfiguration(o -> o.retryStrategy(AwsRetryStrategy.doNotRetry())))) {
      iam.createInstanceProfile(r -> r.instanceProfileName("untaggable"));
      assertThatThrownBy(() -> iam.listInstanceProfileTags(r -> r.instanceProfileName("untaggable")))
          .isInstanceOfSatisfying(IamException.class, e -> assertThat(e.statusCode()).isEqualTo(500));
    }
  }

  // ------------------------------------------------------------------------------------------
  // Launch templates
  // ------------------------------------------------------------------------------------------

  @Test
  void launchTemplatesKeepUserDataAndTags(Ec2Client ec2, SsmClient ssm) {
    String userData = Base64.getEncoder().encodeToString("#!/bin/bash\n/etc/eks/bootstrap.sh probe\n".getBytes(StandardCharsets.UTF_8));
    LaunchTemplate created = ec2.createLaunchTemplate(r -> r.launchTemplateName("karpenter.k8s.aws/123")
        .launchTemplateData(RequestLaunchTemplateData.builder().imageId(amazonLinux(ssm)).userData(userData)
            .tagSpecifications(LaunchTemplateTagSpecificationRequest.builder().resourceType(ResourceType.INSTANCE).tags(tag("from-template", "1")).build())
            .build())
        .tagSpecifications(TagSpecification.builder().resourceType(ResourceType.LAUNCH_TEMPLATE)
            .tags(tag("karpenter.k8s.aws/cluster", "probe")).build())).launchTemplate();
    assertThat(created.launchTemplateId()).startsWith("lt-");
    assertThat(created.latestVersionNumber()).isEqualTo(1L);

    var found = ec2.describeLaunchTemplates(r -> r.filters(Filter.builder().name("tag:karpenter.k8s.aws/cluster").values("probe").build()))
        .launchTemplates();
    assertThat(found).singleElement().satisfies(template -> {
      assertThat(template.launchTemplateName()).isEqualTo("karpenter.k8s.aws/123");
      assertThat(template.tags()).extracting(Tag::key).containsExactly("karpenter.k8s.aws/cluster");
    });
    var data = ec2.describeLaunchTemplateVersions(r -> r.launchTemplateId(created.launchTemplateId()))
        .launchTemplateVersions().getFirst().launchTemplateData();
    assertThat(data.userData()).isEqualTo(userData);

    ec2.deleteLaunchTemplate(r -> r.launchTemplateName("karpenter.k8s.aws/123"));
    assertThatThrownBy(() -> ec2.describeLaunchTemplates(r -> r.launchTemplateNames("karpenter.k8s.aws/123")))
        .isInstanceOfSatisfying(Ec2Exception.class,
            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidLaunchTemplateName.NotFoundException"));
    // EC2 says InvalidLaunchTemplateName.NotFoundException here; moto answers MissingParameter.
    assertThatThrownBy(() -> ec2.deleteLaunchTemplate(r -> r.launchTemplateName("karpenter.k8s.aws/123")))
        .isInstanceOfSatisfying(Ec2Exception.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("MissingParameter"));
  }

  // ------------------------------------------------------------------------------------------
  // CreateFleet
  // ------------------------------------------------------------------------------------------

  /** moto launches from the first override, whatever the strategy, the price or the priority. */
  @Test
  void onDemandFleetLaunchesFromTheFirstOverride(Ec2Client ec2, SsmClient ssm) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "probe", ZONES);
    launchTemplate(ec2, ssm, network, "od");
    CreateFleetResponse fleet = ec2.createFleet(fleetRequest("od", DefaultTargetCapacityType.ON_DEMAND, 1, List.of(
        override("m5.xlarge", network, "us-west-2b", 2.0),
        override("m5.large", network, "us-west-2c", 1.0),
        override("c5.large", network, "us-west-2a", null))));
    assertThat(fleet.fleetId()).startsWith("fleet-");
    assertThat(fleet.errors()).as("moto never reports fleet errors").isEmpty();
    assertThat(fleet.instances()).singleElement().satisfies(launched -> {
      assertThat(launched.lifecycleAsString()).isEqualTo("on-demand");
      assertThat(launched.instanceTypeAsString()).isEqualTo("m5.xlarge");
      assertThat(launched.launchTemplateAndOverrides().overrides().subnetId()).isEqualTo(network.subnet("us-west-2b"));
      assertThat(launched.launchTemplateAndOverrides().launchTemplateSpecification().version()).as("$Latest resolved").isEqualTo("1");
      assertThat(launched.instanceIds()).hasSize(1);
    });
    Instance instance = instance(ec2, fleet.instances().getFirst().instanceIds().getFirst());
    assertThat(instance.instanceTypeAsString()).isEqualTo("m5.xlarge");
    assertThat(instance.placement().availabilityZone()).isEqualTo("us-west-2b");
    assertThat(instance.subnetId()).isEqualTo(network.subnet("us-west-2b"));
    assertThat(instance.instanceLifecycle()).isNull();
    assertThat(instance.tags()).extracting(t -> t.key() + "=" + t.value())
        .containsExactlyInAnyOrder("from-template=1", "karpenter.sh/nodepool=default");
    assertThat(instance.securityGroups()).as("the launch template's SecurityGroupIds are not applied: no group at all").isEmpty();
    assertThat(ec2.describeInstanceAttribute(r -> r.instanceId(instance.instanceId()).attribute("userData")).userData().value())
        .isEqualTo(Base64.getEncoder().encodeToString("#!/bin/bash\necho od\n".getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void spotFleetLaunchesEveryUnitFromTheFirstOverride(Ec2Client ec2, SsmClient ssm) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "probe", ZONES);
    launchTemplate(ec2, ssm, network, "spot");
    CreateFleetResponse fleet = ec2.createFleet(fleetRequest("spot", DefaultTargetCapacityType.SPOT, 3, List.of(
        override("c5.large", network, "us-west-2a", null),
        override("m5.large", network, "us-west-2c", null))));
    assertThat(fleet.instances()).hasSize(3).allSatisfy(launched -> {
      assertThat(launched.lifecycleAsString()).isEqualTo("spot");
      assertThat(launched.instanceTypeAsString()).isEqualTo("c5.large");
      assertThat(launched.instanceIds()).hasSize(1);
    });
    Instance instance = instance(ec2, fleet.instances().getFirst().instanceIds().getFirst());
    assertThat(instance.instanceLifecycleAsString()).isEqualTo("spot");
    assertThat(instance.spotInstanceRequestId()).isNull();
    assertThat(instance.securityGroups()).as("not the launch template's group: the VPC's default one")
        .extracting(g -> g.groupName()).containsExactly("default");
    assertThat(instance.placement().availabilityZone()).isEqualTo("us-west-2a");
  }

  @Test
  void fleetOverridesAreBarelyValidated(Ec2Client ec2, SsmClient ssm) {
    ClusterNetwork network = ClusterNetwork.create(ec2, "probe", ZONES);
    launchTemplate(ec2, ssm, network, "bad");
    // An unknown instance type launches.
    var unknownType = ec2.createFleet(fleetRequest("bad", DefaultTargetCapacityType.ON_DEMAND, 1,
        List.of(override("nope.large", network, "us-west-2a", null))));
    assertThat(unknownType.instances()).singleElement().satisfies(i -> assertThat(i.instanceTypeAsString()).isEqualTo("nope.large"));
    // A zone without a subnet is ignored: the instance lands in the default VPC's first zone.
    var zoneOnly = ec2.createFleet(fleetRequest("bad", DefaultTargetCapacityType.ON_DEMAND, 1, List.of(
        FleetLaunchTemplateOverridesRequest.builder().instanceType("m5.large").availabilityZone("us-west-2c").build())));
    assertThat(instance(ec2, zoneOnly.instances().getFirst().instanceIds().getFirst()).placement().availabilityZone()).isEqualTo("us-west-2a");
    // Unknown subnets and launch templates fail the whole call with an exception, not an errorSet entry.
    assertThatThrownBy(() -> ec2.createFleet(fleetRequest("bad", DefaultTargetCapacityType.ON_DEMAND, 1, List.of(
        FleetLaunchTemplateOverridesRequest.builder().instanceType("m5.large").subnetId("subnet-00000000").build()))))
        .isInstanceOfSatisfying(Ec2Exception.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidSubnetID.NotFound"));
    assertThatThrownBy(() -> ec2.createFleet(fleetRequest("missing", DefaultTargetCapacityType.ON_DEMAND, 1,
        List.of(override("m5.large", network, "us-west-2a", null)))))
        .isInstanceOfSatisfying(Ec2Exception.class,
            e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidLaunchTemplateName.NotFoundException"));
  }

  // ------------------------------------------------------------------------------------------
  // Instances
  // ------------------------------------------------------------------------------------------

  @Test
  void instancesAreFoundByTagAndIdAndPassThroughTermination(Ec2Client ec2, SsmClient ssm) {
    String image = amazonLinux(ssm);
    var launched = ec2.runInstances(r -> r.imageId(image).minCount(2).maxCount(2).instanceType("m5.large")
        .tagSpecifications(TagSpecification.builder().resourceType(ResourceType.INSTANCE).tags(tag("karpenter.sh/nodepool", "probe")).build()))
        .instances();
    assertThat(launched).extracting(i -> i.state().nameAsString()).containsOnly("pending");
    String first = launched.get(0).instanceId();
    String second = launched.get(1).instanceId();
    assertThat(instance(ec2, first).state().nameAsString()).as("running on the next describe").isEqualTo("running");
    assertThat(instance(ec2, first).architectureAsString()).isEqualTo("x86_64");

    Filter byNodePool = Filter.builder().name("tag:karpenter.sh/nodepool").values("probe").build();
    Filter live = Filter.builder().name("instance-state-name").values("pending", "running", "stopping", "stopped", "shutting-down").build();
    assertThat(instances(ec2, byNodePool, live)).extracting(Instance::instanceId).containsExactlyInAnyOrder(first, second);
    assertThat(instances(ec2, Filter.builder().name("tag-key").values("karpenter.sh/nodepool").build())).hasSize(2);

    ec2.createTags(r -> r.resources(first).tags(tag("karpenter.sh/nodeclaim", "probe-abc")));
    assertThat(instance(ec2, first).tags()).extracting(Tag::key).contains("karpenter.sh/nodeclaim");
    // EC2 refuses tags on an unknown instance (InvalidInstanceID.NotFound); moto accepts them.
    ec2.createTags(r -> r.resources("i-0123456789abcdef0").tags(tag("a", "b")));

    var terminating = ec2.terminateInstances(r -> r.instanceIds(first)).terminatingInstances();
    assertThat(terminating).singleElement().satisfies(change -> {
      assertThat(change.previousState().nameAsString()).isEqualTo("running");
      assertThat(change.currentState().nameAsString()).isEqualTo("shutting-down");
    });
    assertThat(instance(ec2, first).state().nameAsString()).as("terminated on the next describe").isEqualTo("terminated");
    assertThat(instances(ec2, byNodePool, live)).extracting(Instance::instanceId).containsExactly(second);
    assertThat(ec2.terminateInstances(r -> r.instanceIds(first)).terminatingInstances().getFirst().currentState().nameAsString())
        .as("terminating again").isEqualTo("shutting-down");

    assertThatThrownBy(() -> ec2.describeInstances(r -> r.instanceIds("i-0123456789abcdef0")))
        .isInstanceOfSatisfying(Ec2Exception.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidInstanceID.NotFound"));
    assertThatThrownBy(() -> ec2.terminateInstances(r -> r.instanceIds("i-0123456789abcdef0")))
        .isInstanceOfSatisfying(Ec2Exception.class, e -> assertThat(e.awsErrorDetails().errorCode()).isEqualTo("InvalidInstanceID.NotFound"));
  }

  @Test
  void instanceStatusIsAlwaysOkAndItsFiltersAreIgnored(Ec2Client ec2, SsmClient ssm) {
    String id = ec2.runInstances(r -> r.imageId(amazonLinux(ssm)).minCount(1).maxCount(1).instanceType("m5.large")).instances().getFirst().instanceId();

    var impaired = ec2.describeInstanceStatus(r -> r.filters(Filter.builder().name("system-status.status").values("impaired").build()))
        .instanceStatuses();
    assertThat(impaired).as("the filter is ignored: a healthy instance is 'impaired'").singleElement().satisfies(status -> {
      assertThat(status.instanceId()).isEqualTo(id);
      assertThat(status.instanceStatus().statusAsString()).isEqualTo("ok");
      assertThat(status.systemStatus().statusAsString()).isEqualTo("ok");
      assertThat(status.systemStatus().details()).singleElement().satisfies(d -> {
        assertThat(d.nameAsString()).isEqualTo("reachability");
        assertThat(d.statusAsString()).isEqualTo("passed");
      });
      assertThat(status.events()).isEmpty();
      assertThat(status.attachedEbsStatus()).isNull();
    });
    assertThat(ec2.describeInstanceStatus(r -> r.filters(Filter.builder().name("event.code").values("instance-retirement").build()))
        .instanceStatuses()).hasSize(1);
  }

  @Test
  void resetForgetsWhatTestsCreated(AwsEmulator emulator, Ec2Client ec2, SsmClient ssm) {
    ec2.runInstances(r -> r.imageId(amazonLinux(ssm)).minCount(1).maxCount(1));
    ssm.putParameter(r -> r.name("/probe/x").value("1").type(ParameterType.STRING));
    emulator.reset();
    assertThat(ec2.describeInstances().reservations()).isEmpty();
    assertThatThrownBy(() -> ssm.getParameter(r -> r.name("/probe/x"))).isInstanceOf(ParameterNotFoundException.class);
    assertThat(ssm.getParameter(r -> r.name(AL2023_PARAMETER)).parameter().value()).startsWith("ami-");
  }

  // ------------------------------------------------------------------------------------------
  // SQS
  // ------------------------------------------------------------------------------------------

  @Test
  void interruptionQueueDeliversMessages(SqsClient sqs) {
    String queue = sqs.createQueue(r -> r.queueName("probe-interruption")).queueUrl();
    assertThat(sqs.getQueueUrl(r -> r.queueName("probe-interruption")).queueUrl()).isEqualTo(queue);
    String event = "{\"source\":\"aws.ec2\",\"detail-type\":\"EC2 Spot Instance Interruption Warning\",\"detail\":{\"instance-id\":\"i-1\"}}";
    sqs.sendMessage(r -> r.queueUrl(queue).messageBody(event));
    List<Message> messages = sqs.receiveMessage(r -> r.queueUrl(queue).maxNumberOfMessages(10).waitTimeSeconds(1)).messages();
    assertThat(messages).singleElement().satisfies(m -> assertThat(m.body()).isEqualTo(event));
    sqs.deleteMessage(r -> r.queueUrl(queue).receiptHandle(messages.getFirst().receiptHandle()));
    assertThat(sqs.receiveMessage(r -> r.queueUrl(queue).waitTimeSeconds(0)).messages()).isEmpty();
  }

  // ------------------------------------------------------------------------------------------

  static String amazonLinux(SsmClient ssm) {
    return ssm.getParameter(r -> r.name(AL2023_PARAMETER)).parameter().value();
  }

  static void launchTemplate(Ec2Client ec2, SsmClient ssm, ClusterNetwork network, String name) {
    ec2.createLaunchTemplate(r -> r.launchTemplateName(name).launchTemplateData(RequestLaunchTemplateData.builder()
        .imageId(amazonLinux(ssm))
        .userData(Base64.getEncoder().encodeToString(("#!/bin/bash\necho " + name + "\n").getBytes(StandardCharsets.UTF_8)))
        .securityGroupIds(network.securityGroupId())
        .tagSpecifications(LaunchTemplateTagSpecificationRequest.builder().resourceType(ResourceType.INSTANCE).tags(tag("from-template", "1")).build())
        .build()));
  }

  static FleetLaunchTemplateOverridesRequest override(String type, ClusterNetwork network, String zone, Double priority) {
    return FleetLaunchTemplateOverridesRequest.builder().instanceType(type).subnetId(network.subnet(zone)).availabilityZone(zone)
        .priority(priority).build();
  }

  /** A request shaped like upstream Karpenter's: instant, one launch template config, the NodePool tag. */
  static CreateFleetRequest fleetRequest(String template, DefaultTargetCapacityType capacityType, int capacity,
      List<FleetLaunchTemplateOverridesRequest> overrides) {
    CreateFleetRequest.Builder request = CreateFleetRequest.builder()
        .type(FleetType.INSTANT)
        .targetCapacitySpecification(TargetCapacitySpecificationRequest.builder()
            .totalTargetCapacity(capacity).defaultTargetCapacityType(capacityType).build())
        .launchTemplateConfigs(FleetLaunchTemplateConfigRequest.builder()
            .launchTemplateSpecification(s -> s.launchTemplateName(template).version("$Latest"))
            .overrides(overrides).build())
        .tagSpecifications(TagSpecification.builder().resourceType(ResourceType.INSTANCE).tags(tag("karpenter.sh/nodepool", "default")).build());
    if (capacityType == DefaultTargetCapacityType.SPOT) {
      request.spotOptions(o -> o.allocationStrategy(SpotAllocationStrategy.PRICE_CAPACITY_OPTIMIZED));
    } else {
      request.onDemandOptions(o -> o.allocationStrategy(FleetOnDemandAllocationStrategy.LOWEST_PRICE));
    }
    return request.build();
  }

  static Instance instance(Ec2Client ec2, String id) {
    return ec2.describeInstances(r -> r.instanceIds(id)).reservations().getFirst().instances().getFirst();
  }

  static List<Instance> instances(Ec2Client ec2, Filter... filters) {
    return ec2.describeInstancesPaginator(r -> r.filters(filters)).reservations().stream()
        .flatMap(reservation -> reservation.instances().stream()).toList();
  }

  static Tag tag(String key, String value) {
    return Tag.builder().key(key).value(value).build();
  }

  private static long count(Map<String, InstanceTypeInfo> types, java.util.function.Predicate<InstanceTypeInfo> predicate) {
    return types.values().stream().filter(predicate).count();
  }

}
