package sh.karpenter.core.catalog;

/**
 * AWS provider label keys and resource names the default catalogue sets beyond the shared ones in
 * {@link sh.karpenter.core.wellknown.Labels} (docs/behaviour/cloudprovider.md#aws-capacity and
 * docs/behaviour/cloudprovider.md#aws-labels-and-requirements).
 */
public final class AwsLabels {
  private AwsLabels() {}

  public static final String INSTANCE_CAPABILITY_FLEX = "karpenter.k8s.aws/instance-capability-flex";
  public static final String INSTANCE_CPU_SUSTAINED_CLOCK_SPEED_MHZ =
      "karpenter.k8s.aws/instance-cpu-sustained-clock-speed-mhz";
  public static final String INSTANCE_ACCELERATOR_NAME = "karpenter.k8s.aws/instance-accelerator-name";
  public static final String INSTANCE_ACCELERATOR_MANUFACTURER =
      "karpenter.k8s.aws/instance-accelerator-manufacturer";
  public static final String INSTANCE_ACCELERATOR_COUNT = "karpenter.k8s.aws/instance-accelerator-count";
  public static final String INSTANCE_TENANCY = "karpenter.k8s.aws/instance-tenancy";
  public static final String CAPACITY_RESERVATION_TYPE = "karpenter.k8s.aws/capacity-reservation-type";

  public static final String RESOURCE_POD_ENI = "vpc.amazonaws.com/pod-eni";
  public static final String RESOURCE_EFA = "vpc.amazonaws.com/efa";
  public static final String RESOURCE_NVIDIA_GPU = "nvidia.com/gpu";
  public static final String RESOURCE_AMD_GPU = "amd.com/gpu";
  public static final String RESOURCE_HABANA_GAUDI = "habana.ai/gaudi";
  public static final String RESOURCE_NEURON = "aws.amazon.com/neuron";
  public static final String RESOURCE_NEURON_CORE = "aws.amazon.com/neuroncore";
}
