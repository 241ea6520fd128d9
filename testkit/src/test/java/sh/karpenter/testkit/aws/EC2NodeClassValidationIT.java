package sh.karpenter.testkit.aws;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

import com.fasterxml.jackson.databind.JsonNode;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.api.aws.v1.AMIFamily;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.MetadataOptions;
import sh.karpenter.api.validation.Validated;
import sh.karpenter.api.validation.ValidationError;
import sh.karpenter.api.validation.Validator;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;

/**
 * The EC2NodeClass CRD on a real API server: it accepts a valid class and applies the same defaults as
 * the offline validator, and rejects what upstream's CRD rejects with upstream's messages, which the
 * offline validator reports too.
 */
@ControlPlaneTest
class EC2NodeClassValidationIT {
  private static final ResourceDefinitionContext EC2_NODE_CLASSES = new ResourceDefinitionContext.Builder()
      .withGroup(EC2NodeClass.GROUP).withVersion(EC2NodeClass.VERSION).withKind(EC2NodeClass.KIND).withPlural("ec2nodeclasses")
      .withNamespaced(false).build();

  /** Upstream's base class in its CEL suite; {@code %s} takes further flow-style entries, each ending in a comma. */
  private static final String SPEC =
      "{%s amiSelectorTerms: [{alias: al2023@latest}], securityGroupSelectorTerms: [{tags: {'*': '*'}}],"
          + " subnetSelectorTerms: [{tags: {'*': '*'}}]}";

  private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> nodeClasses;
  private KubernetesClient client;

  @BeforeEach
  void ec2NodeClassCrdIsInstalled(KubernetesClient client) {
    assertThat(client.apiextensions().v1().customResourceDefinitions().withName("ec2nodeclasses.karpenter.k8s.aws").get())
        .as("EC2NodeClass CRD installed from api/src/main/resources/crds")
        .isNotNull();
    this.client = client;
    this.nodeClasses = client.genericKubernetesResources(EC2_NODE_CLASSES);
  }

  @Test
  void acceptsAValidClassAndAppliesTheSameDefaultsAsTheOfflineValidator() {
    GenericKubernetesResource manifest = nodeClass("role: role-1, kubelet: {maxPods: 110, logging: {format: json}}, "
        + "blockDeviceMappings: [{deviceName: /dev/xvda, rootVolume: true, ebs: {volumeSize: 100Gi, volumeType: gp3}}],"
        + " networkInterfaces: [{networkCardIndex: 0, deviceIndex: 0, interfaceType: interface}],");
    Validated<EC2NodeClass> offline = Validator.standard().ec2NodeClass(tree(manifest), "offline");

    GenericKubernetesResource created = nodeClasses.resource(manifest).create();

    EC2NodeClass stored = client.getKubernetesSerialization().convertValue(created, EC2NodeClass.class);
    MetadataOptions metadata = stored.getSpec().getMetadataOptions();
    assertThat(metadata.getHttpEndpoint()).isEqualTo("enabled");
    assertThat(metadata.getHttpProtocolIPv6()).isEqualTo("disabled");
    assertThat(metadata.getHttpPutResponseHopLimit()).isEqualTo(1L);
    assertThat(metadata.getHttpTokens()).isEqualTo("required");
    assertThat(stored.amiFamily()).isEqualTo(AMIFamily.AL2023);
    assertThat(stored.getSpec().getKubelet().fields().get("logging").path("format").asText()).isEqualTo("json");
    assertThat(offline.errors()).isEmpty();
    assertThat(asText(offline.object().getSpec())).isEqualTo(asText(created.get("spec")));
  }

  @Test
  void storesAKubeletConfigurationTheApiServerCannotCheck() {
    // Admission stores it (x-kubernetes-preserve-unknown-fields); upstream's validation controller, and the
    // offline validator, report it instead.
    GenericKubernetesResource manifest = nodeClass("role: role-1, kubelet: {notAKubeletField: true},");

    GenericKubernetesResource created = nodeClasses.resource(manifest).create();

    assertThat(created.<Boolean>get("spec", "kubelet", "notAKubeletField")).isTrue();
    assertThat(Validator.standard().ec2NodeClass(tree(manifest), "offline").errors()).extracting(ValidationError::message)
        .containsExactly("unknown field \"notAKubeletField\"");
  }

  @Test
  void prunesNullKubeletFieldsButKeepsNullsInsideThemAsTheOfflineValidatorDoes() {
    GenericKubernetesResource manifest = nodeClass("role: role-1, kubelet: {maxPods: 110, podsPerCore: null, logging: {format: null}},");

    GenericKubernetesResource created = nodeClasses.resource(manifest).create();

    EC2NodeClass offline = Validator.standard().ec2NodeClass(tree(manifest), "offline").orElseThrow();
    assertThat(asText(created.get("spec", "kubelet"))).isEqualTo(asText(offline.getSpec().getKubelet()))
        .isEqualTo(asText(Map.of("maxPods", 110, "logging", java.util.Collections.singletonMap("format", null))));
  }

  static Stream<Arguments> invalid() {
    return Stream.of(
        Arguments.of("role: role-1, instanceProfile: profile,", "must specify exactly one of ['role', 'instanceProfile']"),
        Arguments.of("", "must specify exactly one of ['role', 'instanceProfile']"),
        Arguments.of("role: role-1, amiFamily: Bottlerocket,", "if set, amiFamily must be 'AL2023' or 'Custom' when using an AL2023 alias"),
        Arguments.of("role: role-1, tags: {kubernetes.io/cluster/test: owned},", "tag contains a restricted tag matching kubernetes.io/cluster/"),
        Arguments.of("role: role-1, metadataOptions: {httpPutResponseHopLimit: 65},", "should be less than or equal to 64"),
        Arguments.of("role: role-1, blockDeviceMappings: [{rootVolume: true, ebs: {volumeSize: 10G}}, {rootVolume: true, ebs: {snapshotID: snap-1}}],",
            "must have only one blockDeviceMappings with rootVolume"),
        Arguments.of("role: role-1, networkInterfaces: [{networkCardIndex: 0, deviceIndex: 0, interfaceType: efa-only}],",
            "networkInterfaces must include a primary interface with interfaceType='interface'"),
        Arguments.of("role: role-1, connectionTracking: {},", "at least one of tcpEstablishedTimeout, udpStreamTimeout, or udpTimeout must be set"),
        Arguments.of("role: role-1, placementGroupSelector: {name: a, id: pg-0123},", "'name' and 'id' are mutually exclusive"),
        // Upstream's !self.all(...) rule is false on an empty list, so an empty list is refused.
        Arguments.of("role: role-1, capacityReservationSelectorTerms: [],",
            "'id' is mutually exclusive, cannot be set along with other fields in a capacity reservation selector term"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("invalid")
  void rejectsWithUpstreamsMessagesAsTheOfflineValidatorDoes(String fields, String message) {
    GenericKubernetesResource manifest = nodeClass(fields);

    assertRejectedOnlineAndOffline(manifest, message);
  }

  static Stream<Arguments> invalidAliases() {
    return Stream.of(
        Arguments.of("al2023-latest", "'alias' is improperly formatted, must match the format 'family@version'"),
        Arguments.of("ubuntu@latest", "family is not supported, must be one of the following"),
        Arguments.of("windows2022@v1.0.0", "windows families may only specify version 'latest'"),
        // split('@')[1] of an alias without '@' is a CEL evaluation error, reported with the API server's message.
        Arguments.of("windows2019", "index out of bounds: 1 evaluating rule: windows families may only specify version 'latest'"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidAliases")
  void rejectsAliasesWithUpstreamsMessagesAsTheOfflineValidatorDoes(String alias, String message) {
    GenericKubernetesResource manifest = nodeClass("role: role-1,");
    Map<String, Object> spec = manifest.get("spec");
    spec.put("amiSelectorTerms", java.util.List.of(Map.of("alias", alias)));

    assertRejectedOnlineAndOffline(manifest, message);
  }

  /** The API server refuses the manifest with {@code message}, and the offline validator reports it. */
  private void assertRejectedOnlineAndOffline(GenericKubernetesResource manifest, String message) {
    assertThatExceptionOfType(KubernetesClientException.class)
        .isThrownBy(() -> nodeClasses.resource(manifest).create())
        .satisfies(e -> assertThat(e.getCode()).isEqualTo(422))
        .withMessageContaining(message);
    assertThat(Validator.standard().ec2NodeClass(tree(manifest), "offline").errors()).extracting(ValidationError::message)
        .anySatisfy(offline -> assertThat(offline).contains(message));
  }

  private GenericKubernetesResource nodeClass(String fields) {
    GenericKubernetesResource nodeClass = new GenericKubernetesResource();
    nodeClass.setApiVersion(EC2NodeClass.API_VERSION);
    nodeClass.setKind(EC2NodeClass.KIND);
    nodeClass.setMetadata(new ObjectMetaBuilder().withName("default").build());
    // A leading "spec:" keeps the flow-style YAML from being taken for JSON.
    Map<?, ?> document = client.getKubernetesSerialization().unmarshal("spec: " + SPEC.formatted(fields), Map.class);
    nodeClass.setAdditionalProperty("spec", document.get("spec"));
    return nodeClass;
  }

  /** JSON read back from its text, so that numbers compare by value whatever node type wrote them. */
  private JsonNode asText(Object value) {
    return client.getKubernetesSerialization().unmarshal(client.getKubernetesSerialization().asJson(value), JsonNode.class);
  }

  private JsonNode tree(GenericKubernetesResource resource) {
    return client.getKubernetesSerialization().convertValue(resource, JsonNode.class);
  }
}
