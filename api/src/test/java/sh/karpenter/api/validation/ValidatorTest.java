package sh.karpenter.api.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;
import static sh.karpenter.api.validation.YamlTrees.set;
import static sh.karpenter.api.validation.YamlTrees.tree;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.api.Fixtures;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.v1.Budget;
import sh.karpenter.api.v1.ConsolidationPolicy;
import sh.karpenter.api.v1.DisruptionReason;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;

class ValidatorTest {
  private static final Validator VALIDATOR = Validator.standard();
  private static final String DOCUMENT = "pools.yaml, document 1";

  private static final String MINIMAL_NODE_POOL =
      """
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata:
        name: default
      spec:
        template:
          spec:
            nodeClassRef:
              group: karpenter.kwok.sh
              kind: KWOKNodeClass
              name: default
            requirements:
              - key: kubernetes.io/arch
                operator: In
                values: ["amd64"]
      """;

  @ParameterizedTest
  @ValueSource(strings = {"examples/kwok-default-nodepool.yaml", "examples/aws-getting-started-nodepool.yaml", "examples/full-nodepool.yaml", "examples/nodeclaim.yaml"})
  void upstreamExamplesAreValid(String resource) {
    List<Validated<?>> results = VALIDATOR.validateYaml(Fixtures.text(resource), resource);

    assertThat(results).isNotEmpty();
    assertThat(results).flatExtracting(Validated::errors).isEmpty();
  }

  @Test
  void appliesTheCrdDefaults() {
    NodePool pool = VALIDATOR.nodePool(tree(MINIMAL_NODE_POOL), DOCUMENT).orElseThrow();

    assertThat(pool.getSpec().getTemplate().getSpec().getExpireAfter().asDuration()).contains(Duration.ofHours(720));
    assertThat(pool.getSpec().getDisruption().getConsolidationPolicy()).isEqualTo(ConsolidationPolicy.WhenEmptyOrUnderutilized);
    assertThat(pool.getSpec().getDisruption().getConsolidateAfter().asDuration()).contains(Duration.ZERO);
    assertThat(pool.getSpec().getDisruption().getBudgets()).extracting(Budget::getNodes).containsExactly("10%");
    assertThat(pool.getSpec().getWeight()).isNull();
  }

  @Test
  void defaultsABudgetsNodesAndKeepsWhatIsSet() {
    ObjectNode tree = tree(MINIMAL_NODE_POOL);
    set(tree, "/spec/disruption", "{consolidationPolicy: WhenEmpty, budgets: [{schedule: '@daily', duration: 10m}]}");

    NodePool pool = VALIDATOR.nodePool(tree, DOCUMENT).orElseThrow();

    assertThat(pool.getSpec().getDisruption().getConsolidationPolicy()).isEqualTo(ConsolidationPolicy.WhenEmpty);
    assertThat(pool.getSpec().getDisruption().getConsolidateAfter().text()).isEqualTo("0s");
    assertThat(pool.getSpec().getDisruption().getBudgets()).singleElement()
        .satisfies(b -> assertThat(b.getNodes()).isEqualTo("10%"))
        .satisfies(b -> assertThat(b.getSchedule()).isEqualTo("@daily"));
  }

  /** Invalid NodePools, each a change to the minimal one, with the field and the rule named in the error. */
  static Stream<Arguments> invalidNodePools() {
    String requirement0 = "/spec/template/spec/requirements/0";
    return Stream.of(
        invalid("bad operator", requirement0 + "/operator", "Equals",
            "spec.template.spec.requirements[0].operator", "Unsupported value: \"Equals\": supported values: \"In\", \"NotIn\""),
        invalid("minValues above the number of values", requirement0, "{key: node.kubernetes.io/instance-type, operator: In, values: [m5.large], minValues: 2}",
            "spec.template.spec.requirements", "requirements with 'minValues' must have at least that many values specified in the 'values' field"),
        invalid("minValues above 50", requirement0 + "/minValues", "51",
            "spec.template.spec.requirements[0].minValues", "should be less than or equal to 50"),
        invalid("In without values", requirement0 + "/values", "[]",
            "spec.template.spec.requirements", "requirements with operator 'In' must have a value defined"),
        invalid("In with values left out", requirement0, "{key: kubernetes.io/os, operator: In}",
            "spec.template.spec.requirements", "no such key: values evaluating rule: requirements with operator 'In' must have a value defined"),
        invalid("Gt with a non-integer", requirement0, "{key: karpenter.kwok.sh/instance-cpu, operator: Gt, values: [four]}",
            "spec.template.spec.requirements", "must have a single positive integer value"),
        invalid("Lt with a negative integer", requirement0, "{key: karpenter.kwok.sh/instance-cpu, operator: Lt, values: ['-1']}",
            "spec.template.spec.requirements", "requirements operator 'Gt', 'Lt', 'Gte', or 'Lte' must have a single positive integer value"),
        invalid("Gte with two values", requirement0, "{key: karpenter.kwok.sh/instance-cpu, operator: Gte, values: ['1', '2']}",
            "spec.template.spec.requirements", "must have a single positive integer value"),
        invalid("requirement in the restricted karpenter.sh domain", requirement0 + "/key", "karpenter.sh/custom",
            "spec.template.spec.requirements[0].key", "label domain \"karpenter.sh\" is restricted"),
        invalid("requirement in a karpenter.sh subdomain", requirement0 + "/key", "team.karpenter.sh/custom",
            "spec.template.spec.requirements[0].key", "label domain \"karpenter.sh\" is restricted"),
        invalid("requirement on the nodepool label", requirement0 + "/key", "karpenter.sh/nodepool",
            "spec.template.spec.requirements[0].key", "label \"karpenter.sh/nodepool\" is restricted"),
        invalid("requirement on the hostname label", requirement0 + "/key", "kubernetes.io/hostname",
            "spec.template.spec.requirements[0].key", "label \"kubernetes.io/hostname\" is restricted"),
        invalid("requirement key that is not a qualified name", requirement0 + "/key", "example.com/" + "x".repeat(64),
            "spec.template.spec.requirements[0].key", "name part must be no more than 63 characters"),
        invalid("requirement value that is not a label value", requirement0 + "/values/0", "amd 64",
            "spec.template.spec.requirements[0].values[0]", "a valid label value must be an empty string or consist of alphanumeric"),
        invalid("template label in the restricted karpenter.sh domain", "/spec/template/metadata", "{labels: {karpenter.sh/custom: x}}",
            "spec.template.metadata.labels", "label domain \"karpenter.sh\" is restricted"),
        invalid("template label on the nodepool label", "/spec/template/metadata", "{labels: {karpenter.sh/nodepool: x}}",
            "spec.template.metadata.labels", "label \"karpenter.sh/nodepool\" is restricted"),
        invalid("template label on the hostname label", "/spec/template/metadata", "{labels: {kubernetes.io/hostname: x}}",
            "spec.template.metadata.labels", "label \"kubernetes.io/hostname\" is restricted"),
        invalid("template label value", "/spec/template/metadata", "{labels: {team: 'not a value'}}",
            "spec.template.metadata.labels.team", "Invalid value: \"not a value\": spec.template.metadata.labels.team in body should match"),
        invalid("template label key", "/spec/template/metadata", "{labels: {a/b/c: x}}",
            "spec.template.metadata.labels.a/b/c", "label key is not a qualified name"),
        invalid("empty nodeClassRef name", "/spec/template/spec/nodeClassRef/name", "''",
            "spec.template.spec.nodeClassRef.name", "Invalid value: \"\": name may not be empty"),
        invalid("empty nodeClassRef group", "/spec/template/spec/nodeClassRef/group", "''",
            "spec.template.spec.nodeClassRef.group", "group may not be empty"),
        invalid("nodeClassRef group with a slash", "/spec/template/spec/nodeClassRef/group", "karpenter.k8s.aws/v1",
            "spec.template.spec.nodeClassRef.group", "should match '^[^/]*$'"),
        invalid("bad expireAfter", "/spec/template/spec/expireAfter", "30d",
            "spec.template.spec.expireAfter", "Invalid value: \"30d\": spec.template.spec.expireAfter in body should match '^(([0-9]+(s|m|h))+|Never)$'"),
        invalid("terminationGracePeriod of Never", "/spec/template/spec/terminationGracePeriod", "Never",
            "spec.template.spec.terminationGracePeriod", "should match '^([0-9]+(s|m|h))+$'"),
        invalid("budget schedule without duration", "/spec/disruption", "{budgets: [{nodes: '10%', schedule: '@daily'}]}",
            "spec.disruption.budgets", "Invalid value: 'schedule' must be set with 'duration'"),
        invalid("budget duration without schedule", "/spec/disruption", "{budgets: [{nodes: '10%', duration: 1h}]}",
            "spec.disruption.budgets", "'schedule' must be set with 'duration'"),
        invalid("bad budget nodes", "/spec/disruption", "{budgets: [{nodes: '110%'}]}",
            "spec.disruption.budgets[0].nodes", "should match '^((100|[0-9]{1,2})%|[0-9]+)$'"),
        invalid("budget duration in seconds", "/spec/disruption", "{budgets: [{nodes: '1', schedule: '@hourly', duration: 30s}]}",
            "spec.disruption.budgets[0].duration", "should match"),
        invalid("budget schedule with four fields", "/spec/disruption", "{budgets: [{nodes: '1', schedule: '0 9 * *', duration: 1h}]}",
            "spec.disruption.budgets[0].schedule", "should match"),
        invalid("unknown budget reason", "/spec/disruption", "{budgets: [{nodes: '1', reasons: [Expired]}]}",
            "spec.disruption.budgets[0].reasons[0]",
            "Unsupported value: \"Expired\": supported values: \"Underutilized\", \"Empty\", \"Drifted\", \"Unhealthy\""),
        invalid("budget reason given twice", "/spec/disruption", "{budgets: [{nodes: '1', reasons: [Empty, Drifted, Empty, Empty]}]}",
            "spec.disruption.budgets[0].reasons[2]", "Duplicate value: \"Empty\""),
        invalid("bad consolidationPolicy", "/spec/disruption", "{consolidationPolicy: WhenUnderutilized}",
            "spec.disruption.consolidationPolicy", "Unsupported value: \"WhenUnderutilized\""),
        invalid("bad consolidateAfter", "/spec/disruption", "{consolidateAfter: 5 minutes}",
            "spec.disruption.consolidateAfter", "should match"),
        invalid("weight 0", "/spec/weight", "0",
            "spec.weight", "Invalid value: 0: spec.weight in body should be greater than or equal to 1"),
        invalid("weight above 100", "/spec/weight", "101",
            "spec.weight", "Invalid value: 101: spec.weight in body should be less than or equal to 100"),
        invalid("weight as text", "/spec/weight", "'10'",
            "spec.weight", "Invalid value: \"string\": spec.weight in body must be of type integer: \"string\""),
        invalid("bad limit quantity", "/spec/limits", "{cpu: 10 cores}",
            "spec.limits.cpu", "should match"),
        invalid("weight on a static NodePool", "/spec", "{replicas: 3, weight: 10, template: {spec: {nodeClassRef: {group: g, kind: k, name: n}, requirements: []}}}",
            "spec", "'weight' is not supported on static NodePools"),
        invalid("cpu limit on a static NodePool", "/spec", "{replicas: 3, limits: {cpu: '10'}, template: {spec: {nodeClassRef: {group: g, kind: k, name: n}, requirements: []}}}",
            "spec", "only 'limits.nodes' is supported on static NodePools"),
        invalid("negative replicas", "/spec/replicas", "-1",
            "spec.replicas", "should be greater than or equal to 0"),
        invalid("duplicate taint across taints and startupTaints", "/spec/template/spec/taints", "[{key: example.com/gpu, effect: NoSchedule}]",
            "/spec/template/spec/startupTaints", "[{key: example.com/gpu, effect: NoSchedule}]",
            "spec.template.spec.startupTaints[0]", "duplicate taint Key/Effect pair example.com/gpu=NoSchedule"),
        invalid("duplicate taint within taints", "/spec/template/spec/taints", "[{key: a, value: x, effect: NoSchedule}, {key: a, value: y, effect: NoSchedule}]",
            "spec.template.spec.taints[1]", "duplicate taint Key/Effect pair a=NoSchedule"),
        invalid("bad taint effect", "/spec/template/spec/taints", "[{key: example.com/gpu, effect: NoRun}]",
            "spec.template.spec.taints[0].effect", "Unsupported value: \"NoRun\": supported values: \"NoSchedule\", \"PreferNoSchedule\", \"NoExecute\""),
        invalid("taint without key", "/spec/template/spec/taints", "[{effect: NoSchedule}]",
            "spec.template.spec.taints[0].key", "Required value"),
        invalid("missing nodeClassRef", "/spec/template/spec/nodeClassRef", null,
            "spec.template.spec.nodeClassRef", "Required value"),
        invalid("missing requirements", "/spec/template/spec/requirements", null,
            "spec.template.spec.requirements", "Required value"),
        invalid("unknown field", "/spec/template/spec/kubelet", "{maxPods: 110}",
            "spec.template.spec.kubelet", "unknown field \"spec.template.spec.kubelet\""),
        invalid("too many budgets", "/spec/disruption", "{budgets: [" + "{nodes: '1'},".repeat(50) + "{nodes: '1'}]}",
            "spec.disruption.budgets", "Too many: 51: must have at most 50 items"),
        invalid("missing name", "/metadata", "{labels: {a: b}}",
            "metadata.name", "Required value"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("invalidNodePools")
  void rejectsInvalidNodePoolsNamingTheFieldAndRule(String description, List<String> edits, String fieldPath, String message) {
    ObjectNode tree = tree(MINIMAL_NODE_POOL);
    for (int i = 0; i < edits.size(); i += 2) {
      set(tree, edits.get(i), edits.get(i + 1));
    }

    Validated<NodePool> result = VALIDATOR.nodePool(tree, DOCUMENT);

    assertThat(result.isValid()).as(description).isFalse();
    assertThat(result.object()).isNull();
    assertThat(result.errors()).as(description)
        .anySatisfy(error -> {
          assertThat(error.document()).isEqualTo(DOCUMENT);
          assertThat(error.fieldPath()).isEqualTo(fieldPath);
          assertThat(error.message()).contains(message);
        });
  }

  @Test
  void acceptsEveryDisruptionReasonInBudgetsAndLeavesConsolidateAfterOptional() {
    ObjectNode tree = tree(MINIMAL_NODE_POOL);
    set(tree, "/spec/disruption", "{budgets: [{nodes: '1', reasons: [Underutilized, Empty, Drifted, Unhealthy]}]}");

    NodePool pool = VALIDATOR.nodePool(tree, DOCUMENT).orElseThrow();

    assertThat(pool.getSpec().getDisruption().getBudgets()).singleElement()
        .satisfies(b -> assertThat(b.getReasons()).containsExactly(
            DisruptionReason.Underutilized, DisruptionReason.Empty, DisruptionReason.Drifted, DisruptionReason.Unhealthy));
    assertThat(pool.getSpec().getDisruption().getConsolidateAfter().text()).isEqualTo("0s");
  }

  @Test
  void reportsARepeatedBudgetReasonOnceWithoutBlockingCelRules() {
    ObjectNode tree = tree(MINIMAL_NODE_POOL);
    set(tree, "/spec/disruption", "{budgets: [{nodes: '1', reasons: [Empty, Empty, Empty], schedule: '@daily'}]}");

    assertThat(VALIDATOR.nodePool(tree, DOCUMENT).errors()).extracting(ValidationError::fieldPath, ValidationError::message)
        .containsExactly(
            tuple("spec.disruption.budgets[0].reasons[1]", "Duplicate value: \"Empty\""),
            tuple("spec.disruption.budgets", "Invalid value: 'schedule' must be set with 'duration'"));
  }

  @Test
  void reportsEveryErrorOnceInTheCliForm() {
    ObjectNode tree = tree(MINIMAL_NODE_POOL);
    set(tree, "/spec/weight", "0");
    set(tree, "/spec/template/spec/requirements/0/operator", "Equals");

    List<ValidationError> errors = VALIDATOR.nodePool(tree, DOCUMENT).errors();

    assertThat(errors).extracting(ValidationError::toString).containsExactly(
        "pools.yaml, document 1: spec.template.spec.requirements[0].operator: Unsupported value: \"Equals\": supported values:"
            + " \"In\", \"NotIn\", \"Exists\", \"DoesNotExist\", \"Gt\", \"Lt\", \"Gte\", \"Lte\"",
        "pools.yaml, document 1: spec.weight: Invalid value: 0: spec.weight in body should be greater than or equal to 1",
        "pools.yaml, document 1: some validation rules were not checked because the object was invalid; correct the existing"
            + " errors to complete validation");
  }

  @Test
  void evaluatesCelRulesAlongsideNonBlockingSchemaErrors() {
    ObjectNode tree = tree(MINIMAL_NODE_POOL);
    set(tree, "/spec/weight", "0");
    set(tree, "/spec/template/spec/requirements/0/values", "[]");

    assertThat(VALIDATOR.nodePool(tree, DOCUMENT).errors()).extracting(ValidationError::fieldPath)
        .containsExactly("spec.weight", "spec.template.spec.requirements");
  }

  @Test
  void validatesNodeClaimsWithTheirOwnRules() {
    String nodeClaim = Fixtures.text("examples/nodeclaim.yaml");
    ObjectNode tree = tree(nodeClaim);
    assertThat(VALIDATOR.nodeClaim(tree, "claim").orElseThrow().getSpec().getExpireAfter().text()).isEqualTo("720h");

    set(tree, "/spec/requirements/0/key", "kubernetes.io/hostname");
    set(tree, "/spec/requirements/1/minValues", "4");

    assertThat(VALIDATOR.nodeClaim(tree, "claim").errors()).extracting(ValidationError::fieldPath, ValidationError::message)
        .contains(
            tuple("spec.requirements[0].key", "Invalid value: \"kubernetes.io/hostname\": label \"kubernetes.io/hostname\" is restricted"),
            tuple("spec.requirements",
                "Invalid value: requirements with 'minValues' must have at least that many values specified in the 'values' field"));

    set(tree, "/status/conditions/1/type", "Launched");
    assertThat(VALIDATOR.nodeClaim(tree, "claim").errors()).extracting(ValidationError::fieldPath, ValidationError::message)
        .contains(tuple("status.conditions[1]", "Duplicate value: {\"type\":\"Launched\"}"));

    set(tree, "/status/conditions/0/status", "Maybe");
    assertThat(VALIDATOR.nodeClaim(tree, "claim").errors()).extracting(ValidationError::fieldPath, ValidationError::message)
        .startsWith(tuple("status.conditions[0].status", "Unsupported value: \"Maybe\": supported values: \"True\", \"False\", \"Unknown\""));
  }

  @Test
  void validatesNodePoolsBuiltInCode() {
    NodePool pool = VALIDATOR.nodePool(tree(MINIMAL_NODE_POOL), DOCUMENT).orElseThrow();
    assertThat(VALIDATOR.validateNodePool(pool, "built")).isEmpty();

    pool.getSpec().setWeight(0);
    assertThat(VALIDATOR.validateNodePool(pool, "built")).extracting(ValidationError::fieldPath).containsExactly("spec.weight");
  }

  @Test
  void defaultsKwokNodeClassStatusToReady() {
    KWOKNodeClass nodeClass = VALIDATOR.kwokNodeClass(
        tree("{apiVersion: karpenter.kwok.sh/v1alpha1, kind: KWOKNodeClass, metadata: {name: default}}"), "class").orElseThrow();

    assertThat(nodeClass.getStatus().getConditions()).singleElement()
        .satisfies(c -> assertThat(c.getType() + "=" + c.getStatus()).isEqualTo("Ready=True"));
  }

  @Test
  void validatesEveryKarpenterDocumentOfAStreamAndSkipsOthers() {
    String yaml = MINIMAL_NODE_POOL + "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p}\n---\n"
        + MINIMAL_NODE_POOL.replace("operator: In", "operator: Equals")
        + "---\napiVersion: karpenter.sh/v1beta1\nkind: NodePool\nmetadata: {name: old}\n";

    List<Validated<?>> results = VALIDATOR.validateYaml(yaml, "pools.yaml");

    assertThat(results).extracting(Validated::document).containsExactly("pools.yaml, document 1", "pools.yaml, document 3", "pools.yaml, document 4");
    assertThat(results.get(0).object()).isInstanceOf(NodePool.class);
    assertThat(results.get(1).errors()).extracting(ValidationError::fieldPath).containsExactly("spec.template.spec.requirements[0].operator", "");
    assertThat(results.get(2).errors()).singleElement()
        .satisfies(e -> assertThat(e.toString()).startsWith("pools.yaml, document 4: apiVersion: no kind \"NodePool\" is served in \"karpenter.sh/v1beta1\""));
  }

  @Test
  void malformedYamlNamesTheDocument() {
    assertThatThrownBy(() -> VALIDATOR.validateYaml(MINIMAL_NODE_POOL + "---\nspec: [unclosed\n", "pools.yaml"))
        .isInstanceOfSatisfying(InvalidManifestException.class, e -> assertThat(e.errors()).singleElement()
            .satisfies(error -> assertThat(error.toString()).startsWith("pools.yaml, document 2: invalid YAML")));
  }

  @Test
  void nodeClaimTypeIsBoundFromItsOwnSchema() {
    Validated<?> result = VALIDATOR.validate(new Manifest("claim", tree(Fixtures.text("examples/nodeclaim.yaml"))));
    assertThat(result.object()).isInstanceOf(NodeClaim.class);
  }

  /**
   * Hostile input: every field of the upstream examples (objects, lists, scalars, at any depth)
   * replaced by a value of each other JSON type gives validation errors naming a field, never an
   * exception (a map where {@code requirements} is a list used to throw a NullPointerException).
   */
  @ParameterizedTest
  @ValueSource(strings = {"examples/full-nodepool.yaml", "examples/nodeclaim.yaml", "examples/ec2nodeclass-full.yaml"})
  void aFieldOfTheWrongTypeIsAnErrorNeverAnException(String resource) {
    ObjectNode original = tree(Fixtures.text(resource));
    List<String> pointers = new java.util.ArrayList<>();
    pointers(original, "", pointers);
    List<JsonNode> replacements = Stream.of("{key: value}", "[a, b]", "text", "7", "-1", "1.5", "true").map(YamlTrees::parseValue).toList();
    int checked = 0;
    for (String pointer : pointers) {
      if (pointer.equals("/apiVersion") || pointer.equals("/kind")) {
        continue;
      }
      for (JsonNode replacement : replacements) {
        if (replacement.getNodeType() == original.at(pointer).getNodeType() && replacement.isIntegralNumber() == original.at(pointer).isIntegralNumber()) {
          continue;
        }
        ObjectNode hostile = original.deepCopy();
        replace(hostile, pointer, replacement);
        Validated<?> result = VALIDATOR.validate(new Manifest(DOCUMENT, hostile));
        if (!result.isValid()) {
          assertThat(result.errors()).as("%s = %s", pointer, replacement).allSatisfy(e -> assertThat(e.document()).isEqualTo(DOCUMENT));
        }
        checked++;
      }
    }
    assertThat(checked).isGreaterThan(100);
  }

  /** JSON pointers of every node under {@code node}. */
  private static void pointers(JsonNode node, String at, List<String> out) {
    if (node.isObject()) {
      node.properties().forEach(e -> {
        String child = at + "/" + e.getKey().replace("~", "~0").replace("/", "~1");
        out.add(child);
        pointers(e.getValue(), child, out);
      });
    } else if (node.isArray()) {
      for (int i = 0; i < node.size(); i++) {
        out.add(at + "/" + i);
        pointers(node.get(i), at + "/" + i, out);
      }
    }
  }

  private static void replace(ObjectNode tree, String pointer, JsonNode value) {
    int slash = pointer.lastIndexOf('/');
    JsonNode parent = slash == 0 ? tree : tree.at(pointer.substring(0, slash));
    String name = pointer.substring(slash + 1).replace("~1", "/").replace("~0", "~");
    if (parent.isArray()) {
      ((ArrayNode) parent).set(Integer.parseInt(name), value);
    } else {
      ((ObjectNode) parent).set(name, value);
    }
  }

  private static Arguments invalid(String description, String pointer, String yamlValue, String fieldPath, String message) {
    return Arguments.of(description, Arrays.asList(pointer, yamlValue), fieldPath, message);
  }

  private static Arguments invalid(String description, String pointer1, String value1, String pointer2, String value2, String fieldPath, String message) {
    return Arguments.of(description, List.of(pointer1, value1, pointer2, value2), fieldPath, message);
  }
}
