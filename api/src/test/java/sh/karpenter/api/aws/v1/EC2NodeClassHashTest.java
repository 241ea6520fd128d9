package sh.karpenter.api.aws.v1;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Upstream's ec2nodeclass_hash_test.go as "changes / does not change the hash" cases (Go's hash values
 * cannot be reproduced), plus the inclusion rules of {@link EC2NodeClassHash}.
 */
class EC2NodeClassHashTest {
  private static final String CA_BUNDLE = "test-ca-bundle";

  /** Upstream's base node class. */
  private static EC2NodeClass nodeClass() {
    EC2NodeClass nodeClass = new EC2NodeClass();
    nodeClass.setMetadata(new ObjectMetaBuilder().withName("default").build());
    EC2NodeClassSpec spec = new EC2NodeClassSpec();
    spec.setRole("role-1");
    spec.setTags(new LinkedHashMap<>(Map.of("keyTag-1", "valueTag-1", "keyTag-2", "valueTag-2")));
    spec.setContext("fake-context");
    spec.setDetailedMonitoring(false);
    spec.setAssociatePublicIPAddress(false);
    MetadataOptions metadata = new MetadataOptions();
    metadata.setHttpEndpoint("disabled");
    metadata.setHttpProtocolIPv6("disabled");
    metadata.setHttpPutResponseHopLimit(1L);
    metadata.setHttpTokens("optional");
    spec.setMetadataOptions(metadata);
    BlockDevice ebs = new BlockDevice();
    ebs.setDeleteOnTermination(false);
    ebs.setEncrypted(false);
    ebs.setIops(0L);
    ebs.setKmsKeyID("fakeKMSKeyID");
    ebs.setSnapshotID("fakeSnapshot");
    ebs.setThroughput(0L);
    ebs.setVolumeSize(new Quantity("2G"));
    ebs.setVolumeType("standard");
    BlockDeviceMapping first = new BlockDeviceMapping();
    first.setDeviceName("map-device-1");
    first.setRootVolume(false);
    first.setEbs(ebs);
    BlockDeviceMapping second = new BlockDeviceMapping();
    second.setDeviceName("map-device-2");
    spec.setBlockDeviceMappings(new ArrayList<>(List.of(first, second)));
    spec.setUserData("userdata-test-1");
    spec.setAmiSelectorTerms(new ArrayList<>(List.of(AMISelectorTerm.ofAlias("al2023@latest"))));
    nodeClass.setSpec(spec);
    return nodeClass;
  }

  private static String hash(Consumer<EC2NodeClassSpec> change) {
    EC2NodeClass nodeClass = nodeClass();
    change.accept(nodeClass.getSpec());
    return EC2NodeClassHash.of(nodeClass, CA_BUNDLE);
  }

  private static final String BASE = EC2NodeClassHash.of(nodeClass(), CA_BUNDLE);

  private static Arguments change(String name, Consumer<EC2NodeClassSpec> change) {
    return Arguments.of(name, change);
  }

  private static BlockDevice ebs(EC2NodeClassSpec spec) {
    return spec.getBlockDeviceMappings().getFirst().getEbs();
  }

  static Stream<Arguments> staticFieldChanges() {
    return Stream.of(
        change("UserData", s -> s.setUserData("userdata-test-2")),
        change("Tags", s -> s.setTags(Map.of("keyTag-test-3", "valueTag-test-3"))),
        change("Context", s -> s.setContext("context-2")),
        change("DetailedMonitoring", s -> s.setDetailedMonitoring(true)),
        change("InstanceStorePolicy", s -> s.setInstanceStorePolicy(InstanceStorePolicy.RAID0)),
        change("AssociatePublicIPAddress", s -> s.setAssociatePublicIPAddress(true)),
        change("MetadataOptions HTTPEndpoint", s -> s.getMetadataOptions().setHttpEndpoint("enabled")),
        change("MetadataOptions HTTPProtocolIPv6", s -> s.getMetadataOptions().setHttpProtocolIPv6("enabled")),
        change("MetadataOptions HTTPPutResponseHopLimit", s -> s.getMetadataOptions().setHttpPutResponseHopLimit(10L)),
        change("MetadataOptions HTTPTokens", s -> s.getMetadataOptions().setHttpTokens("required")),
        change("BlockDeviceMapping DeviceName", s -> s.getBlockDeviceMappings().getFirst().setDeviceName("map-device-test-3")),
        change("BlockDeviceMapping RootVolume", s -> s.getBlockDeviceMappings().getFirst().setRootVolume(true)),
        change("BlockDeviceMapping DeleteOnTermination", s -> ebs(s).setDeleteOnTermination(true)),
        change("BlockDeviceMapping Encrypted", s -> ebs(s).setEncrypted(true)),
        change("BlockDeviceMapping IOPS", s -> ebs(s).setIops(10L)),
        change("BlockDeviceMapping KMSKeyID", s -> ebs(s).setKmsKeyID("test")),
        change("BlockDeviceMapping SnapshotID", s -> ebs(s).setSnapshotID("test")),
        change("BlockDeviceMapping Throughput", s -> ebs(s).setThroughput(10L)),
        change("BlockDeviceMapping VolumeType", s -> ebs(s).setVolumeType("io1")),
        change("BlockDeviceMapping volumeSize", s -> ebs(s).setVolumeSize(new Quantity("10G"))),
        change("EnclaveOptions Enabled", s -> s.setEnclaveOptions(enclave(true))),
        change("ConnectionTracking TCPEstablishedTimeout", s -> s.setConnectionTracking(tracking(300, null, null))),
        change("ConnectionTracking UDPStreamTimeout", s -> s.setConnectionTracking(tracking(null, 120, null))),
        change("ConnectionTracking UDPTimeout", s -> s.setConnectionTracking(tracking(null, null, 45))),
        change("CPUOptions NestedVirtualization", s -> s.setCpuOptions(nestedVirtualization("enabled"))),
        // Beyond upstream's table: the other counted fields.
        change("placementGroupSelector", s -> s.setPlacementGroupSelector(placementGroup("analytics"))),
        change("networkInterfaces", s -> s.setNetworkInterfaces(List.of(new NetworkInterface(0, 0, NetworkInterface.TYPE_INTERFACE)))),
        change("a second network interface", s -> s.setNetworkInterfaces(List.of(
            new NetworkInterface(0, 0, NetworkInterface.TYPE_INTERFACE), new NetworkInterface(1, 0, NetworkInterface.TYPE_EFA_ONLY)))),
        change("volumeSize notation (2Gi is not 2G)", s -> ebs(s).setVolumeSize(new Quantity("2Gi"))),
        change("resolved AMI family", s -> s.setAmiSelectorTerms(List.of(AMISelectorTerm.ofAlias("bottlerocket@latest")))),
        change("amiFamily Custom next to the alias", s -> s.setAmiFamily(AMIFamily.CUSTOM)),
        change("kubelet set", s -> s.setKubelet(KubeletConfiguration.of(Map.of("maxPods", 110)))),
        change("a kubelet field Karpenter does not read", s -> s.setKubelet(KubeletConfiguration.of(Map.of("serializeImagePulls", false)))));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("staticFieldChanges")
  void shouldChangeHashWhenStaticFieldsAreUpdated(String name, Consumer<EC2NodeClassSpec> change) {
    assertThat(hash(change)).isNotEqualTo(BASE);
  }

  static Stream<Arguments> ignoredChanges() {
    return Stream.of(
        change("Modified AMISelector", s -> s.setAmiSelectorTerms(List.of(AMISelectorTerm.ofAlias("al2023@v20240625")))),
        change("Modified SubnetSelector", s -> s.setSubnetSelectorTerms(List.of(new SubnetSelectorTerm(Map.of("subnet-test-key", "subnet-test-value"), null)))),
        change("Modified SecurityGroupSelector", s -> {
          SecurityGroupSelectorTerm term = new SecurityGroupSelectorTerm();
          term.setTags(Map.of("security-group-test-key", "security-group-test-value"));
          s.setSecurityGroupSelectorTerms(List.of(term));
        }),
        change("Modified CapacityReservationSelector", s -> {
          CapacityReservationSelectorTerm term = new CapacityReservationSelectorTerm();
          term.setTags(Map.of("cr-test-key", "cr-test-value"));
          s.setCapacityReservationSelectorTerms(List.of(term));
        }),
        change("tags re-ordered", s -> {
          Map<String, String> tags = new LinkedHashMap<>();
          tags.put("keyTag-2", "valueTag-2");
          tags.put("keyTag-1", "valueTag-1");
          s.setTags(tags);
        }),
        change("blockDeviceMappings re-ordered", s -> s.setBlockDeviceMappings(List.of(s.getBlockDeviceMappings().get(1), s.getBlockDeviceMappings().get(0)))),
        change("a blockDeviceMapping repeated", s -> s.getBlockDeviceMappings().add(s.getBlockDeviceMappings().get(1))),
        change("amiFamily set to the alias's family", s -> s.setAmiFamily(AMIFamily.AL2023)),
        change("ipPrefixCount", s -> s.setIpPrefixCount(4)),
        change("rootVolume false written out", s -> s.getBlockDeviceMappings().get(1).setRootVolume(false)),
        change("volumeSize spelled 2000M", s -> ebs(s).setVolumeSize(new Quantity("2000M"))),
        change("empty tags map", s -> s.setTags(Map.of())));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("ignoredChanges")
  void shouldNotChangeHashWhenBehaviorOrDynamicFieldsAreUpdated(String name, Consumer<EC2NodeClassSpec> change) {
    String withoutTags = hash(s -> s.setTags(null));
    String expected = name.equals("empty tags map") ? withoutTags : BASE;
    assertThat(hash(change)).isEqualTo(expected);
  }

  @Test
  void shouldChangeHashWhenInstanceProfileIsUpdated() {
    String withProfile = hash(s -> {
      s.setRole(null);
      s.setInstanceProfile("test-instance-profile");
    });
    String otherProfile = hash(s -> {
      s.setRole(null);
      s.setInstanceProfile("other-instance-profile");
    });
    assertThat(withProfile).isNotEqualTo(BASE).isNotEqualTo(otherProfile);
  }

  @Test
  void shouldDistinguishOmittedEnclaveOptionsFromExplicitlyDisabled() {
    assertThat(hash(s -> s.setEnclaveOptions(enclave(false)))).isNotEqualTo(BASE);
    assertThat(hash(s -> s.setEnclaveOptions(enclave(false)))).isEqualTo(hash(s -> s.setEnclaveOptions(new EnclaveOptions())));
  }

  @Test
  void countsAPointerFieldSetToItsZeroValue() {
    assertThat(hash(s -> s.setDetailedMonitoring(null))).isNotEqualTo(BASE);
    assertThat(hash(s -> ebs(s).setIops(null))).isNotEqualTo(BASE);
    assertThat(hash(s -> s.setCpuOptions(new CPUOptions()))).isNotEqualTo(BASE);
    assertThat(hash(s -> s.setRole(""))).isEqualTo(hash(s -> s.setRole(null)));
  }

  @Test
  void shouldExpectTwoEC2NodeClassesWithTheSameSpecToHaveTheSameHash() {
    EC2NodeClass other = new EC2NodeClass();
    other.setSpec(nodeClass().getSpec());
    other.setStatus(new EC2NodeClassStatus());
    other.getStatus().setInstanceProfile("profile");
    assertThat(EC2NodeClassHash.of(other, CA_BUNDLE)).isEqualTo(BASE);
  }

  @Test
  void shouldChangeHashWhenKubeletConfigurationIsUpdated() {
    assertThat(hash(s -> s.setKubelet(KubeletConfiguration.of(Map.of("maxPods", 110)))))
        .isNotEqualTo(hash(s -> s.setKubelet(KubeletConfiguration.of(Map.of("maxPods", 220)))));
  }

  @Test
  void shouldNotCollideForKubeletConfigsThatAreBytePermutationsOfOneAnother() {
    assertThat(hash(s -> s.setKubelet(KubeletConfiguration.of(Map.of("maxPods", 12)))))
        .isNotEqualTo(hash(s -> s.setKubelet(KubeletConfiguration.of(Map.of("maxPods", 21)))));
  }

  @Test
  void kubeletFieldOrderDoesNotMatterAndAnEmptyConfigurationIsAbsent() {
    Map<String, Object> ordered = new LinkedHashMap<>();
    ordered.put("maxPods", 110);
    ordered.put("kubeReserved", Map.of("cpu", "200m", "memory", "100Mi"));
    Map<String, Object> reversed = new LinkedHashMap<>();
    reversed.put("kubeReserved", new java.util.TreeMap<>(Map.of("memory", "100Mi", "cpu", "200m")).descendingMap());
    reversed.put("maxPods", 110);
    assertThat(hash(s -> s.setKubelet(KubeletConfiguration.of(ordered)))).isEqualTo(hash(s -> s.setKubelet(KubeletConfiguration.of(reversed))));
    assertThat(hash(s -> s.setKubelet(KubeletConfiguration.of(Map.of())))).isEqualTo(BASE);
  }

  @Test
  void countsTheCaBundle() {
    EC2NodeClass nodeClass = nodeClass();
    assertThat(EC2NodeClassHash.of(nodeClass, "other-ca-bundle")).isNotEqualTo(BASE);
    assertThat(EC2NodeClassHash.of(nodeClass, null)).isEqualTo(EC2NodeClassHash.of(nodeClass, ""));
  }

  /** The encoding is part of the contract: a change re-drifts every NodeClaim, so it needs a new {@link EC2NodeClassHash#VERSION}. */
  @Test
  void valueIsPinnedToTheVersion() {
    assertThat(EC2NodeClassHash.VERSION).isEqualTo("v6");
    assertThat(BASE).isEqualTo("2395219449561006278");
  }

  private static EnclaveOptions enclave(boolean enabled) {
    EnclaveOptions options = new EnclaveOptions();
    options.setEnabled(enabled);
    return options;
  }

  private static ConnectionTracking tracking(Integer tcpEstablished, Integer udpStream, Integer udp) {
    ConnectionTracking tracking = new ConnectionTracking();
    tracking.setTcpEstablishedTimeout(tcpEstablished);
    tracking.setUdpStreamTimeout(udpStream);
    tracking.setUdpTimeout(udp);
    return tracking;
  }

  private static CPUOptions nestedVirtualization(String value) {
    CPUOptions options = new CPUOptions();
    options.setNestedVirtualization(value);
    return options;
  }

  private static PlacementGroupSelector placementGroup(String name) {
    PlacementGroupSelector selector = new PlacementGroupSelector();
    selector.setName(name);
    return selector;
  }
}
