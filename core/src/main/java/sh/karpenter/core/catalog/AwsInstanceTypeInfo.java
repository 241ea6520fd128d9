package sh.karpenter.core.catalog;

/**
 * One entry of the AWS instance-type data file ({@code catalog/aws-instance-types.json}, a snapshot
 * of the facts the AWS provider reads from DescribeInstanceTypes, its vpclimits table and its static
 * price list; field meanings in the data file's README). Nullable fields are boxed.
 *
 * @param memoryMiB raw instance memory, before any overhead
 * @param gpuMemoryMiB memory per GPU
 * @param defaultCardMaxENIs ENIs on the default network card, which bound max pods; null when the
 *     type has no vpclimits entry
 * @param podENI branch ENIs for security groups for pods; 0 when the type cannot trunk
 * @param hypervisor {@code nitro}, {@code xen}, or null for bare metal
 * @param onDemandPricePerHour USD per hour in the data file's region; null when unpriced
 * @param docAllocatable the allocatable Karpenter publishes for the type (AL2023, defaults): a test
 *     oracle, and the EFA interface count when {@code efaInterfaces} is null
 * @param efaInterfaces maximum EFA interfaces as DescribeInstanceTypes reports them ({@code
 *     NetworkInfo.EfaInfo}); null when unknown (the data file), then taken from {@code docAllocatable}
 * @param neuronCoresPerDevice cores per Neuron device as DescribeInstanceTypes reports them ({@code
 *     NeuronInfo}); null when unknown (the data file), then looked up by accelerator name
 */
public record AwsInstanceTypeInfo(
    String name,
    int vcpu,
    long memoryMiB,
    String arch,
    int gpuCount,
    String gpuName,
    long gpuMemoryMiB,
    String gpuManufacturer,
    String acceleratorName,
    int acceleratorCount,
    Integer ipv4PerENI,
    Integer defaultCardMaxENIs,
    Integer podENI,
    String family,
    String category,
    Integer generation,
    String size,
    String hypervisor,
    String cpuManufacturer,
    Integer cpuClockSpeedMHz,
    Long networkBandwidthMbps,
    Long ebsBandwidthMbps,
    long localNvmeGB,
    boolean flex,
    Double onDemandPricePerHour,
    DocAllocatable docAllocatable,
    Integer efaInterfaces,
    Integer neuronCoresPerDevice) {

  /** An entry of the data file, which has neither EFA interface counts nor Neuron core counts. */
  public AwsInstanceTypeInfo(
      String name,
      int vcpu,
      long memoryMiB,
      String arch,
      int gpuCount,
      String gpuName,
      long gpuMemoryMiB,
      String gpuManufacturer,
      String acceleratorName,
      int acceleratorCount,
      Integer ipv4PerENI,
      Integer defaultCardMaxENIs,
      Integer podENI,
      String family,
      String category,
      Integer generation,
      String size,
      String hypervisor,
      String cpuManufacturer,
      Integer cpuClockSpeedMHz,
      Long networkBandwidthMbps,
      Long ebsBandwidthMbps,
      long localNvmeGB,
      boolean flex,
      Double onDemandPricePerHour,
      DocAllocatable docAllocatable) {
    this(name, vcpu, memoryMiB, arch, gpuCount, gpuName, gpuMemoryMiB, gpuManufacturer, acceleratorName,
        acceleratorCount, ipv4PerENI, defaultCardMaxENIs, podENI, family, category, generation, size, hypervisor,
        cpuManufacturer, cpuClockSpeedMHz, networkBandwidthMbps, ebsBandwidthMbps, localNvmeGB, flex,
        onDemandPricePerHour, docAllocatable, null, null);
  }

  /** Whether the type has the ENI facts the max-pods formula needs. */
  public boolean hasEniData() {
    return defaultCardMaxENIs != null && ipv4PerENI != null;
  }

  /** Published allocatable; extended-resource counts are null when the type has none. */
  public record DocAllocatable(
      long cpuMillis,
      long memoryMiB,
      double ephemeralStorageGiB,
      long pods,
      Integer nvidiaGpu,
      Integer amdGpu,
      Integer awsNeuron,
      Integer awsNeuronCore,
      Integer efa,
      Integer podENI) {}
}
