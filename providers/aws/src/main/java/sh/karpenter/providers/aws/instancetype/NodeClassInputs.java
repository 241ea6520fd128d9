package sh.karpenter.providers.aws.instancetype;

import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.BlockDeviceMapping;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassSpec;
import sh.karpenter.api.aws.v1.InstanceStorePolicy;
import sh.karpenter.api.aws.v1.ParsedKubeletConfig;
import sh.karpenter.api.aws.v1.ZoneInfo;
import sh.karpenter.core.catalog.AwsNodeClassSettings;
import sh.karpenter.core.resources.Quantity;

/**
 * What of an EC2NodeClass shapes its instance types, and the key they are cached under (upstream's
 * {@code cacheKey}: subnet zones, kubelet configuration, block device mappings, instance store
 * policy, AMI family).
 *
 * @param zones the zones of the class's resolved subnets, with their zone IDs
 * @param settings kubelet and root-volume settings for core's formulas
 * @param amiFamily the AMI family (a1.* types are not offered for AL2023)
 * @param raid0 whether {@code instanceStorePolicy} is RAID0 (ephemeral storage is the instance store)
 */
public record NodeClassInputs(List<ZoneInfo> zones, AwsNodeClassSettings settings, String amiFamily, boolean raid0) {

  public NodeClassInputs {
    zones = List.copyOf(zones);
  }

  /** The zones alone with default settings and AL2023, e.g. for tests and previews. */
  public static NodeClassInputs of(List<ZoneInfo> zones) {
    return new NodeClassInputs(zones, AwsNodeClassSettings.DEFAULT, AMIFamily.AL2023, false);
  }

  /** The zone names. */
  public Set<String> zoneNames() {
    Set<String> names = new LinkedHashSet<>();
    zones.forEach(z -> names.add(z.zone()));
    return names;
  }

  /** The cache key: zones and zone IDs as a set, then the settings. */
  Object cacheKey() {
    Set<List<String>> pairs = new LinkedHashSet<>();
    zones.forEach(z -> pairs.add(List.of(z.zone(), z.zoneId() == null ? "" : z.zoneId())));
    return List.of(Set.copyOf(pairs), settings, amiFamily, raid0);
  }

  /**
   * The inputs of a node class: its status's subnet zones, and from its spec the kubelet settings
   * (integer {@code maxPods}, {@code podsPerCore}, quantity-valued {@code kubeReserved} and {@code
   * systemReserved}, {@code evictionHard}; expressions are ignored, as upstream does with the
   * NodeClassCEL feature gate off), the ephemeral block device's volume size and the instance store
   * policy.
   *
   * @throws IllegalArgumentException naming the node class and field when a value cannot be read
   */
  public static NodeClassInputs from(EC2NodeClass nodeClass) {
    String name = nodeClass.getMetadata() == null ? "" : nodeClass.getMetadata().getName();
    EC2NodeClassSpec spec = nodeClass.getSpec();
    String family = nodeClass.amiFamily();
    try {
      Integer maxPods = null;
      Integer podsPerCore = null;
      Map<String, Long> kubeReserved = Map.of();
      Map<String, Long> systemReserved = Map.of();
      Map<String, String> evictionHard = Map.of();
      if (spec != null && spec.getKubelet() != null && !spec.getKubelet().isEmpty()) {
        ParsedKubeletConfig kubelet = spec.getKubelet().parse();
        maxPods = kubelet.maxPodsValue().orElse(null);
        podsPerCore = kubelet.podsPerCore();
        kubeReserved = AwsNodeClassSettings.parseQuantities("spec.kubelet.kubeReserved", quantitiesOnly(kubelet.kubeReserved()));
        systemReserved = AwsNodeClassSettings.parseQuantities("spec.kubelet.systemReserved", quantitiesOnly(kubelet.systemReserved()));
        evictionHard = kubelet.evictionHard();
      }
      Long ephemeral = spec == null ? null : ephemeralStorageBytes(spec.getBlockDeviceMappings(), family);
      boolean raid0 = spec != null && spec.getInstanceStorePolicy() == InstanceStorePolicy.RAID0;
      return new NodeClassInputs(
          nodeClass.zoneInfo(),
          new AwsNodeClassSettings(maxPods, podsPerCore, kubeReserved, systemReserved, evictionHard, ephemeral),
          family,
          raid0);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("EC2NodeClass " + name + ": " + e.getMessage(), e);
    }
  }

  /** Values that are quantities; expressions (NodeClassCEL) are left out. */
  private static Map<String, String> quantitiesOnly(Map<String, String> values) {
    Map<String, String> out = new LinkedHashMap<>();
    values.forEach((key, value) -> {
      try {
        Quantity.parseMilli(value);
        out.put(key, value);
      } catch (IllegalArgumentException e) {
        // an expression: not evaluated without the NodeClassCEL feature gate
      }
    });
    return out;
  }

  /**
   * Upstream's {@code ephemeralStorage} without RAID0: the root volume's size, else (Custom) the last
   * mapping's, else the family's ephemeral device's; null for the family default (20Gi).
   */
  static Long ephemeralStorageBytes(List<BlockDeviceMapping> mappings, String family) {
    if (mappings == null || mappings.isEmpty()) {
      return null;
    }
    for (BlockDeviceMapping mapping : mappings) {
      if (Boolean.TRUE.equals(mapping.getRootVolume()) && mapping.getEbs() != null && mapping.getEbs().getVolumeSize() != null) {
        return bytes(mapping.getEbs().getVolumeSize());
      }
    }
    if (AMIFamily.CUSTOM.equals(family)) {
      BlockDeviceMapping last = mappings.get(mappings.size() - 1);
      return last.getEbs() == null || last.getEbs().getVolumeSize() == null ? null : bytes(last.getEbs().getVolumeSize());
    }
    String device = ephemeralBlockDevice(family);
    for (BlockDeviceMapping mapping : mappings) {
      if (device.equals(mapping.getDeviceName()) && mapping.getEbs() != null && mapping.getEbs().getVolumeSize() != null) {
        return bytes(mapping.getEbs().getVolumeSize());
      }
    }
    return null;
  }

  /** Upstream's {@code EphemeralBlockDevice} per AMI family. */
  static String ephemeralBlockDevice(String family) {
    return switch (family) {
      case AMIFamily.BOTTLEROCKET -> "/dev/xvdb";
      case AMIFamily.WINDOWS2019, AMIFamily.WINDOWS2022, AMIFamily.WINDOWS2025 -> "/dev/sda1";
      default -> "/dev/xvda";
    };
  }

  private static long bytes(io.fabric8.kubernetes.api.model.Quantity quantity) {
    return Math.ceilDiv(Quantity.parseMilli(quantity.toString()), 1000);
  }
}
