package sh.karpenter.providers.aws.ami;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.util.ArrayList;
import java.util.List;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.Alias;
import sh.karpenter.core.wellknown.Labels;

/**
 * The public SSM parameters that name the EKS-optimized AMIs of an alias (upstream's per-family
 * {@code DescribeImageQuery}): for each, its path and the requirement sets (variants, without the
 * architecture, which comes from the image) of the image it names.
 */
public final class AliasParameters {
  private AliasParameters() {}

  /** One parameter: its path (without any test prefix) and the requirement sets of its image. */
  public record Parameter(String path, List<List<NodeSelectorRequirement>> requirementSets) {}

  /**
   * The parameters of {@code alias} for Kubernetes {@code kubernetesVersion} ({@code 1.31}), in a
   * fixed order.
   *
   * @throws UnsupportedAliasException for AL2 on Kubernetes 1.33 or later and Windows Server 2025
   *     before 1.35, with upstream's messages
   */
  public static List<Parameter> of(Alias alias, String kubernetesVersion) {
    String version = alias.version();
    boolean latest = alias.isLatest();
    List<Parameter> parameters = new ArrayList<>();
    switch (alias.family()) {
      case AMIFamily.AL2 -> {
        if (minor(kubernetesVersion) >= 33) {
          throw new UnsupportedAliasException("AL2 aliases are no longer supported on EKS 1.33+ "
              + "(see https://docs.aws.amazon.com/eks/latest/userguide/kubernetes-versions-standard.html#kubernetes-1-33)");
        }
        String base = "/aws/service/eks/optimized-ami/" + kubernetesVersion + "/";
        parameters.add(new Parameter(base + "amazon-linux-2/" + (latest ? "recommended" : "amazon-eks-node-" + kubernetesVersion + "-" + version)
            + "/image_id", variants(Variant.STANDARD)));
        parameters.add(new Parameter(base + "amazon-linux-2-arm64/"
            + (latest ? "recommended" : "amazon-eks-arm64-node-" + kubernetesVersion + "-" + version) + "/image_id", variants(Variant.STANDARD)));
        parameters.add(new Parameter(base + "amazon-linux-2-gpu/"
            + (latest ? "recommended" : "amazon-eks-gpu-node-" + kubernetesVersion + "-" + version) + "/image_id",
            variants(Variant.NEURON, Variant.NVIDIA)));
      }
      case AMIFamily.AL2023 -> {
        for (String arch : List.of("x86_64", "arm64")) {
          List<Variant> variants = arch.equals("x86_64") ? List.of(Variant.STANDARD, Variant.NVIDIA, Variant.NEURON) : List.of(Variant.STANDARD, Variant.NVIDIA);
          for (Variant variant : variants) {
            String name = latest ? "recommended"
                : "amazon-eks-node-al2023-" + arch + "-" + variant.pathName() + "-" + kubernetesVersion + "-" + version;
            parameters.add(new Parameter("/aws/service/eks/optimized-ami/" + kubernetesVersion + "/amazon-linux-2023/" + arch + "/"
                + variant.pathName() + "/" + name + "/image_id", variants(variant)));
          }
        }
      }
      case AMIFamily.BOTTLEROCKET -> {
        // Bottlerocket versions carry a "v" on GitHub but not in the SSM path; both are accepted.
        String trimmed = version.replaceFirst("^v+", "");
        String base = "/aws/service/bottlerocket/aws-k8s-" + kubernetesVersion;
        parameters.add(new Parameter(base + "/x86_64/" + trimmed + "/image_id", variants(Variant.STANDARD, Variant.NEURON)));
        parameters.add(new Parameter(base + "/arm64/" + trimmed + "/image_id", variants(Variant.STANDARD)));
        parameters.add(new Parameter(base + "-nvidia/x86_64/" + trimmed + "/image_id", variants(Variant.NVIDIA)));
        parameters.add(new Parameter(base + "-nvidia/arm64/" + trimmed + "/image_id", variants(Variant.NVIDIA)));
      }
      case AMIFamily.WINDOWS2019, AMIFamily.WINDOWS2022, AMIFamily.WINDOWS2025 -> {
        if (alias.family().equals(AMIFamily.WINDOWS2025) && minor(kubernetesVersion) >= 0 && minor(kubernetesVersion) < 35) {
          throw new UnsupportedAliasException(
              "Windows Server 2025 requires EKS version 1.35 or higher, current version: " + kubernetesVersion);
        }
        String year = alias.family().substring("Windows".length());
        String build = switch (alias.family()) {
          case AMIFamily.WINDOWS2019 -> AMIFamily.WINDOWS2019_BUILD;
          case AMIFamily.WINDOWS2022 -> AMIFamily.WINDOWS2022_BUILD;
          default -> AMIFamily.WINDOWS2025_BUILD;
        };
        parameters.add(new Parameter("/aws/service/ami-windows-latest/Windows_Server-" + year + "-English-Core-EKS_Optimized-"
            + kubernetesVersion + "/image_id",
            List.of(List.of(AmiRequirements.in(Labels.OS, "windows"), AmiRequirements.in(Labels.WINDOWS_BUILD, build)))));
      }
      default -> throw new IllegalArgumentException("AMI family " + alias.family() + " has no alias");
    }
    return parameters;
  }

  private static List<List<NodeSelectorRequirement>> variants(Variant... variants) {
    return java.util.Arrays.stream(variants).map(Variant::requirements).toList();
  }

  /** The minor version of {@code 1.31} (or {@code v1.31.2}); -1 when unreadable, which no version check trips on. */
  static int minor(String kubernetesVersion) {
    String[] parts = kubernetesVersion == null ? new String[0] : kubernetesVersion.split("\\.");
    if (parts.length < 2) {
      return -1;
    }
    try {
      return Integer.parseInt(parts[1].replaceAll("[^0-9].*$", ""));
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
