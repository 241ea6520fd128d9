package sh.karpenter.cli.convert;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import picocli.CommandLine;
import sh.karpenter.api.validation.Manifest;
import sh.karpenter.api.validation.Manifests;
import sh.karpenter.api.validation.Validated;
import sh.karpenter.api.validation.Validator;
import sh.karpenter.cli.Main;

/**
 * {@code karpenter convert} on manifests in the forms upstream's getting-started guides, API references
 * and migration guides showed (cli/src/test/resources/convert/); every object it writes is checked with
 * the offline validator here, independently of the check the command makes itself.
 */
class ConvertCommandTest {
  @TempDir Path dir;

  private record Run(int exit, String out, String err) {
    /** The output's documents by "Kind name". */
    Map<String, JsonNode> objects() {
      return Manifests.read(out, "output").stream()
          .collect(Collectors.toMap(m -> m.kind() + " " + m.name(), Manifest::tree, (a, b) -> a, java.util.LinkedHashMap::new));
    }
  }

  private static Run run(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    CommandLine cli = Main.commandLine();
    cli.setOut(new PrintWriter(out));
    cli.setErr(new PrintWriter(err));
    int exit = cli.execute(args);
    return new Run(exit, out.toString(), err.toString());
  }

  private static String sample(String name) {
    try {
      return Path.of(ConvertCommandTest.class.getResource("/convert/" + name).toURI()).toString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException(e);
    }
  }

  private Run convertText(String yaml, String... flags) throws Exception {
    Path file = dir.resolve("input.yaml");
    Files.writeString(file, yaml);
    String[] args = new String[flags.length + 2];
    args[0] = "convert";
    System.arraycopy(flags, 0, args, 1, flags.length);
    args[args.length - 1] = file.toString();
    return run(args);
  }

  /** Every document of the output is a Kubernetes object; every Karpenter one is valid v1. */
  private static void assertValidV1(Run run) {
    assertThat(run.exit()).as(run.err()).isZero();
    Validator validator = Validator.standard();
    List<Manifest> manifests = Manifests.read(run.out(), "output");
    assertThat(manifests).isNotEmpty();
    for (Manifest manifest : manifests) {
      if (validator.handles(manifest)) {
        assertThat(manifest.apiVersion()).endsWith("/v1");
        Validated<?> validated = validator.validate(manifest);
        assertThat(validated.errors()).as("%s %s%n%s", manifest.kind(), manifest.name(), run.out()).isEmpty();
      }
    }
  }

  static List<String> samples() {
    return List.of("getting-started-v0.31.yaml", "inline-provider-v0.x.yaml", "provisioner-reference-v0.31.yaml", "v1beta1.yaml");
  }

  @ParameterizedTest
  @MethodSource("samples")
  void everySampleConvertsToValidV1(String sample) {
    Run run = run("convert", sample(sample));
    assertValidV1(run);
    assertThat(run.out()).startsWith("# karpenter convert: from ");
    assertThat(run.out().lines().filter(line -> !line.startsWith("#")).toList()).noneMatch(line -> line.matches(".*v1(alpha|beta).*"));
  }

  @Test
  void gettingStartedProvisionerAndNodeTemplate() {
    Run run = run("convert", sample("getting-started-v0.31.yaml"));
    Map<String, JsonNode> objects = run.objects();
    assertThat(objects).containsOnlyKeys("NodePool default", "EC2NodeClass default");

    JsonNode pool = objects.get("NodePool default").path("spec");
    assertThat(pool.at("/disruption/consolidationPolicy").asText()).isEqualTo("WhenEmptyOrUnderutilized");
    assertThat(pool.at("/disruption/consolidateAfter").asText()).isEqualTo("0s");
    assertThat(pool.at("/template/spec/expireAfter").asText()).isEqualTo("720h0m0s"); // ttlSecondsUntilExpired: 2592000
    assertThat(pool.at("/template/spec/nodeClassRef").toString())
        .isEqualTo("{\"group\":\"karpenter.k8s.aws\",\"kind\":\"EC2NodeClass\",\"name\":\"default\"}");
    assertThat(pool.at("/limits/cpu").asInt()).isEqualTo(1000);
    assertThat(keys(pool.at("/template/spec/requirements")))
        .containsExactly("karpenter.k8s.aws/instance-category", "karpenter.k8s.aws/instance-generation", "karpenter.sh/capacity-type",
            "kubernetes.io/arch", "kubernetes.io/os");

    JsonNode nodeClass = objects.get("EC2NodeClass default").path("spec");
    assertThat(nodeClass.at("/subnetSelectorTerms/0/tags/karpenter.sh~1discovery").asText()).isEqualTo("my-cluster");
    assertThat(nodeClass.at("/amiSelectorTerms/0/alias").asText()).isEqualTo("al2@latest");
    assertThat(nodeClass.has("amiFamily")).isFalse();
    assertThat(nodeClass.path("role").asText()).isEqualTo("$KARPENTER_NODE_ROLE");
    assertThat(nodeClass.at("/metadataOptions/httpPutResponseHopLimit").asInt()).isEqualTo(2);
    assertThat(run.out()).contains("# karpenter convert: spec.role: $KARPENTER_NODE_ROLE is a placeholder");
  }

  @Test
  void theRoleFlagFillsInTheNodeRole() {
    Run run = run("convert", "--role", "KarpenterNodeRole-my-cluster", sample("getting-started-v0.31.yaml"));
    assertValidV1(run);
    assertThat(run.objects().get("EC2NodeClass default").at("/spec/role").asText()).isEqualTo("KarpenterNodeRole-my-cluster");
  }

  @Test
  void anInlineProviderBecomesAnEc2NodeClassBeforeItsNodePool() {
    Run run = run("convert", sample("inline-provider-v0.x.yaml"));
    assertThat(run.objects()).containsOnlyKeys("EC2NodeClass default", "NodePool default");
    assertThat(List.copyOf(run.objects().keySet()).getFirst()).isEqualTo("EC2NodeClass default");
    JsonNode pool = run.objects().get("NodePool default").path("spec");
    assertThat(pool.at("/disruption/consolidationPolicy").asText()).isEqualTo("WhenEmpty");
    assertThat(pool.at("/disruption/consolidateAfter").asText()).isEqualTo("30s"); // ttlSecondsAfterEmpty: 30
    assertThat(pool.at("/template/spec/nodeClassRef/name").asText()).isEqualTo("default");
    assertThat(run.objects().get("EC2NodeClass default").at("/spec/instanceProfile").asText())
        .isEqualTo("KarpenterNodeInstanceProfile-my-cluster");
    assertThat(run.out()).contains("# karpenter convert: generated from the inline spec.provider of Provisioner default");
  }

  @Test
  void kubeletMovesToTheNodeClassAndASecondDifferentKubeletGetsACopy() {
    Run run = run("convert", sample("provisioner-reference-v0.31.yaml"));
    Map<String, JsonNode> objects = run.objects();
    assertThat(objects).containsOnlyKeys("EC2NodeClass shared", "NodePool gpu", "EC2NodeClass shared-general", "NodePool general");

    JsonNode shared = objects.get("EC2NodeClass shared").path("spec");
    assertThat(shared.at("/kubelet/maxPods").asInt()).isEqualTo(20);
    assertThat(shared.at("/kubelet/evictionSoftGracePeriod/nodefs.available").asText()).isEqualTo("1m30s");
    assertThat(shared.path("kubelet").has("containerRuntime")).isFalse();
    assertThat(shared.at("/subnetSelectorTerms").toString())
        .isEqualTo("[{\"id\":\"subnet-0a1b2c3d4e5f60718\"},{\"id\":\"subnet-0a1b2c3d4e5f60719\"}]");
    assertThat(shared.at("/amiSelectorTerms/0/alias").asText()).isEqualTo("bottlerocket@latest");
    assertThat(shared.at("/blockDeviceMappings/0/ebs/volumeSize").asText()).isEqualTo("100Gi");
    assertThat(shared.path("detailedMonitoring").asBoolean()).isTrue();
    assertThat(shared.path("userData").asText()).contains("kube-api-qps = 30");

    JsonNode gpu = objects.get("NodePool gpu").path("spec");
    assertThat(gpu.at("/template/spec/nodeClassRef/name").asText()).isEqualTo("shared");
    assertThat(gpu.at("/template/spec/expireAfter").asText()).isEqualTo("Never");
    assertThat(gpu.at("/template/metadata/labels/billing-team").asText()).isEqualTo("my-team");
    assertThat(gpu.at("/template/metadata/annotations/example.com~1owner").asText()).isEqualTo("my-team");
    assertThat(gpu.at("/template/spec/taints/0/key").asText()).isEqualTo("nvidia.com/gpu");
    assertThat(gpu.at("/template/spec/startupTaints/0/key").asText()).isEqualTo("example.com/another-taint");
    assertThat(gpu.at("/limits/nvidia.com~1gpu").asText()).isEqualTo("8");
    assertThat(gpu.path("weight").asInt()).isEqualTo(10);
    assertThat(keys(gpu.at("/template/spec/requirements")))
        .as("instance types named: no category or generation defaults")
        .containsExactly("node.kubernetes.io/instance-type", "topology.kubernetes.io/zone", "kubernetes.io/arch", "karpenter.sh/capacity-type",
            "kubernetes.io/os");

    assertThat(objects.get("EC2NodeClass shared-general").at("/spec/kubelet").toString()).isEqualTo("{\"maxPods\":110}");
    assertThat(objects.get("NodePool general").at("/spec/template/spec/nodeClassRef/name").asText()).isEqualTo("shared-general");
    assertThat(run.out())
        .contains("# karpenter convert: spec.kubeletConfiguration.containerRuntime has no v1 equivalent")
        .contains("# karpenter convert: a copy of EC2NodeClass shared with NodePool general's spec.kubeletConfiguration");
  }

  @Test
  void v1beta1ObjectsMoveToV1() {
    Run run = run("convert", sample("v1beta1.yaml"));
    Map<String, JsonNode> objects = run.objects();
    JsonNode pool = objects.get("NodePool default").path("spec");
    assertThat(pool.at("/template/spec/expireAfter").asText()).isEqualTo("720h");
    assertThat(pool.path("disruption").has("expireAfter")).isFalse();
    assertThat(pool.at("/disruption/consolidationPolicy").asText()).isEqualTo("WhenEmptyOrUnderutilized");
    assertThat(pool.at("/disruption/consolidateAfter").asText()).isEqualTo("0s");
    assertThat(pool.at("/disruption/budgets/0/nodes").asText()).isEqualTo("10%");
    assertThat(pool.at("/template/spec/nodeClassRef").toString())
        .isEqualTo("{\"group\":\"karpenter.k8s.aws\",\"kind\":\"EC2NodeClass\",\"name\":\"default\"}");
    assertThat(pool.at("/template/spec").has("kubelet")).isFalse();
    assertThat(pool.at("/template/spec").has("resources")).isFalse();
    assertThat(pool.at("/template/spec/requirements/1/minValues").asInt()).isEqualTo(2);

    JsonNode nodeClass = objects.get("EC2NodeClass default").path("spec");
    assertThat(nodeClass.at("/amiSelectorTerms/0/alias").asText()).isEqualTo("al2@latest");
    assertThat(nodeClass.has("amiFamily")).isFalse();
    assertThat(nodeClass.path("role").asText()).isEqualTo("KarpenterNodeRole-my-cluster");
    assertThat(nodeClass.at("/kubelet/maxPods").asInt()).isEqualTo(110);

    JsonNode batch = objects.get("NodePool batch").path("spec");
    assertThat(batch.at("/template/spec/expireAfter").asText()).isEqualTo("Never");
    assertThat(batch.at("/disruption/consolidationPolicy").asText()).isEqualTo("WhenEmpty");
    assertThat(batch.at("/template/spec/nodeClassRef/group").asText()).isEqualTo("karpenter.k8s.aws");

    JsonNode custom = objects.get("EC2NodeClass custom").path("spec");
    assertThat(custom.path("amiFamily").asText()).isEqualTo("Bottlerocket");
    assertThat(custom.at("/amiSelectorTerms/1/owner").asText()).isEqualTo("123456789012");
    assertThat(custom.at("/metadataOptions/httpPutResponseHopLimit").asInt()).isEqualTo(1);

    JsonNode claim = objects.get("NodeClaim default-abcde");
    assertThat(claim.path("apiVersion").asText()).isEqualTo("karpenter.sh/v1");
    assertThat(claim.path("spec").has("kubelet")).isFalse();
    assertThat(claim.has("status")).isFalse();
    assertThat(claim.at("/spec/nodeClassRef/group").asText()).isEqualTo("karpenter.k8s.aws");
  }

  @Test
  void stdinIsReadWithADash() throws Exception {
    java.io.InputStream stdin = System.in;
    try {
      System.setIn(new java.io.ByteArrayInputStream(Files.readAllBytes(Path.of(sample("v1beta1.yaml")))));
      Run run = run("convert", "-");
      assertValidV1(run);
      assertThat(run.out()).startsWith("# karpenter convert: from <stdin>, document 1");
    } finally {
      System.setIn(stdin);
    }
  }

  @Test
  void v1ObjectsAndOtherKindsPassThroughUnchanged() throws Exception {
    String yaml = """
        apiVersion: v1
        kind: ConfigMap
        metadata: {name: settings, namespace: karpenter}
        data: {a: b}
        ---
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: already}
        spec:
          template:
            spec:
              nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
              requirements: []
        """;
    Run run = convertText(yaml);
    assertValidV1(run);
    assertThat(run.objects().get("ConfigMap settings").toString())
        .isEqualTo("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"settings\",\"namespace\":\"karpenter\"},\"data\":{\"a\":\"b\"}}");
    assertThat(run.objects().get("NodePool already").at("/spec/template/spec/nodeClassRef/name").asText()).isEqualTo("default");
  }

  private static final String PROVISIONER = """
      apiVersion: karpenter.sh/v1alpha5
      kind: Provisioner
      metadata: {name: broken}
      spec:
      """;

  static List<Object[]> badInput() {
    return List.of(
        new Object[] {PROVISIONER + "  providerRef: {name: a}\n  ttlSecondsAfterEmpty: 30\n  consolidation: {enabled: true}\n",
            "Provisioner broken: spec.ttlSecondsAfterEmpty: set together with spec.consolidation.enabled: true"},
        new Object[] {PROVISIONER + "  ttlSecondsAfterEmpty: 30\n",
            "Provisioner broken: spec.providerRef: neither providerRef nor provider is set"},
        new Object[] {PROVISIONER + "  providerRef: {name: a}\n  ttlSecondsAfterEmpty: soon\n",
            "Provisioner broken: spec.ttlSecondsAfterEmpty: expected a whole number of seconds, got \"soon\""},
        new Object[] {PROVISIONER + "  providerRef: {name: a}\n  ttlSecondsUntilExpired: -5\n",
            "Provisioner broken: spec.ttlSecondsUntilExpired: expected a whole number of seconds, got -5"},
        new Object[] {PROVISIONER + "  providerRef: {name: a}\n  ttlSecondsAfterEmptee: 30\n",
            "Provisioner broken: spec.ttlSecondsAfterEmptee: unknown field"},
        new Object[] {PROVISIONER + "  providerRef: {name: a}\n  provider: {subnetSelector: {a: b}}\n",
            "Provisioner broken: spec.provider: set together with spec.providerRef"},
        new Object[] {PROVISIONER + "  provider: {subnetSelector: {a: b}}\n",
            "Provisioner broken: spec.provider.securityGroupSelector: required"},
        new Object[] {PROVISIONER + "  providerRef: {name: a}\n  requirements:\n    - {key: kubernetes.io/arch, operator: Maybe, values: [amd64]}\n",
            "NodePool broken: spec.template.spec.requirements[0].operator"},
        new Object[] {"""
            apiVersion: karpenter.k8s.aws/v1alpha1
            kind: AWSNodeTemplate
            metadata: {name: ubuntu}
            spec:
              amiFamily: Ubuntu
              subnetSelector: {a: b}
              securityGroupSelector: {a: b}
            """, "AWSNodeTemplate ubuntu: spec.amiFamily: Ubuntu has no v1 alias"},
        new Object[] {"""
            apiVersion: karpenter.k8s.aws/v1alpha1
            kind: AWSNodeTemplate
            metadata: {name: custom}
            spec:
              amiFamily: Custom
              subnetSelector: {a: b}
              securityGroupSelector: {a: b}
            """, "AWSNodeTemplate custom: spec.amiFamily: Custom needs AMI selector terms"},
        new Object[] {"""
            apiVersion: karpenter.sh/v1alpha4
            kind: Provisioner
            metadata: {name: old}
            spec: {}
            """, "Provisioner old: apiVersion: cannot convert karpenter.sh/v1alpha4 Provisioner"},
        new Object[] {"""
            apiVersion: karpenter.sh/v1beta1
            kind: NodePool
            metadata: {name: odd}
            spec:
              template:
                spec:
                  nodeClassRef: {name: default}
                  requirements: []
              disruption: {consolidationPolicy: Sometimes}
            """, "NodePool odd: spec.disruption.consolidationPolicy: expected WhenUnderutilized or WhenEmpty, got \"Sometimes\""},
        new Object[] {"""
            apiVersion: karpenter.sh/v1beta1
            kind: NodePool
            metadata: {name: noref}
            spec:
              template:
                spec:
                  requirements: []
            """, "NodePool noref: spec.template.spec.nodeClassRef: required"});
  }

  @ParameterizedTest
  @MethodSource("badInput")
  void badInputIsOneLineNamingTheDocumentObjectAndField(String yaml, String expected) throws Exception {
    Run run = convertText(yaml);
    assertThat(run.exit()).as(run.out()).isEqualTo(2);
    assertThat(run.out()).isEmpty();
    assertThat(run.err().strip())
        .startsWith("error: " + dir.resolve("input.yaml") + ", document 1: ")
        .contains(expected)
        .doesNotContain("\n", "\tat ", "Exception");
  }

  @ParameterizedTest
  @ValueSource(strings = {"/does/not/exist.yaml"})
  void anUnreadableFileIsNamed(String path) {
    Run run = run("convert", path);
    assertThat(run.exit()).isEqualTo(2);
    assertThat(run.err()).startsWith("error: ").contains(path);
  }

  private static List<String> keys(JsonNode requirements) {
    Function<JsonNode, String> key = r -> r.path("key").asText();
    List<String> keys = new java.util.ArrayList<>();
    requirements.forEach(r -> keys.add(key.apply(r)));
    return keys;
  }
}
