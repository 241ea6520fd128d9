package sh.karpenter.providers.aws.ami;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;
import sh.karpenter.core.wellknown.Labels;

/** Building, ordering and comparing the requirements of an AMI. */
public final class AmiRequirements {
  /** EC2 architecture names to {@code kubernetes.io/arch} values (upstream's {@code AWSToKubeArchitectures}). */
  public static final Map<String, String> ARCHITECTURES = Map.of("x86_64", "amd64", "arm64", "arm64");

  private AmiRequirements() {}

  static NodeSelectorRequirement in(String key, String... values) {
    return new NodeSelectorRequirement(key, "In", List.of(values));
  }

  static NodeSelectorRequirement exists(String key) {
    return new NodeSelectorRequirement(key, "Exists", List.of());
  }

  static NodeSelectorRequirement doesNotExist(String key) {
    return new NodeSelectorRequirement(key, "DoesNotExist", List.of());
  }

  /** The Kubernetes architecture of an EC2 image architecture ({@code x86_64} → {@code amd64}); empty for others (i386, macOS). */
  public static Optional<String> architecture(String ec2Architecture) {
    return Optional.ofNullable(ec2Architecture == null ? null : ARCHITECTURES.get(ec2Architecture));
  }

  /**
   * {@code known} plus {@code kubernetes.io/arch In [arch]}, in the status's order: shorter keys first,
   * then by key (upstream's AMI reconciler sort).
   */
  public static List<NodeSelectorRequirement> withArchitecture(List<NodeSelectorRequirement> known, String arch) {
    List<NodeSelectorRequirement> all = new ArrayList<>();
    known.stream().filter(r -> !Labels.ARCH.equals(r.getKey())).forEach(all::add);
    all.add(in(Labels.ARCH, arch));
    return sorted(all);
  }

  public static List<NodeSelectorRequirement> sorted(List<NodeSelectorRequirement> requirements) {
    return requirements.stream()
        .sorted(Comparator.comparingInt((NodeSelectorRequirement r) -> r.getKey().length()).thenComparing(NodeSelectorRequirement::getKey))
        .toList();
  }

  /** A key equal for equal requirement sets, whatever their order (upstream hashes them with SlicesAsSets). */
  static String setKey(List<NodeSelectorRequirement> requirements) {
    return requirements.stream()
        .map(r -> r.getKey() + " " + r.getOperator() + " " + r.getValues().stream().sorted().collect(Collectors.joining(",")))
        .sorted()
        .collect(Collectors.joining(";"));
  }
}
