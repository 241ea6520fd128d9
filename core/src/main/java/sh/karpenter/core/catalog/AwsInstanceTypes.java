package sh.karpenter.core.catalog;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.instancetype.Overhead;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;

/**
 * Turns {@link AwsInstanceTypeInfo} entries into {@link InstanceType}s exactly as the AWS provider
 * does for an AL2023 node class with default kubelet settings
 * (docs/behaviour/cloudprovider.md#aws-catalogue: capacity, overhead, requirements, offerings).
 *
 * <p>Where the data file lacks a fact the provider would have:
 *
 * <ul>
 *   <li>types without ENI data (no vpclimits entry) get {@value #FALLBACK_MAX_PODS} pods, also used
 *       for the kube-reserved memory formula;
 *   <li>the EFA interface count is taken from the published allocatable (extended resources carry no
 *       overhead, so it equals the capacity) unless the entry carries DescribeInstanceTypes' count;
 *   <li>{@code topology.k8s.aws/zone-id} and {@code instance-encryption-in-transit-supported} are not
 *       set (no data);
 *   <li>a1.* types are not compatible with AL2023: their offerings are unavailable, as upstream's
 *       compatibility check makes them.
 * </ul>
 */
public final class AwsInstanceTypes {
  private AwsInstanceTypes() {}

  /** Max pods of a type without ENI data (the Kubernetes default). */
  public static final int FALLBACK_MAX_PODS = 110;

  /** The AL2023 default root volume, which is the node's ephemeral storage: 20Gi. */
  public static final long ROOT_VOLUME_BYTES = 20L << 30;

  private static final long MIB = 1L << 20;
  private static final long GIB = 1L << 30;
  private static final long MILLI = 1000;

  /** Neuron cores per device, by accelerator name (DescribeInstanceTypes NeuronInfo). */
  private static final Map<String, Integer> NEURON_CORES_PER_DEVICE =
      Map.of("inferentia", 4, "inferentia2", 2, "trainium", 2, "trainium2", 8);

  private static final Map<String, String> GPU_RESOURCE_BY_MANUFACTURER =
      Map.of(
          "nvidia", AwsLabels.RESOURCE_NVIDIA_GPU,
          "amd", AwsLabels.RESOURCE_AMD_GPU,
          "habana", AwsLabels.RESOURCE_HABANA_GAUDI);

  private static final List<String> CAPACITY_TYPES =
      List.of(Labels.CAPACITY_TYPE_ON_DEMAND, Labels.CAPACITY_TYPE_SPOT);

  /**
   * Instance types for every priced entry, in data-file order; entries without a price are skipped.
   */
  public static List<InstanceType> of(List<AwsInstanceTypeInfo> infos, String region, AwsCatalogOptions options) {
    List<Requirements> offeringRequirements = new ArrayList<>();
    for (String zone : options.zones()) {
      for (String capacityType : CAPACITY_TYPES) {
        offeringRequirements.add(
            Requirements.of(
                    Requirement.in(Labels.CAPACITY_TYPE, capacityType),
                    Requirement.in(Labels.ZONE, zone),
                    Requirement.doesNotExist(Labels.RESERVATION_ID))
                .frozen());
      }
    }
    Requirements shared = sharedRequirements(region, options).frozen();
    List<InstanceType> types = new ArrayList<>(infos.size());
    for (AwsInstanceTypeInfo info : infos) {
      if (info.onDemandPricePerHour() == null) {
        continue;
      }
      types.add(instanceType(info, options, shared, offeringRequirements));
    }
    return types;
  }

  private static InstanceType instanceType(
      AwsInstanceTypeInfo info,
      AwsCatalogOptions options,
      Requirements shared,
      List<Requirements> offeringRequirements) {
    double onDemand = info.onDemandPricePerHour();
    boolean available = compatibleWithAl2023(info);
    List<Offering> offerings = new ArrayList<>(offeringRequirements.size());
    int i = 0;
    for (String zone : options.zones()) {
      for (String capacityType : CAPACITY_TYPES) {
        double price =
            capacityType.equals(Labels.CAPACITY_TYPE_SPOT)
                ? options.spotPrices().spotPrice(info.name(), info.category(), onDemand, zone)
                : onDemand;
        offerings.add(new Offering(offeringRequirements.get(i++), price, available, 0));
      }
    }
    Resources capacity = capacity(info, options);
    return new InstanceType(
        info.name(), requirements(info, shared), offerings, capacity, overhead(info, capacity));
  }

  /** a1.* cannot run AL2023 (upstream's AMI-family compatibility check). */
  public static boolean compatibleWithAl2023(AwsInstanceTypeInfo info) {
    return !"a1".equals(info.family());
  }

  /** Node capacity (docs/behaviour/cloudprovider.md#aws-capacity). */
  public static Resources capacity(AwsInstanceTypeInfo info, AwsCatalogOptions options) {
    return capacity(info, options, AwsNodeClassSettings.DEFAULT);
  }

  /** Node capacity under a node class's kubelet and block-device settings. */
  public static Resources capacity(AwsInstanceTypeInfo info, AwsCatalogOptions options, AwsNodeClassSettings settings) {
    long ephemeral = settings.ephemeralStorageBytes() == null ? ROOT_VOLUME_BYTES : settings.ephemeralStorageBytes();
    Resources.Builder capacity =
        Resources.builder()
            .milli(ResourceNames.CPU, info.vcpu() * MILLI)
            .milli(ResourceNames.MEMORY, memoryMiB(info, options.vmMemoryOverheadPercent()) * MIB * MILLI)
            .milli(ResourceNames.EPHEMERAL_STORAGE, ephemeral * MILLI)
            .milli(ResourceNames.PODS, pods(info, options.reservedEnis(), settings) * MILLI);
    if (info.podENI() != null && info.podENI() > 0) {
      capacity.milli(AwsLabels.RESOURCE_POD_ENI, info.podENI() * MILLI);
    }
    if (info.gpuCount() > 0) {
      String resource = GPU_RESOURCE_BY_MANUFACTURER.get(info.gpuManufacturer());
      if (resource != null) {
        capacity.milli(resource, info.gpuCount() * MILLI);
      }
    }
    Integer coresPerDevice =
        info.neuronCoresPerDevice() != null
            ? info.neuronCoresPerDevice()
            : info.acceleratorName() == null ? null : NEURON_CORES_PER_DEVICE.get(info.acceleratorName());
    if (coresPerDevice != null && info.acceleratorCount() > 0) {
      capacity.milli(AwsLabels.RESOURCE_NEURON, info.acceleratorCount() * MILLI);
      capacity.milli(AwsLabels.RESOURCE_NEURON_CORE, (long) info.acceleratorCount() * coresPerDevice * MILLI);
    }
    Integer efa =
        info.efaInterfaces() != null
            ? info.efaInterfaces()
            : info.docAllocatable() == null ? null : info.docAllocatable().efa();
    if (efa != null && efa > 0) {
      capacity.milli(AwsLabels.RESOURCE_EFA, efa * MILLI);
    }
    return capacity.build();
  }

  /**
   * Memory capacity in MiB: 64 MiB less on arm64 (Graviton CMA), then the VM overhead share taken
   * off, rounded up to a whole MiB, computed in the same floating-point steps as upstream.
   */
  static long memoryMiB(AwsInstanceTypeInfo info, double vmMemoryOverheadPercent) {
    long mib = info.memoryMiB() - ("arm64".equals(info.arch()) ? 64 : 0);
    return mib - (long) Math.ceil((double) (mib * MIB) * vmMemoryOverheadPercent / 1024 / 1024);
  }

  /** Max pods: ENI-limited for AL2023, {@value #FALLBACK_MAX_PODS} without ENI data. */
  static long maxPods(AwsInstanceTypeInfo info, int reservedEnis) {
    if (!info.hasEniData()) {
      return FALLBACK_MAX_PODS;
    }
    long usableEnis = Math.max(info.defaultCardMaxENIs() - reservedEnis, 0);
    return usableEnis == 0 ? 0 : usableEnis * (info.ipv4PerENI() - 1) + 2;
  }

  /**
   * Max pods under a node class's kubelet settings (upstream {@code pods}): {@code maxPods} when
   * set, else ENI-limited; then at most {@code podsPerCore} × vCPUs when podsPerCore is positive.
   */
  static long pods(AwsInstanceTypeInfo info, int reservedEnis, AwsNodeClassSettings settings) {
    long count = settings.maxPods() != null ? settings.maxPods() : maxPods(info, reservedEnis);
    if (settings.podsPerCore() != null && settings.podsPerCore() > 0) {
      count = Math.min((long) settings.podsPerCore() * info.vcpu(), count);
    }
    return count;
  }

  /**
   * Kube-reserved, system-reserved (none) and eviction threshold
   * (docs/behaviour/cloudprovider.md#aws-overhead). Memory is reserved for the ENI-limited pod
   * count with no reserved ENIs, whatever max pods is.
   */
  public static Overhead overhead(AwsInstanceTypeInfo info, Resources capacity) {
    return overhead(info, capacity, AwsNodeClassSettings.DEFAULT);
  }

  /**
   * The overhead under a node class's kubelet settings: {@code kubeReserved} replaces the computed
   * value of each resource it names, {@code systemReserved} is taken as given, and {@code
   * evictionHard}'s {@code memory.available} and {@code nodefs.available} replace the default
   * thresholds (upstream {@code kubeReservedResources}, {@code systemReservedResources}, {@code
   * evictionThreshold}).
   */
  public static Overhead overhead(AwsInstanceTypeInfo info, Resources capacity, AwsNodeClassSettings settings) {
    long ephemeral = capacity.milli(ResourceNames.EPHEMERAL_STORAGE) / MILLI;
    Resources.Builder kubeReserved =
        Resources.builder()
            .milli(ResourceNames.CPU, kubeReservedCpuMilli(capacity.milli(ResourceNames.CPU)))
            .milli(ResourceNames.MEMORY, (11 * maxPods(info, 0) + 255) * MIB * MILLI)
            .milli(ResourceNames.EPHEMERAL_STORAGE, GIB * MILLI);
    settings.kubeReservedMilli().forEach(kubeReserved::milli);
    Resources systemReserved = Resources.EMPTY;
    if (!settings.systemReservedMilli().isEmpty()) {
      Resources.Builder builder = Resources.builder();
      settings.systemReservedMilli().forEach(builder::milli);
      systemReserved = builder.build();
    }
    long memoryThreshold = 100 * MIB;
    long storageThreshold = Math.ceilDiv(ephemeral, 10);
    String memoryAvailable = settings.evictionHard().get(AwsNodeClassSettings.MEMORY_AVAILABLE);
    if (memoryAvailable != null) {
      memoryThreshold = AwsNodeClassSettings.evictionSignal(
          AwsNodeClassSettings.MEMORY_AVAILABLE, memoryAvailable, capacity.milli(ResourceNames.MEMORY) / MILLI);
    }
    String nodefsAvailable = settings.evictionHard().get(AwsNodeClassSettings.NODEFS_AVAILABLE);
    if (nodefsAvailable != null) {
      storageThreshold = AwsNodeClassSettings.evictionSignal(AwsNodeClassSettings.NODEFS_AVAILABLE, nodefsAvailable, ephemeral);
    }
    Resources evictionThreshold =
        Resources.builder()
            .milli(ResourceNames.MEMORY, memoryThreshold * MILLI)
            .milli(ResourceNames.EPHEMERAL_STORAGE, storageThreshold * MILLI)
            .build();
    return new Overhead(kubeReserved.build(), systemReserved, evictionThreshold);
  }

  /**
   * Kube-reserved CPU: 6% of the first core, 1% of the second, 0.5% of the third and fourth, 0.25%
   * of the rest, each tier truncated to whole millicores.
   */
  static long kubeReservedCpuMilli(long cpuMilli) {
    long reserved = 0;
    for (int t = 0; t < CPU_TIER_RATES.length; t++) {
      long start = CPU_TIER_BOUNDS[t];
      long end = CPU_TIER_BOUNDS[t + 1];
      if (cpuMilli >= start) {
        double span = cpuMilli < end ? cpuMilli - start : end - start;
        reserved += (long) (span * CPU_TIER_RATES[t]);
      }
    }
    return reserved;
  }

  /** Millicore bounds of the kube-reserved CPU tiers (upstream's last tier ends at 2^31). */
  private static final long[] CPU_TIER_BOUNDS = {0, 1000, 2000, 4000, 1L << 31};

  private static final double[] CPU_TIER_RATES = {0.06, 0.01, 0.005, 0.0025};

  /** Requirements every type of the catalogue shares: region, zones, capacity types, OS, ... */
  private static Requirements sharedRequirements(String region, AwsCatalogOptions options) {
    return sharedRequirements(region, options.zones(), CAPACITY_TYPES);
  }

  private static Requirements sharedRequirements(String region, List<String> zones, List<String> capacityTypes) {
    return Requirements.of(
        Requirement.of(Labels.ZONE, Operator.In, zones),
        Requirement.of(Labels.CAPACITY_TYPE, Operator.In, capacityTypes),
        Requirement.in(Labels.REGION, region),
        Requirement.in(Labels.OS, "linux"),
        Requirement.doesNotExist(Labels.WINDOWS_BUILD),
        Requirement.in(AwsLabels.INSTANCE_TENANCY, "default", "dedicated"),
        Requirement.doesNotExist(Labels.RESERVATION_ID),
        Requirement.doesNotExist(AwsLabels.CAPACITY_RESERVATION_TYPE));
  }

  /**
   * The requirements of one type offered in {@code zones} with {@code capacityTypes} (the live
   * provider's per-type zones and usage classes), otherwise as {@link #of} builds them.
   */
  public static Requirements requirements(
      AwsInstanceTypeInfo info, String region, List<String> zones, List<String> capacityTypes) {
    return requirements(info, sharedRequirements(region, zones, capacityTypes));
  }

  /**
   * The type's requirements (docs/behaviour/cloudprovider.md#aws-labels-and-requirements); labels
   * without data are DoesNotExist.
   */
  static Requirements requirements(AwsInstanceTypeInfo info, Requirements shared) {
    Requirements r = shared.copy();
    r.add(Requirement.in(Labels.INSTANCE_TYPE, info.name()));
    r.add(Requirement.in(Labels.ARCH, info.arch()));
    r.add(Requirement.in(AwsLabels.INSTANCE_CPU, Integer.toString(info.vcpu())));
    r.add(Requirement.in(AwsLabels.INSTANCE_MEMORY, Long.toString(info.memoryMiB())));
    r.add(Requirement.in(AwsLabels.INSTANCE_HYPERVISOR, info.hypervisor() == null ? "" : info.hypervisor()));
    r.add(Requirement.in(AwsLabels.INSTANCE_CAPABILITY_FLEX, Boolean.toString(info.family().contains("-flex"))));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_CATEGORY, info.category()));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_GENERATION, info.generation()));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_FAMILY, info.family()));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_SIZE, info.size()));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_CPU_MANUFACTURER, info.cpuManufacturer()));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ, info.cpuClockSpeedMHz()));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_NETWORK_BANDWIDTH, info.networkBandwidthMbps()));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_EBS_BANDWIDTH, info.ebsBandwidthMbps()));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_LOCAL_NVME, info.localNvmeGB() > 0 ? info.localNvmeGB() : null));
    boolean gpu = info.gpuCount() > 0;
    r.add(labelOrAbsent(AwsLabels.INSTANCE_GPU_NAME, gpu ? info.gpuName() : null));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_GPU_MANUFACTURER, gpu ? info.gpuManufacturer() : null));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_GPU_COUNT, gpu ? info.gpuCount() : null));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_GPU_MEMORY, gpu ? info.gpuMemoryMiB() : null));
    boolean accelerator = info.acceleratorName() != null && info.acceleratorCount() > 0;
    r.add(labelOrAbsent(AwsLabels.INSTANCE_ACCELERATOR_NAME, accelerator ? info.acceleratorName() : null));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_ACCELERATOR_MANUFACTURER, accelerator ? "aws" : null));
    r.add(labelOrAbsent(AwsLabels.INSTANCE_ACCELERATOR_COUNT, accelerator ? info.acceleratorCount() : null));
    return r.frozen();
  }

  private static Requirement labelOrAbsent(String key, Object value) {
    return value == null
        ? Requirement.doesNotExist(key)
        : Requirement.in(key, value.toString().toLowerCase(Locale.ROOT));
  }
}
