package sh.karpenter.testkit.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The NodePool CRD's schema and CEL rules reject what upstream Karpenter's CRD rejects, with its messages. */
@ControlPlaneTest
class NodePoolValidationIT {

  private static final String NODE_CLASS = "{group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}";
  private static final String ARCH = "{key: kubernetes.io/arch, operator: In, values: [amd64]}";

  private NonNamespaceOperation<GenericKubernetesResource, GenericKubernetesResourceList, Resource<GenericKubernetesResource>> nodePools;
  private KubernetesClient client;

  @BeforeEach
  void nodePoolCrdIsInstalled(KubernetesClient client) {
    // The extension installs api's CRDs for every test class; a missing one is a broken install, not a skip.
    assertThat(client.apiextensions().v1().customResourceDefinitions().withName("nodepools.karpenter.sh").get())
        .as("NodePool CRD installed from api/src/main/resources/crds")
        .isNotNull();
    this.client = client;
    this.nodePools = client.genericKubernetesResources(ClusterReset.NODE_POOLS);
  }

  @Test
  void acceptsAValidNodePoolAndAppliesTheSchemaDefaults() {
    GenericKubernetesResource created = nodePools.resource(nodePool(specWith(""))).create();

    assertThat(created.<String>get("spec", "disruption", "consolidateAfter")).isEqualTo("0s");
    assertThat(created.<String>get("spec", "disruption", "consolidationPolicy")).isEqualTo("WhenEmptyOrUnderutilized");
    assertThat(created.<String>get("spec", "template", "spec", "expireAfter")).isEqualTo("720h");
    assertThat(created.<Map<String, Object>>get("spec")).doesNotContainKey("replicas");
  }

  @Test
  void acceptsUnhealthyBudgetsAndDefaultsAnOmittedConsolidateAfter() {
    GenericKubernetesResource created = nodePools.resource(nodePool(specWith(
        "disruption: {consolidationPolicy: WhenEmpty, budgets: [{nodes: '1', reasons: [Unhealthy, Drifted]}]},"))).create();

    assertThat(created.<String>get("spec", "disruption", "consolidateAfter")).isEqualTo("0s");
    assertThat(created.<List<String>>get("spec", "disruption", "budgets", 0, "reasons")).containsExactly("Unhealthy", "Drifted");
  }

  static Stream<Arguments> invalidOnCreate() {
    return Stream.of(
        Arguments.of(requirement("{key: kubernetes.io/arch, operator: In, values: []}"),
            "requirements with operator 'In' must have a value defined"),
        Arguments.of(requirement("{key: example.com/gpus, operator: Gt, values: ['1', '2']}"),
            "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"),
        Arguments.of(requirement("{key: example.com/gpus, operator: Lt, values: ['-1']}"),
            "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"),
        Arguments.of(requirement("{key: kubernetes.io/arch, operator: In, values: [amd64, arm64], minValues: 3}"),
            "requirements with 'minValues' must have at least that many values specified in the 'values' field"),
        Arguments.of(requirement("{key: karpenter.sh/nodepool, operator: In, values: [other]}"),
            "label \"karpenter.sh/nodepool\" is restricted"),
        Arguments.of(requirement("{key: kubernetes.io/hostname, operator: In, values: [node-1]}"),
            "label \"kubernetes.io/hostname\" is restricted"),
        Arguments.of(requirement("{key: example.karpenter.sh/custom, operator: Exists}"),
            "label domain \"karpenter.sh\" is restricted"),
        Arguments.of(templateLabels("{karpenter.sh/nodepool: other}"), "label \"karpenter.sh/nodepool\" is restricted"),
        Arguments.of(templateLabels("{kubernetes.io/hostname: node-1}"), "label \"kubernetes.io/hostname\" is restricted"),
        Arguments.of(templateLabels("{karpenter.sh/custom: value}"), "label domain \"karpenter.sh\" is restricted"),
        Arguments.of(specWith("disruption: {budgets: [{nodes: '1', schedule: '@daily'}]},"),
            "'schedule' must be set with 'duration'"),
        Arguments.of(specWith("disruption: {budgets: [{nodes: '1', reasons: [Empty, Drifted, Empty]}]},"),
            "spec.disruption.budgets[0].reasons[2]: Duplicate value: \"Empty\""),
        Arguments.of(specWith("replicas: 2, weight: 10,"), "'weight' is not supported on static NodePools"),
        Arguments.of(specWith("replicas: 2, limits: {cpu: '10'},"), "only 'limits.nodes' is supported on static NodePools"),
        Arguments.of("{template: {spec: {nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: ''}, requirements: ["
            + ARCH + "]}}}", "name may not be empty"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("invalidOnCreate")
  void rejectsOnCreate(String spec, String expectedMessage) {
    assertThatExceptionOfType(KubernetesClientException.class)
        .isThrownBy(() -> nodePools.resource(nodePool(spec)).create())
        .satisfies(e -> assertThat(e.getCode()).isEqualTo(422))
        .withMessageContaining(expectedMessage);
  }

  static Stream<Arguments> invalidOnUpdate() {
    return Stream.of(
        Arguments.of((UnaryOperator<Map<String, Object>>) spec -> with(spec, "replicas", 3),
            "Cannot transition NodePool between static (replicas set) and dynamic (replicas unset) provisioning modes"),
        Arguments.of((UnaryOperator<Map<String, Object>>) spec -> nodeClassRef(spec, "group", "example.com"),
            "nodeClassRef.group is immutable"),
        Arguments.of((UnaryOperator<Map<String, Object>>) spec -> nodeClassRef(spec, "kind", "OtherNodeClass"),
            "nodeClassRef.kind is immutable"));
  }

  @ParameterizedTest(name = "{1}")
  @MethodSource("invalidOnUpdate")
  void rejectsOnUpdate(UnaryOperator<Map<String, Object>> change, String expectedMessage) {
    GenericKubernetesResource created = nodePools.resource(nodePool(specWith(""))).create();
    created.setAdditionalProperty("spec", change.apply(created.get("spec")));

    assertThatExceptionOfType(KubernetesClientException.class)
        .isThrownBy(() -> nodePools.resource(created).update())
        .satisfies(e -> assertThat(e.getCode()).isEqualTo(422))
        .withMessageContaining(expectedMessage);
  }

  private GenericKubernetesResource nodePool(String specYaml) {
    GenericKubernetesResource nodePool = new GenericKubernetesResource();
    nodePool.setApiVersion("karpenter.sh/v1");
    nodePool.setKind("NodePool");
    nodePool.setMetadata(new ObjectMetaBuilder().withName("default").build());
    // A leading "spec:" keeps the flow-style YAML from being taken for JSON.
    Map<?, ?> document = client.getKubernetesSerialization().unmarshal("spec: " + specYaml, Map.class);
    nodePool.setAdditionalProperty("spec", document.get("spec"));
    return nodePool;
  }

  /** A valid spec with {@code topLevel} (flow-style entries ending in a comma, or empty) added. */
  private static String specWith(String topLevel) {
    return "{" + topLevel + " template: {spec: {nodeClassRef: " + NODE_CLASS + ", requirements: [" + ARCH + "]}}}";
  }

  private static String requirement(String requirement) {
    return "{template: {spec: {nodeClassRef: " + NODE_CLASS + ", requirements: [" + requirement + "]}}}";
  }

  private static String templateLabels(String labels) {
    return "{template: {metadata: {labels: " + labels + "}, spec: {nodeClassRef: " + NODE_CLASS + ", requirements: [" + ARCH + "]}}}";
  }

  private static Map<String, Object> with(Map<String, Object> map, String key, Object value) {
    map.put(key, value);
    return map;
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> nodeClassRef(Map<String, Object> spec, String field, String value) {
    Map<String, Object> template = (Map<String, Object>) spec.get("template");
    Map<String, Object> templateSpec = (Map<String, Object>) template.get("spec");
    with((Map<String, Object>) templateSpec.get("nodeClassRef"), field, value);
    return spec;
  }
}
