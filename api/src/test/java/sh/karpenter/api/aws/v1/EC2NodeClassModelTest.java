package sh.karpenter.api.aws.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.api.Fixtures;
import sh.karpenter.api.validation.Manifests;
import sh.karpenter.core.wellknown.AwsLabels;
import sh.karpenter.core.wellknown.Labels;

/** The EC2NodeClass model reads and writes upstream's manifests, and its helpers behave as upstream's. */
class EC2NodeClassModelTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final String FULL = "examples/ec2nodeclass-full.yaml";

  private static EC2NodeClass full() {
    return SERIALIZATION.unmarshal(Fixtures.text(FULL), EC2NodeClass.class);
  }

  @Test
  void everyFieldSurvivesARoundTrip() {
    JsonNode original = Manifests.read(Fixtures.text(FULL), FULL).getFirst().tree();
    JsonNode written = SERIALIZATION.convertValue(SERIALIZATION.convertValue(original, EC2NodeClass.class), JsonNode.class);

    assertThat(SERIALIZATION.unmarshal(written.toString(), JsonNode.class)).isEqualTo(SERIALIZATION.unmarshal(original.toString(), JsonNode.class));
  }

  @Test
  void fullNodeClassReadsIntoTypedFields() {
    EC2NodeClass nodeClass = full();
    EC2NodeClassSpec spec = nodeClass.getSpec();

    assertThat(nodeClass.getApiVersion()).isEqualTo(EC2NodeClass.API_VERSION);
    assertThat(spec.getSubnetSelectorTerms()).extracting(SubnetSelectorTerm::getId).containsExactly(null, "subnet-0a1b2c3d");
    assertThat(spec.getCapacityReservationSelectorTerms().get(1).getOwnerID()).isEqualTo("012345678901");
    assertThat(spec.getPlacementGroupSelector().getName()).isEqualTo("analytics");
    assertThat(spec.getAssociatePublicIPAddress()).isFalse();
    assertThat(spec.getIpPrefixCount()).isEqualTo(2);
    assertThat(spec.getAmiSelectorTerms().getFirst().getAlias()).isEqualTo("al2023@v20240625");
    assertThat(spec.getKubelet().fields()).containsKeys("maxPods", "serializeImagePulls");
    BlockDevice root = spec.getBlockDeviceMappings().getFirst().getEbs();
    assertThat(root.getVolumeSize()).isEqualTo(new Quantity("100Gi"));
    assertThat(root.getIops()).isEqualTo(10000L);
    assertThat(root.getKmsKeyID()).isEqualTo("alias/my-key");
    assertThat(spec.getBlockDeviceMappings().get(1).getEbs().getVolumeInitializationRate()).isEqualTo(200);
    assertThat(spec.getInstanceStorePolicy()).isEqualTo(InstanceStorePolicy.RAID0);
    assertThat(spec.getNetworkInterfaces()).extracting(NetworkInterface::getInterfaceType)
        .containsExactly(NetworkInterface.TYPE_INTERFACE, NetworkInterface.TYPE_EFA_ONLY);
    assertThat(spec.getMetadataOptions().getHttpPutResponseHopLimit()).isEqualTo(2L);
    assertThat(spec.getEnclaveOptions().getEnabled()).isFalse();
    assertThat(spec.getConnectionTracking().getTcpEstablishedTimeout()).isEqualTo(3600);
    assertThat(spec.getCpuOptions().getNestedVirtualization()).isEqualTo("disabled");
    EC2NodeClassStatus status = nodeClass.getStatus();
    assertThat(status.getSubnets().getFirst().getZoneID()).isEqualTo("usw2-az1");
    assertThat(status.getCapacityReservations().getFirst().getReservationType()).isEqualTo(CapacityReservation.TYPE_CAPACITY_BLOCK);
    assertThat(status.getAmis().getFirst().getRequirements().getFirst().getValues()).containsExactly("amd64");
    assertThat(status.getInstanceProfile()).isEqualTo("my-cluster_1234567890");
  }

  @Test
  void modelBuiltInCodeWritesUpstreamFieldNames() {
    EC2NodeClass nodeClass = new EC2NodeClass();
    nodeClass.getMetadata().setName("default");
    EC2NodeClassSpec spec = new EC2NodeClassSpec();
    spec.setAssociatePublicIPAddress(true);
    spec.setMetadataOptions(MetadataOptions.defaults());
    spec.setKubelet(KubeletConfiguration.of(Map.of("maxPods", 110)));
    CapacityReservationSelectorTerm term = new CapacityReservationSelectorTerm();
    term.setOwnerID("012345678901");
    spec.setCapacityReservationSelectorTerms(List.of(term));
    nodeClass.setSpec(spec);

    JsonNode tree = SERIALIZATION.convertValue(nodeClass, JsonNode.class);

    assertThat(tree.path("apiVersion").asText()).isEqualTo("karpenter.k8s.aws/v1");
    assertThat(tree.path("kind").asText()).isEqualTo("EC2NodeClass");
    assertThat(tree.at("/spec").fieldNames()).toIterable()
        .containsExactlyInAnyOrder("associatePublicIPAddress", "metadataOptions", "kubelet", "capacityReservationSelectorTerms");
    assertThat(tree.at("/spec/metadataOptions").toString())
        .isEqualTo("{\"httpEndpoint\":\"enabled\",\"httpProtocolIPv6\":\"disabled\",\"httpPutResponseHopLimit\":1,\"httpTokens\":\"required\"}");
    assertThat(tree.at("/spec/kubelet").toString()).isEqualTo("{\"maxPods\":110}");
    assertThat(tree.at("/spec/capacityReservationSelectorTerms/0/ownerID").asText()).isEqualTo("012345678901");
  }

  @ParameterizedTest
  @CsvSource({
      "al2@latest, AL2, latest",
      "al2023@v20240625, AL2023, v20240625",
      "bottlerocket@v1.20.0, Bottlerocket, v1.20.0",
      "bottlerocket@1.10.0, Bottlerocket, 1.10.0",
      "windows2019@latest, Windows2019, latest",
      "windows2022@latest, Windows2022, latest",
      "windows2025@latest, Windows2025, latest"})
  void parsesAliases(String text, String family, String version) {
    Alias alias = Alias.parse(text);

    assertThat(alias).isEqualTo(new Alias(family, version));
    assertThat(alias.toString()).isEqualTo(text);
    assertThat(alias.isLatest()).isEqualTo(version.equals(Alias.LATEST));
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', quoteCharacter = '"', value = {
      "@latest | 'alias' is improperly formatted, must match the format 'family@version'",
      "al2023 | 'alias' is improperly formatted",
      "al2023@ | 'alias' is improperly formatted",
      "al2023-latest | 'alias' is improperly formatted",
      "al2023@v1@v2 | 'alias' is improperly formatted",
      "ubuntu@latest | family is not supported, must be one of the following: 'al2', 'al2023', 'bottlerocket', 'windows2019', 'windows2022', 'windows2025'",
      "AL2023@latest | family is not supported",
      "windows2022@v1.0.0 | windows families may only specify version 'latest'"})
  void rejectsAliasesWithTheCrdsMessages(String text, String problem) {
    assertThatIllegalArgumentException().isThrownBy(() -> Alias.parse(text))
        .withMessageStartingWith("invalid AMI alias \"" + text + "\": ")
        .withMessageContaining(problem);
  }

  @Test
  void resolvesTheAmiFamilyFromTheFieldThenTheAlias() {
    EC2NodeClass nodeClass = full();
    assertThat(nodeClass.amiFamily()).isEqualTo(AMIFamily.AL2023);

    nodeClass.getSpec().setAmiFamily(null);
    nodeClass.getSpec().setAmiSelectorTerms(List.of(AMISelectorTerm.ofAlias("bottlerocket@latest")));
    assertThat(nodeClass.amiFamily()).isEqualTo(AMIFamily.BOTTLEROCKET);
    assertThat(nodeClass.alias()).contains(new Alias(AMIFamily.BOTTLEROCKET, "latest"));

    nodeClass.getSpec().setAmiFamily(AMIFamily.CUSTOM);
    assertThat(nodeClass.amiFamily()).isEqualTo(AMIFamily.CUSTOM);

    nodeClass.getSpec().setAmiFamily(null);
    AMISelectorTerm byId = new AMISelectorTerm();
    byId.setId("ami-0123");
    nodeClass.getSpec().setAmiSelectorTerms(List.of(byId));
    assertThat(nodeClass.alias()).isEmpty();
    assertThat(nodeClass.amiFamily()).isEqualTo(AMIFamily.CUSTOM);
  }

  @Test
  void groupsResolvedSubnetsByZone() {
    assertThat(full().zoneInfo()).containsExactly(
        new ZoneInfo("us-west-2a", "usw2-az1", List.of("subnet-0a1b2c3d", "subnet-2c3d4e5f")),
        new ZoneInfo("us-west-2b", "usw2-az2", List.of("subnet-1b2c3d4e")));
  }

  @Test
  void tagsTheInstanceProfileAsUpstreamDoes() {
    assertThat(full().instanceProfileTags("my-cluster", "us-west-2")).containsExactly(
        Map.entry("team", "ml"),
        Map.entry("cost-center", "1234"),
        Map.entry("kubernetes.io/cluster/my-cluster", "owned"),
        Map.entry("eks:eks-cluster-name", "my-cluster"),
        Map.entry(AwsLabels.EC2_NODE_CLASS, "full"),
        Map.entry(Labels.REGION, "us-west-2"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"kubernetes.io/cluster/my-cluster", "karpenter.sh/nodepool", "karpenter.sh/nodeclaim", "eks:eks-cluster-name",
      "karpenter.k8s.aws/ec2nodeclass"})
  void restrictsTheTagsKarpenterSets(String key) {
    assertThat(AwsTags.isRestricted(key)).isTrue();
  }

  @ParameterizedTest
  @ValueSource(strings = {"karpenter.sh/custom-key", "kubernetes.io/role/key", "kubernetes.io/cluster/", "team"})
  void allowsOtherTags(String key) {
    assertThat(AwsTags.isRestricted(key)).isFalse();
  }

  @Test
  void rollsUpReadyFromUpstreamsConditions() {
    assertThat(EC2NodeClassConditions.readyDependencies(false)).containsExactly(
        "AMIsReady", "SubnetsReady", "SecurityGroupsReady", "InstanceProfileReady", "ValidationSucceeded", "PlacementGroupReady");
    assertThat(EC2NodeClassConditions.readyDependencies(true)).endsWith("CapacityReservationsReady");
  }

  @Test
  void wellKnownNamesAreUpstreams() {
    assertThat(EC2NodeClass.TERMINATION_FINALIZER).isEqualTo("karpenter.k8s.aws/termination");
    assertThat(AwsAnnotations.EC2_NODE_CLASS_HASH).isEqualTo("karpenter.k8s.aws/ec2nodeclass-hash");
    assertThat(AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION).isEqualTo("karpenter.k8s.aws/ec2nodeclass-hash-version");
    assertThat(AwsAnnotations.CLUSTER_NAME_TAGGED).isEqualTo("compatibility.karpenter.k8s.aws/cluster-name-tagged");
    assertThat(AwsAnnotations.INSTANCE_PROFILE).isEqualTo("karpenter.k8s.aws/instance-profile-name");
    assertThat(AwsTags.NODE_CLAIM).isEqualTo("karpenter.sh/nodeclaim");
    assertThat(AwsLabels.WELL_KNOWN).hasSize(28).contains(AwsLabels.TOPOLOGY_ZONE_ID, AwsLabels.CAPACITY_RESERVATION_ID);
  }
}
