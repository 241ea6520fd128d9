package sh.karpenter.providers.aws.instancetype;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import sh.karpenter.core.catalog.AwsInstanceTypeInfo;
import sh.karpenter.core.wellknown.Labels;
import software.amazon.awssdk.services.ec2.model.EbsInfo;
import software.amazon.awssdk.services.ec2.model.EbsOptimizedSupport;
import software.amazon.awssdk.services.ec2.model.EphemeralNvmeSupport;
import software.amazon.awssdk.services.ec2.model.GpuDeviceInfo;
import software.amazon.awssdk.services.ec2.model.InstanceStorageInfo;
import software.amazon.awssdk.services.ec2.model.InstanceTypeInfo;
import software.amazon.awssdk.services.ec2.model.NetworkCardInfo;
import software.amazon.awssdk.services.ec2.model.NetworkInfo;
import software.amazon.awssdk.services.ec2.model.NeuronDeviceInfo;
import software.amazon.awssdk.services.ec2.model.ProcessorInfo;
import software.amazon.awssdk.services.ec2.model.UsageClassType;

/**
 * Turns an EC2 {@code InstanceTypeInfo} (DescribeInstanceTypes) into core's {@link
 * AwsInstanceTypeInfo}, whose formulas then give capacity, overhead and labels exactly as for the
 * bundled catalogue (upstream {@code computeCapacity} and {@code computeRequirements} read the same
 * fields). Two facts DescribeInstanceTypes lacks come, as upstream's generated tables give them, from
 * the bundled catalogue entry of the same name: branch ENIs for pods ({@code vpclimits}) and the
 * network bandwidth label ({@code bandwidth}); a type the catalogue lacks has neither.
 */
public final class InstanceTypeInfos {
  private InstanceTypeInfos() {}

  /** Upstream's {@code instanceTypeScheme}: category, optional size suffix, generation. */
  private static final Pattern INSTANCE_TYPE_SCHEME = Pattern.compile("(^[a-z]+)(-[0-9]+tb)?([0-9]+).*\\.");

  private static final Map<String, String> KUBE_ARCHITECTURES = Map.of("x86_64", "amd64", "arm64", "arm64");

  /**
   * The catalogue form of {@code info}.
   *
   * @param bundled the bundled entry of the same name, or null
   * @throws IllegalArgumentException naming the type when vCPUs, memory or a supported architecture
   *     is missing
   */
  public static AwsInstanceTypeInfo toCatalogInfo(InstanceTypeInfo info, AwsInstanceTypeInfo bundled) {
    String name = info.instanceTypeAsString();
    if (info.vCpuInfo() == null || info.vCpuInfo().defaultVCpus() == null) {
      throw new IllegalArgumentException("instance type " + name + ": no VCpuInfo.DefaultVCpus");
    }
    if (info.memoryInfo() == null || info.memoryInfo().sizeInMiB() == null) {
      throw new IllegalArgumentException("instance type " + name + ": no MemoryInfo.SizeInMiB");
    }
    String arch = architecture(info);
    if (arch == null) {
      throw new IllegalArgumentException("instance type " + name + ": no supported architecture (x86_64, arm64)");
    }

    int gpuCount = 0;
    String gpuName = null;
    long gpuMemoryMiB = 0;
    String gpuManufacturer = null;
    if (info.gpuInfo() != null && !info.gpuInfo().gpus().isEmpty()) {
      GpuDeviceInfo gpu = info.gpuInfo().gpus().get(0);
      gpuManufacturer = kebab(gpu.manufacturer());
      gpuName = kebab(gpu.name());
      gpuMemoryMiB = gpu.memoryInfo() == null || gpu.memoryInfo().sizeInMiB() == null ? 0 : gpu.memoryInfo().sizeInMiB();
      for (GpuDeviceInfo each : info.gpuInfo().gpus()) {
        if (each.manufacturer() != null && each.manufacturer().equalsIgnoreCase(gpu.manufacturer()) && each.count() != null) {
          gpuCount += each.count();
        }
      }
    }

    String acceleratorName = null;
    int acceleratorCount = 0;
    Integer neuronCoresPerDevice = null;
    if (info.neuronInfo() != null && !info.neuronInfo().neuronDevices().isEmpty()) {
      NeuronDeviceInfo device = info.neuronInfo().neuronDevices().get(0);
      acceleratorName = kebab(device.name());
      for (NeuronDeviceInfo each : info.neuronInfo().neuronDevices()) {
        acceleratorCount += each.count() == null ? 0 : each.count();
      }
      neuronCoresPerDevice = device.coreInfo() == null || device.coreInfo().count() == null ? 0 : device.coreInfo().count();
    }

    Integer ipv4PerEni = null;
    Integer defaultCardMaxEnis = null;
    Integer efaInterfaces = 0;
    NetworkInfo network = info.networkInfo();
    if (network != null) {
      ipv4PerEni = network.ipv4AddressesPerInterface();
      List<NetworkCardInfo> cards = network.networkCards();
      Integer index = network.defaultNetworkCardIndex();
      if (index != null && index >= 0 && index < cards.size()) {
        defaultCardMaxEnis = cards.get(index).maximumNetworkInterfaces();
      }
      if (network.efaInfo() != null && network.efaInfo().maximumEfaInterfaces() != null) {
        efaInterfaces = network.efaInfo().maximumEfaInterfaces();
      }
    }

    String[] parts = name.split("\\.");
    String family = parts[0];
    String size = parts.length == 2 ? parts[1] : null;
    String category = null;
    Integer generation = null;
    Matcher scheme = INSTANCE_TYPE_SCHEME.matcher(name);
    if (scheme.find()) {
      category = scheme.group(1);
      generation = Integer.valueOf(scheme.group(3));
    }

    ProcessorInfo processor = info.processorInfo();
    String cpuManufacturer = processor == null ? null : kebab(processor.manufacturer());
    Integer clockMHz =
        processor == null
            ? null
            : (int) Math.round((processor.sustainedClockSpeedInGhz() == null ? 0 : processor.sustainedClockSpeedInGhz()) * 1000);

    EbsInfo ebs = info.ebsInfo();
    Long ebsBandwidth =
        ebs != null && ebs.ebsOptimizedInfo() != null && ebs.ebsOptimizedSupport() == EbsOptimizedSupport.DEFAULT
            ? toLong(ebs.ebsOptimizedInfo().maximumBandwidthInMbps())
            : null;

    InstanceStorageInfo storage = info.instanceStorageInfo();
    long localNvmeGb =
        storage != null && storage.nvmeSupport() != EphemeralNvmeSupport.UNSUPPORTED && storage.totalSizeInGB() != null
            ? storage.totalSizeInGB()
            : 0;

    return new AwsInstanceTypeInfo(
        name,
        info.vCpuInfo().defaultVCpus(),
        info.memoryInfo().sizeInMiB(),
        arch,
        gpuCount,
        gpuName,
        gpuMemoryMiB,
        gpuManufacturer,
        acceleratorName,
        acceleratorCount,
        ipv4PerEni,
        defaultCardMaxEnis,
        bundled == null ? null : bundled.podENI(),
        family,
        category,
        generation,
        size,
        info.hypervisor() == null ? null : info.hypervisorAsString(),
        cpuManufacturer,
        clockMHz,
        bundled == null ? null : bundled.networkBandwidthMbps(),
        ebsBandwidth,
        localNvmeGb,
        family.contains("-flex"),
        null,
        null,
        efaInterfaces,
        neuronCoresPerDevice);
  }

  /** The Kubernetes architecture of the first supported architecture Kubernetes knows, or null. */
  static String architecture(InstanceTypeInfo info) {
    if (info.processorInfo() == null) {
      return null;
    }
    for (String architecture : info.processorInfo().supportedArchitecturesAsStrings()) {
      String kube = KUBE_ARCHITECTURES.get(architecture);
      if (kube != null) {
        return kube;
      }
    }
    return null;
  }

  /** The capacity types the type supports, of on-demand and spot, from its usage classes. */
  public static List<String> capacityTypes(InstanceTypeInfo info) {
    List<String> capacityTypes = new ArrayList<>(2);
    for (UsageClassType usageClass : info.supportedUsageClasses()) {
      if (usageClass == UsageClassType.ON_DEMAND) {
        capacityTypes.add(Labels.CAPACITY_TYPE_ON_DEMAND);
      } else if (usageClass == UsageClassType.SPOT) {
        capacityTypes.add(Labels.CAPACITY_TYPE_SPOT);
      }
    }
    return capacityTypes;
  }

  /** {@code NetworkInfo.EncryptionInTransitSupported}, false when absent. */
  public static boolean encryptionInTransitSupported(InstanceTypeInfo info) {
    return info.networkInfo() != null && Boolean.TRUE.equals(info.networkInfo().encryptionInTransitSupported());
  }

  /** Total instance-store size in GB, null without instance storage (the RAID0 ephemeral storage). */
  static Long instanceStorageGb(InstanceTypeInfo info) {
    InstanceStorageInfo storage = info.instanceStorageInfo();
    return storage == null ? null : storage.totalSizeInGB();
  }

  private static Long toLong(Integer value) {
    return value == null ? null : value.longValue();
  }

  /** Upstream's {@code lowerKabobCase}: lower case, spaces to dashes. */
  static String kebab(String value) {
    return value == null ? null : value.replace(" ", "-").toLowerCase(Locale.ROOT);
  }
}
