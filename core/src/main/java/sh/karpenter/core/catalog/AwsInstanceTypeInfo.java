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
 *     oracle, and the only source of the EFA interface count
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
    DocAllocatable docAllocatable) {

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
