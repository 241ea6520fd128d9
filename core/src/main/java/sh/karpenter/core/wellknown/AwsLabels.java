package sh.karpenter.core.wellknown;

import java.util.Set;

/**
 * The label keys and extended resource names of the AWS provider (upstream
 * karpenter-provider-aws pkg/apis/v1/labels.go), the one place for them: the default catalogue
 * sets them on instance types (docs/behaviour/cloudprovider.md#aws-labels-and-requirements) and the
 * EC2NodeClass API in the api module refers to them. Names the AWS API alone uses (annotations,
 * EC2 tags, the EC2NodeClass finalizer and conditions) live in {@code sh.karpenter.api.aws.v1}.
 */
public final class AwsLabels {
  private AwsLabels() {}

  /** The AWS provider's API group and label domain. */
  public static final String GROUP = "karpenter.k8s.aws";

  public static final String INSTANCE_HYPERVISOR = "karpenter.k8s.aws/instance-hypervisor";
  public static final String INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED =
      "karpenter.k8s.aws/instance-encryption-in-transit-supported";
  public static final String INSTANCE_CATEGORY = "karpenter.k8s.aws/instance-category";
  public static final String INSTANCE_CAPABILITY_FLEX = "karpenter.k8s.aws/instance-capability-flex";
  public static final String INSTANCE_FAMILY = "karpenter.k8s.aws/instance-family";
  public static final String INSTANCE_GENERATION = "karpenter.k8s.aws/instance-generation";
  public static final String INSTANCE_LOCAL_NVME = "karpenter.k8s.aws/instance-local-nvme";
  public static final String INSTANCE_SIZE = "karpenter.k8s.aws/instance-size";
  public static final String INSTANCE_CPU = "karpenter.k8s.aws/instance-cpu";
  public static final String INSTANCE_CPU_MANUFACTURER = "karpenter.k8s.aws/instance-cpu-manufacturer";
  public static final String INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ =
      "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz";
  public static final String INSTANCE_MEMORY = "karpenter.k8s.aws/instance-memory";
  public static final String INSTANCE_EBS_BANDWIDTH = "karpenter.k8s.aws/instance-ebs-bandwidth";
  public static final String INSTANCE_NETWORK_BANDWIDTH = "karpenter.k8s.aws/instance-network-bandwidth";
  public static final String INSTANCE_GPU_NAME = "karpenter.k8s.aws/instance-gpu-name";
  public static final String INSTANCE_GPU_MANUFACTURER = "karpenter.k8s.aws/instance-gpu-manufacturer";
  public static final String INSTANCE_GPU_COUNT = "karpenter.k8s.aws/instance-gpu-count";
  public static final String INSTANCE_GPU_MEMORY = "karpenter.k8s.aws/instance-gpu-memory";
  public static final String INSTANCE_ACCELERATOR_NAME = "karpenter.k8s.aws/instance-accelerator-name";
  public static final String INSTANCE_ACCELERATOR_MANUFACTURER =
      "karpenter.k8s.aws/instance-accelerator-manufacturer";
  public static final String INSTANCE_ACCELERATOR_COUNT = "karpenter.k8s.aws/instance-accelerator-count";
  /** {@code default} or {@code dedicated} ({@link #INSTANCE_TENANCY_VALUES}). */
  public static final String INSTANCE_TENANCY = "karpenter.k8s.aws/instance-tenancy";
  public static final Set<String> INSTANCE_TENANCY_VALUES = Set.of("default", "dedicated");

  /** The ID of the capacity reservation a reserved offering launches into. */
  public static final String CAPACITY_RESERVATION_ID = "karpenter.k8s.aws/capacity-reservation-id";
  /** {@code default} or {@code capacity-block}. */
  public static final String CAPACITY_RESERVATION_TYPE = "karpenter.k8s.aws/capacity-reservation-type";
  public static final String CAPACITY_RESERVATION_INTERRUPTIBLE = "karpenter.k8s.aws/capacity-reservation-interruptible";

  public static final String PLACEMENT_GROUP_ID = "karpenter.k8s.aws/placement-group-id";
  public static final String PLACEMENT_GROUP_PARTITION = "karpenter.k8s.aws/placement-group-partition";

  /** The EC2NodeClass a node was launched from (also an EC2 tag key). */
  public static final String EC2_NODE_CLASS = "karpenter.k8s.aws/ec2nodeclass";

  /** The availability-zone ID of a node ({@code use1-az1}). */
  public static final String TOPOLOGY_ZONE_ID = "topology.k8s.aws/zone-id";

  /**
   * The labels the AWS provider adds to the well-known set (upstream's {@code init} in labels.go):
   * a pod may select them and a new NodeClaim may leave them undefined until launch. With it,
   * upstream also counts {@link Labels#WINDOWS_BUILD}, which {@link Labels#WELL_KNOWN} already has.
   */
  public static final Set<String> WELL_KNOWN =
      Set.of(
          CAPACITY_RESERVATION_ID,
          CAPACITY_RESERVATION_TYPE,
          CAPACITY_RESERVATION_INTERRUPTIBLE,
          INSTANCE_HYPERVISOR,
          INSTANCE_ENCRYPTION_IN_TRANSIT_SUPPORTED,
          INSTANCE_CATEGORY,
          INSTANCE_CAPABILITY_FLEX,
          INSTANCE_FAMILY,
          INSTANCE_GENERATION,
          INSTANCE_SIZE,
          INSTANCE_LOCAL_NVME,
          INSTANCE_CPU,
          INSTANCE_CPU_MANUFACTURER,
          INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ,
          INSTANCE_MEMORY,
          INSTANCE_EBS_BANDWIDTH,
          INSTANCE_NETWORK_BANDWIDTH,
          INSTANCE_GPU_NAME,
          INSTANCE_GPU_MANUFACTURER,
          INSTANCE_GPU_COUNT,
          INSTANCE_GPU_MEMORY,
          INSTANCE_ACCELERATOR_NAME,
          INSTANCE_ACCELERATOR_MANUFACTURER,
          INSTANCE_ACCELERATOR_COUNT,
          TOPOLOGY_ZONE_ID,
          INSTANCE_TENANCY,
          PLACEMENT_GROUP_ID,
          PLACEMENT_GROUP_PARTITION);

  /**
   * Label domains the AWS provider restricts in NodePool labels and requirements, besides its
   * well-known labels (upstream adds them to core's restricted domains).
   */
  public static final Set<String> RESTRICTED_DOMAINS = Set.of(GROUP);

  // Extended resources of AWS instance types.
  public static final String RESOURCE_POD_ENI = "vpc.amazonaws.com/pod-eni";
  public static final String RESOURCE_PRIVATE_IPV4_ADDRESS = "vpc.amazonaws.com/PrivateIPv4Address";
  public static final String RESOURCE_EFA = "vpc.amazonaws.com/efa";
  public static final String RESOURCE_NVIDIA_GPU = "nvidia.com/gpu";
  public static final String RESOURCE_AMD_GPU = "amd.com/gpu";
  public static final String RESOURCE_HABANA_GAUDI = "habana.ai/gaudi";
  public static final String RESOURCE_NEURON = "aws.amazon.com/neuron";
  public static final String RESOURCE_NEURON_CORE = "aws.amazon.com/neuroncore";
}
