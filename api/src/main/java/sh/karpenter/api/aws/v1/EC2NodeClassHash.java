package sh.karpenter.api.aws.v1;

import io.fabric8.kubernetes.api.model.Quantity;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import sh.karpenter.api.DriftHash;

/**
 * The EC2NodeClass static drift hash (upstream {@code EC2NodeClass.Hash(caBundle)},
 * docs/behaviour/api.md#ec2nodeclass-drift-hash): a digest of the fields whose change makes existing
 * NodeClaims statically drifted. NodeClaims and the class carry it in
 * {@link AwsAnnotations#EC2_NODE_CLASS_HASH} next to {@link #VERSION} in
 * {@link AwsAnnotations#EC2_NODE_CLASS_HASH_VERSION}.
 *
 * <p>Upstream hashes {@code [spec, resolved AMI family, CA bundle, kubelet JSON]} with hashstructure v2
 * (SlicesAsSets, IgnoreZeroValue, ZeroNil). Go's values cannot be reproduced, so this value differs
 * from upstream's; what counts and how is the same:
 *
 * <ul>
 *   <li>counted: {@code placementGroupSelector}, {@code associatePublicIPAddress}, {@code userData},
 *       {@code role}, {@code instanceProfile}, {@code tags} (order-free), {@code blockDeviceMappings}
 *       and {@code networkInterfaces} (each a set: order and repeats do not matter),
 *       {@code instanceStorePolicy}, {@code detailedMonitoring}, {@code metadataOptions},
 *       {@code enclaveOptions}, {@code connectionTracking}, {@code context}, {@code cpuOptions}; the
 *       resolved AMI family ({@link EC2NodeClass#amiFamily()}, so setting {@code amiFamily: AL2023}
 *       next to an {@code al2023@...} alias changes nothing); the cluster CA bundle; the kubelet
 *       configuration as canonical JSON (every field, by value);
 *   <li>ignored (tagged {@code hash:"ignore"} upstream, they drift dynamically or not at all): the
 *       subnet, security group, capacity reservation and AMI selector terms, {@code amiFamily} as
 *       written, {@code ipPrefixCount}, and the status;
 *   <li>zero values: a field that is a pointer upstream counts when set, even to {@code false},
 *       {@code 0} or {@code ""} ({@code detailedMonitoring: false} differs from absent, and
 *       {@code enclaveOptions: {enabled: false}} from no {@code enclaveOptions}); a plain value upstream
 *       ({@code role}, {@code rootVolume}, {@code enclaveOptions.enabled}, the network interface
 *       indexes and type) counts only when not zero. {@code volumeSize} counts by value within its
 *       notation ({@code 2G} equals {@code 2000M}; {@code 2Gi} and {@code 2147483648} differ), as
 *       upstream hashes its canonical string.
 * </ul>
 *
 * <p>Two deliberate differences from hashstructure's behaviour: an empty {@code tags} map or empty list
 * hashes like an absent one (as {@code NodePoolHash} treats maps), and a repeated set element counts
 * once (hashstructure XORs elements, so a pair of equal elements cancels out).
 */
public final class EC2NodeClassHash {
  /** The hash version this implementation writes (upstream {@code EC2NodeClassHashVersion}). */
  public static final String VERSION = "v6";

  private static final Set<String> BINARY_SUFFIXES = Set.of("Ki", "Mi", "Gi", "Ti", "Pi", "Ei");

  private EC2NodeClassHash() {}

  /**
   * The drift hash of the class.
   *
   * @param caBundle the cluster's CA bundle, or null (hashed as empty, as upstream)
   */
  public static String of(EC2NodeClass nodeClass, String caBundle) {
    DriftHash hash = new DriftHash();
    EC2NodeClassSpec spec = nodeClass.getSpec() == null ? new EC2NodeClassSpec() : nodeClass.getSpec();
    PlacementGroupSelector placementGroup = spec.getPlacementGroupSelector();
    if (placementGroup != null) {
      hash.field("spec.placementGroupSelector", fields(
          "name", placementGroup.getName(),
          "id", placementGroup.getId()));
    }
    optional(hash, "spec.associatePublicIPAddress", spec.getAssociatePublicIPAddress());
    optional(hash, "spec.userData", spec.getUserData());
    if (spec.getRole() != null && !spec.getRole().isEmpty()) {
      hash.field("spec.role", spec.getRole());
    }
    optional(hash, "spec.instanceProfile", spec.getInstanceProfile());
    if (spec.getTags() != null && !spec.getTags().isEmpty()) {
      List<String> parts = new ArrayList<>();
      new TreeMap<>(spec.getTags()).forEach((key, value) -> {
        parts.add(key);
        parts.add(value == null ? "" : value);
      });
      hash.field("spec.tags", parts);
    }
    set(hash, "spec.blockDeviceMappings", spec.getBlockDeviceMappings(), EC2NodeClassHash::blockDeviceMapping);
    optional(hash, "spec.instanceStorePolicy", spec.getInstanceStorePolicy());
    set(hash, "spec.networkInterfaces", spec.getNetworkInterfaces(), EC2NodeClassHash::networkInterface);
    optional(hash, "spec.detailedMonitoring", spec.getDetailedMonitoring());
    MetadataOptions metadata = spec.getMetadataOptions();
    if (metadata != null) {
      hash.field("spec.metadataOptions", fields(
          "httpEndpoint", metadata.getHttpEndpoint(),
          "httpProtocolIPv6", metadata.getHttpProtocolIPv6(),
          "httpPutResponseHopLimit", metadata.getHttpPutResponseHopLimit(),
          "httpTokens", metadata.getHttpTokens()));
    }
    EnclaveOptions enclave = spec.getEnclaveOptions();
    if (enclave != null) {
      hash.field("spec.enclaveOptions", fields("enabled", Boolean.TRUE.equals(enclave.getEnabled()) ? true : null));
    }
    ConnectionTracking tracking = spec.getConnectionTracking();
    if (tracking != null) {
      hash.field("spec.connectionTracking", fields(
          "tcpEstablishedTimeout", tracking.getTcpEstablishedTimeout(),
          "udpStreamTimeout", tracking.getUdpStreamTimeout(),
          "udpTimeout", tracking.getUdpTimeout()));
    }
    optional(hash, "spec.context", spec.getContext());
    CPUOptions cpu = spec.getCpuOptions();
    if (cpu != null) {
      hash.field("spec.cpuOptions", fields("nestedVirtualization", cpu.getNestedVirtualization()));
    }
    hash.field("amiFamily", nodeClass.amiFamily());
    hash.field("caBundle", caBundle == null ? "" : caBundle);
    hash.field("kubelet", spec.getKubelet() == null ? "null" : spec.getKubelet().canonicalJson());
    return hash.digest();
  }

  private static String blockDeviceMapping(BlockDeviceMapping mapping) {
    List<String> parts = new ArrayList<>(fields("deviceName", mapping.getDeviceName()));
    BlockDevice ebs = mapping.getEbs();
    if (ebs != null) {
      parts.add("ebs");
      parts.add(DriftHash.tuple(fields(
          "deleteOnTermination", ebs.getDeleteOnTermination(),
          "encrypted", ebs.getEncrypted(),
          "iops", ebs.getIops(),
          "kmsKeyID", ebs.getKmsKeyID(),
          "snapshotID", ebs.getSnapshotID(),
          "throughput", ebs.getThroughput(),
          "volumeInitializationRate", ebs.getVolumeInitializationRate(),
          "volumeSize", ebs.getVolumeSize() == null ? null : canonical(ebs.getVolumeSize()),
          "volumeType", ebs.getVolumeType())));
    }
    if (Boolean.TRUE.equals(mapping.getRootVolume())) {
      parts.add("rootVolume");
      parts.add("true");
    }
    return DriftHash.tuple(parts);
  }

  private static String networkInterface(NetworkInterface networkInterface) {
    return DriftHash.tuple(fields(
        "networkCardIndex", nonZero(networkInterface.getNetworkCardIndex()),
        "deviceIndex", nonZero(networkInterface.getDeviceIndex()),
        "interfaceType", networkInterface.getInterfaceType() == null || networkInterface.getInterfaceType().isEmpty()
            ? null : networkInterface.getInterfaceType()));
  }

  /**
   * A quantity as its notation (binary suffix, decimal suffix or exponent) and exact value, which is
   * what Kubernetes' canonical quantity string encodes.
   */
  static String canonical(Quantity quantity) {
    String format = quantity.getFormat() == null ? "" : quantity.getFormat();
    String notation = BINARY_SUFFIXES.contains(format) ? "binary" : format.startsWith("e") || format.startsWith("E") ? "exponent" : "decimal";
    try {
      BigDecimal value = Quantity.getAmountInBytes(quantity);
      return notation + ":" + (value.signum() == 0 ? "0" : value.stripTrailingZeros().toPlainString());
    } catch (RuntimeException e) {
      return "text:" + quantity;
    }
  }

  private static Integer nonZero(Integer value) {
    return value == null || value == 0 ? null : value;
  }

  /** Writes a field that is a pointer upstream: counted whenever it is set. */
  private static void optional(DriftHash hash, String name, Object value) {
    if (value != null) {
      hash.field(name, value.toString());
    }
  }

  /** The set fields of a struct as name/value parts, in the given order (alternating names and values). */
  private static List<String> fields(Object... namesAndValues) {
    List<String> parts = new ArrayList<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      Object value = namesAndValues[i + 1];
      if (value != null) {
        parts.add((String) namesAndValues[i]);
        parts.add(value.toString());
      }
    }
    return parts;
  }

  /** Writes a list hashed as a set: its elements' encodings, sorted and de-duplicated; empty counts as absent. */
  private static <T> void set(DriftHash hash, String name, List<T> elements, java.util.function.Function<T, String> encode) {
    if (elements == null || elements.isEmpty()) {
      return;
    }
    TreeSet<String> encoded = new TreeSet<>();
    for (T element : elements) {
      encoded.add(element == null ? "" : encode.apply(element));
    }
    hash.field(name, List.copyOf(encoded));
  }
}
