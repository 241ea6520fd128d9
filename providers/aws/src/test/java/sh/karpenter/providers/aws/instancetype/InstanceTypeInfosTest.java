package sh.karpenter.providers.aws.instancetype;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import sh.karpenter.core.catalog.AwsCatalogOptions;
import sh.karpenter.core.catalog.AwsInstanceTypeInfo;
import sh.karpenter.core.catalog.AwsInstanceTypes;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;
import software.amazon.awssdk.services.ec2.model.EbsInfo;
import software.amazon.awssdk.services.ec2.model.EbsOptimizedInfo;
import software.amazon.awssdk.services.ec2.model.EbsOptimizedSupport;
import software.amazon.awssdk.services.ec2.model.EfaInfo;
import software.amazon.awssdk.services.ec2.model.EphemeralNvmeSupport;
import software.amazon.awssdk.services.ec2.model.GpuDeviceInfo;
import software.amazon.awssdk.services.ec2.model.GpuDeviceMemoryInfo;
import software.amazon.awssdk.services.ec2.model.GpuInfo;
import software.amazon.awssdk.services.ec2.model.InstanceStorageInfo;
import software.amazon.awssdk.services.ec2.model.InstanceTypeInfo;
import software.amazon.awssdk.services.ec2.model.MemoryInfo;
import software.amazon.awssdk.services.ec2.model.NetworkCardInfo;
import software.amazon.awssdk.services.ec2.model.NetworkInfo;
import software.amazon.awssdk.services.ec2.model.NeuronDeviceCoreInfo;
import software.amazon.awssdk.services.ec2.model.NeuronDeviceInfo;
import software.amazon.awssdk.services.ec2.model.NeuronInfo;
import software.amazon.awssdk.services.ec2.model.ProcessorInfo;
import software.amazon.awssdk.services.ec2.model.UsageClassType;
import software.amazon.awssdk.services.ec2.model.VCpuInfo;

/**
 * The live path reproduces the bundled catalogue: for every bundled type, the EC2 {@code
 * InstanceTypeInfo} carrying the same facts converts to the same capacity, allocatable and
 * instance labels as core's bundled path gives (whose allocatable is checked against the published
 * figures in core's AwsInstanceTypesTest).
 */
class InstanceTypeInfosTest {
  private static final Map<String, InstanceType> BUNDLED =
      InstanceTypeCatalog.aws().instanceTypes().stream().collect(Collectors.toMap(InstanceType::name, Function.identity()));

  /** Cores per Neuron device as EC2 reports them (NeuronInfo.NeuronDevices[].CoreInfo.Count). */
  private static final Map<String, Integer> NEURON_CORES = Map.of("inferentia", 4, "inferentia2", 2, "trainium", 2, "trainium2", 8);

  /** How EC2 spells the manufacturers the catalogue has in lower case. */
  private static final Map<String, String> EC2_MANUFACTURER =
      Map.of("nvidia", "NVIDIA", "amd", "AMD", "habana", "Habana", "intel", "Intel", "aws", "AWS");

  @Test
  void everyBundledTypeConvertsToTheSameCapacityAllocatableAndLabels() {
    List<String> mismatches = new ArrayList<>();
    int checked = 0;
    int clockSpeedZero = 0;
    for (AwsInstanceTypeInfo bundled : InstanceTypeCatalog.bundledAwsInstanceTypes()) {
      InstanceType oracle = BUNDLED.get(bundled.name());
      if (oracle == null) {
        continue; // unpriced: the bundled catalogue leaves it out
      }
      checked++;
      AwsInstanceTypeInfo live = InstanceTypeInfos.toCatalogInfo(ec2Info(bundled), bundled);
      Resources capacity = AwsInstanceTypes.capacity(live, AwsCatalogOptions.DEFAULT);
      InstanceType converted = new InstanceType(
          live.name(),
          AwsInstanceTypes.requirements(live, "us-east-1", AwsCatalogOptions.DEFAULT_ZONES,
              List.of(Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_SPOT)),
          List.of(),
          capacity,
          AwsInstanceTypes.overhead(live, capacity));
      if (!converted.capacity().equals(oracle.capacity())) {
        mismatches.add(bundled.name() + " capacity " + converted.capacity() + " != " + oracle.capacity());
      }
      if (!converted.allocatable().equals(oracle.allocatable())) {
        mismatches.add(bundled.name() + " allocatable " + converted.allocatable() + " != " + oracle.allocatable());
      }
      for (String key : oracle.requirements().keys()) {
        Requirement expected = oracle.requirements().find(key);
        Requirement actual = converted.requirements().find(key);
        if (key.equals(AwsLabels.INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ) && bundled.cpuClockSpeedMHz() == null) {
          // The catalogue lacks the speed for these types; EC2 with ProcessorInfo but no
          // SustainedClockSpeedInGhz gives "0", as upstream's computeRequirements does.
          clockSpeedZero++;
          expected = Requirement.in(key, "0");
        }
        if (!expected.equals(actual)) {
          mismatches.add(bundled.name() + " " + key + ": " + actual + " != " + expected);
        }
      }
    }
    assertThat(checked).isEqualTo(BUNDLED.size()).isGreaterThan(1300);
    assertThat(clockSpeedZero).isEqualTo(12);
    assertThat(mismatches).isEmpty();
  }

  @Test
  void liveFactsWinOverTheCatalogueForEfaAndNeuronCores() {
    AwsInstanceTypeInfo bundled = InstanceTypeCatalog.bundledAwsInstanceTypes().stream()
        .filter(i -> i.name().equals("trn1.32xlarge")).findFirst().orElseThrow();
    InstanceTypeInfo ec2 = ec2Info(bundled).toBuilder()
        .neuronInfo(NeuronInfo.builder().neuronDevices(NeuronDeviceInfo.builder().name("Trainium9").count(16)
            .coreInfo(NeuronDeviceCoreInfo.builder().count(3).build()).build()).build())
        .networkInfo(ec2Info(bundled).networkInfo().toBuilder().efaInfo(EfaInfo.builder().maximumEfaInterfaces(5).build()).build())
        .build();
    AwsInstanceTypeInfo live = InstanceTypeInfos.toCatalogInfo(ec2, bundled);
    Resources capacity = AwsInstanceTypes.capacity(live, AwsCatalogOptions.DEFAULT);
    assertThat(capacity.milli(AwsLabels.RESOURCE_NEURON)).isEqualTo(16_000);
    assertThat(capacity.milli(AwsLabels.RESOURCE_NEURON_CORE)).isEqualTo(48_000);
    assertThat(capacity.milli(AwsLabels.RESOURCE_EFA)).isEqualTo(5_000);
    assertThat(live.acceleratorName()).isEqualTo("trainium9");
  }

  @Test
  void aTypeTheCatalogueLacksHasNoBranchEnisOrNetworkBandwidth() {
    AwsInstanceTypeInfo bundled = InstanceTypeCatalog.bundledAwsInstanceTypes().stream()
        .filter(i -> i.name().equals("m5.large")).findFirst().orElseThrow();
    AwsInstanceTypeInfo live = InstanceTypeInfos.toCatalogInfo(ec2Info(bundled).toBuilder().instanceType("m99.large").build(), null);
    assertThat(live.podENI()).isNull();
    assertThat(live.networkBandwidthMbps()).isNull();
    assertThat(live.category()).isEqualTo("m");
    assertThat(live.generation()).isEqualTo(99);
    Requirements requirements = AwsInstanceTypes.requirements(live, "us-east-1", List.of("us-east-1a"), List.of("on-demand"));
    assertThat(requirements.find(AwsLabels.INSTANCE_NETWORK_BANDWIDTH)).isEqualTo(Requirement.doesNotExist(AwsLabels.INSTANCE_NETWORK_BANDWIDTH));
    assertThat(AwsInstanceTypes.capacity(live, AwsCatalogOptions.DEFAULT).milli(AwsLabels.RESOURCE_POD_ENI)).isZero();
  }

  @Test
  void aTypeWithoutVcpusIsAnErrorNamingIt() {
    InstanceTypeInfo broken = InstanceTypeInfo.builder().instanceType("m5.large").memoryInfo(MemoryInfo.builder().sizeInMiB(8192L).build()).build();
    assertThatThrownBy(() -> InstanceTypeInfos.toCatalogInfo(broken, null))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("m5.large")
        .hasMessageContaining("VCpuInfo");
  }

  @Test
  void capacityTypesComeFromUsageClasses() {
    InstanceTypeInfo info = InstanceTypeInfo.builder().supportedUsageClasses(UsageClassType.ON_DEMAND, UsageClassType.CAPACITY_BLOCK).build();
    assertThat(InstanceTypeInfos.capacityTypes(info)).containsExactly("on-demand");
  }

  /** The EC2 description of a bundled entry, shaped as DescribeInstanceTypes answers. */
  static InstanceTypeInfo ec2Info(AwsInstanceTypeInfo t) {
    InstanceTypeInfo.Builder b = InstanceTypeInfo.builder()
        .instanceType(t.name())
        .vCpuInfo(VCpuInfo.builder().defaultVCpus(t.vcpu()).build())
        .memoryInfo(MemoryInfo.builder().sizeInMiB(t.memoryMiB()).build())
        .processorInfo(ProcessorInfo.builder()
            .supportedArchitecturesWithStrings("amd64".equals(t.arch()) ? "x86_64" : "arm64")
            .manufacturer(t.cpuManufacturer() == null ? null : EC2_MANUFACTURER.get(t.cpuManufacturer()))
            .sustainedClockSpeedInGhz(t.cpuClockSpeedMHz() == null ? null : t.cpuClockSpeedMHz() / 1000.0)
            .build())
        .supportedUsageClasses(UsageClassType.ON_DEMAND, UsageClassType.SPOT)
        .supportedVirtualizationTypesWithStrings("hvm");
    if (t.hypervisor() != null) {
      b.hypervisor(t.hypervisor());
    }
    if (t.gpuCount() > 0) {
      b.gpuInfo(GpuInfo.builder().gpus(GpuDeviceInfo.builder()
          .name(t.gpuName())
          .manufacturer(EC2_MANUFACTURER.get(t.gpuManufacturer()))
          .count(t.gpuCount())
          .memoryInfo(GpuDeviceMemoryInfo.builder().sizeInMiB((int) t.gpuMemoryMiB()).build())
          .build()).build());
    }
    if (t.acceleratorName() != null && t.acceleratorCount() > 0) {
      b.neuronInfo(NeuronInfo.builder().neuronDevices(NeuronDeviceInfo.builder()
          .name(t.acceleratorName())
          .count(t.acceleratorCount())
          .coreInfo(NeuronDeviceCoreInfo.builder().count(NEURON_CORES.get(t.acceleratorName())).build())
          .build()).build());
    }
    if (t.hasEniData()) {
      NetworkInfo.Builder network = NetworkInfo.builder()
          .ipv4AddressesPerInterface(t.ipv4PerENI())
          .defaultNetworkCardIndex(0)
          .networkCards(NetworkCardInfo.builder().networkCardIndex(0).maximumNetworkInterfaces(t.defaultCardMaxENIs()).build());
      Integer efa = t.docAllocatable() == null ? null : t.docAllocatable().efa();
      if (efa != null) {
        network.efaSupported(true).efaInfo(EfaInfo.builder().maximumEfaInterfaces(efa).build());
      }
      b.networkInfo(network.build());
    }
    if (t.ebsBandwidthMbps() != null) {
      b.ebsInfo(EbsInfo.builder()
          .ebsOptimizedSupport(EbsOptimizedSupport.DEFAULT)
          .ebsOptimizedInfo(EbsOptimizedInfo.builder().maximumBandwidthInMbps(t.ebsBandwidthMbps().intValue()).build())
          .build());
    }
    if (t.localNvmeGB() > 0) {
      b.instanceStorageInfo(InstanceStorageInfo.builder().totalSizeInGB(t.localNvmeGB()).nvmeSupport(EphemeralNvmeSupport.REQUIRED).build());
    }
    return b.build();
  }
}
