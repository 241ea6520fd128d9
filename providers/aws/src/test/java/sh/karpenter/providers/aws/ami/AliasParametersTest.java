package sh.karpenter.providers.aws.ami;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import sh.karpenter.api.aws.v1.Alias;

class AliasParametersTest {

  @Test
  void al2023LatestReadsTheRecommendedParameterOfEveryArchitectureAndVariant() {
    assertThat(paths("al2023@latest", "1.31")).containsExactly(
        "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id",
        "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/nvidia/recommended/image_id",
        "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/neuron/recommended/image_id",
        "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/standard/recommended/image_id",
        "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/arm64/nvidia/recommended/image_id");
  }

  @Test
  void al2023PinnedNamesTheRelease() {
    assertThat(paths("al2023@v20240807", "1.30")).first().isEqualTo(
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2023/x86_64/standard/amazon-eks-node-al2023-x86_64-standard-1.30-v20240807/image_id");
  }

  @Test
  void al2HasAStandardAnArmAndAGpuParameter() {
    assertThat(paths("al2@latest", "1.30")).containsExactly(
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2/recommended/image_id",
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/recommended/image_id",
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2-gpu/recommended/image_id");
    assertThat(paths("al2@v20240807", "1.30")).containsExactly(
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2/amazon-eks-node-1.30-v20240807/image_id",
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2-arm64/amazon-eks-arm64-node-1.30-v20240807/image_id",
        "/aws/service/eks/optimized-ami/1.30/amazon-linux-2-gpu/amazon-eks-gpu-node-1.30-v20240807/image_id");
    // The GPU image serves both accelerated variants.
    assertThat(AliasParameters.of(Alias.parse("al2@latest"), "1.30").get(2).requirementSets())
        .containsExactly(Variant.NEURON.requirements(), Variant.NVIDIA.requirements());
  }

  @Test
  void bottlerocketDropsTheVOfItsVersion() {
    assertThat(paths("bottlerocket@v1.20.0", "1.31")).containsExactly(
        "/aws/service/bottlerocket/aws-k8s-1.31/x86_64/1.20.0/image_id",
        "/aws/service/bottlerocket/aws-k8s-1.31/arm64/1.20.0/image_id",
        "/aws/service/bottlerocket/aws-k8s-1.31-nvidia/x86_64/1.20.0/image_id",
        "/aws/service/bottlerocket/aws-k8s-1.31-nvidia/arm64/1.20.0/image_id");
    assertThat(paths("bottlerocket@latest", "1.31")).first().isEqualTo("/aws/service/bottlerocket/aws-k8s-1.31/x86_64/latest/image_id");
  }

  @Test
  void windowsNamesTheCoreEksOptimizedImageAndRequiresItsBuild() {
    List<AliasParameters.Parameter> parameters = AliasParameters.of(Alias.parse("windows2022@latest"), "1.31");
    assertThat(parameters).singleElement().satisfies(parameter -> {
      assertThat(parameter.path()).isEqualTo("/aws/service/ami-windows-latest/Windows_Server-2022-English-Core-EKS_Optimized-1.31/image_id");
      assertThat(parameter.requirementSets()).containsExactly(List.of(
          new NodeSelectorRequirement("kubernetes.io/os", "In", List.of("windows")),
          new NodeSelectorRequirement("node.kubernetes.io/windows-build", "In", List.of("10.0.20348"))));
    });
  }

  @ParameterizedTest
  @CsvSource({
      "al2@latest, 1.33, AL2 aliases are no longer supported on EKS 1.33+",
      "al2@v20240807, 1.34, AL2 aliases are no longer supported on EKS 1.33+",
      "windows2025@latest, 1.34, 'Windows Server 2025 requires EKS version 1.35 or higher, current version: 1.34'"})
  void aliasesTheClusterVersionDoesNotSupport(String alias, String version, String message) {
    assertThatThrownBy(() -> AliasParameters.of(Alias.parse(alias), version))
        .isInstanceOf(UnsupportedAliasException.class)
        .hasMessageStartingWith(message);
  }

  @Test
  void supportedAtTheBoundary() {
    assertThat(paths("al2@latest", "1.32")).hasSize(3);
    assertThat(paths("windows2025@latest", "1.35")).hasSize(1);
  }

  private static List<String> paths(String alias, String version) {
    return AliasParameters.of(Alias.parse(alias), version).stream().map(AliasParameters.Parameter::path).toList();
  }
}
