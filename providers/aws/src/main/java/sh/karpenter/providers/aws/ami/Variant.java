package sh.karpenter.providers.aws.ami;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.util.List;
import sh.karpenter.core.wellknown.AwsLabels;

/**
 * The accelerator variants of the EKS-optimized AMIs (upstream's {@code Variant}) and the instance
 * types each may run on.
 */
public enum Variant {
  /** No GPU and no accelerator. */
  STANDARD("standard"),
  /** Instance types with NVIDIA GPUs. */
  NVIDIA("nvidia"),
  /** Instance types with AWS Neuron accelerators (Inferentia, Trainium). */
  NEURON("neuron");

  private final String pathName;

  Variant(String pathName) {
    this.pathName = pathName;
  }

  /** How SSM parameter paths name the variant. */
  public String pathName() {
    return pathName;
  }

  /** The requirements an instance type must meet to run this variant (upstream's {@code Variant.Requirements}). */
  public List<NodeSelectorRequirement> requirements() {
    return switch (this) {
      case STANDARD -> List.of(
          AmiRequirements.doesNotExist(AwsLabels.INSTANCE_ACCELERATOR_COUNT),
          AmiRequirements.doesNotExist(AwsLabels.INSTANCE_GPU_COUNT));
      case NVIDIA -> List.of(AmiRequirements.exists(AwsLabels.INSTANCE_GPU_COUNT));
      case NEURON -> List.of(AmiRequirements.exists(AwsLabels.INSTANCE_ACCELERATOR_COUNT));
    };
  }
}
