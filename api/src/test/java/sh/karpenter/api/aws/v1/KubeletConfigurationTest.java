package sh.karpenter.api.aws.v1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

import io.fabric8.kubernetes.api.model.IntOrString;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.api.aws.v1.KubeletConfiguration.Violation;

/**
 * Upstream's kubeletconfiguration_validation_test.go and kubeletconfiguration_test.go: what
 * {@link KubeletConfiguration#validate()} accepts and rejects, and what {@link KubeletConfiguration#parse()}
 * reads.
 */
class KubeletConfigurationTest {

  private static KubeletConfiguration kubelet(Object... namesAndValues) {
    Map<String, Object> values = new LinkedHashMap<>();
    for (int i = 0; i < namesAndValues.length; i += 2) {
      values.put((String) namesAndValues[i], namesAndValues[i + 1]);
    }
    return KubeletConfiguration.of(values);
  }

  private static Arguments entry(String name, KubeletConfiguration kubelet) {
    return Arguments.of(name, kubelet);
  }

  static Stream<Arguments> accepted() {
    return Stream.of(
        entry("an empty configuration", kubelet()),
        entry("the fields Karpenter reads for scheduling", kubelet(
            "maxPods", 110, "podsPerCore", 10, "kubeReserved", Map.of("cpu", "200m", "memory", "100Mi"),
            "systemReserved", Map.of("ephemeral-storage", "1Gi", "pid", "1000"), "evictionHard", Map.of("memory.available", "5%"))),
        entry("a field only the kubelet library knows about", kubelet("serializeImagePulls", false)),
        entry("a nested subtree", kubelet("logging", Map.of(
            "format", "json", "flushFrequency", "5s", "options", Map.of("json", Map.of("infoBufferSize", "100Mi", "splitStream", true))))),
        entry("an eviction threshold as a quantity rather than a percentage", kubelet("evictionHard", Map.of("nodefs.available", "500Mi"))),
        entry("matching evictionSoft and evictionSoftGracePeriod", kubelet(
            "evictionSoft", Map.of("memory.available", "10%"), "evictionSoftGracePeriod", Map.of("memory.available", "1m"))),
        entry("imageGC thresholds in the correct order", kubelet("imageGCHighThresholdPercent", 80, "imageGCLowThresholdPercent", 60)),
        entry("zero-valued fields", kubelet("maxPods", 0, "podsPerCore", 0, "evictionMaxPodGracePeriod", 0)),
        entry("a CEL expression for maxPods", kubelet("maxPods", "vcpus * 10")),
        entry("a CEL expression for kubeReserved", kubelet("kubeReserved", Map.of("memory", "memory * 0.1"))),
        entry("a CEL expression for systemReserved", kubelet("systemReserved", Map.of("cpu", "vcpus * 10m"))),
        entry("a CEL expression for maxPods alongside other fields", kubelet("maxPods", "vcpus * 10", "podsPerCore", 10)),
        entry("the kubelet's TypeMeta and nested structs", kubelet(
            "apiVersion", "kubelet.config.k8s.io/v1beta1", "kind", "KubeletConfiguration",
            "authentication", Map.of("webhook", Map.of("enabled", true, "cacheTTL", "2m")),
            "reservedMemory", List.of(Map.of("numaNode", 0, "limits", Map.of("memory", "1Gi"))),
            "featureGates", Map.of("InPlacePodVerticalScaling", true),
            "logging", Map.of("flushFrequency", 5000000000L, "verbosity", 4))));
  }

  @ParameterizedTest(name = "should accept {0}")
  @MethodSource("accepted")
  void accepts(String name, KubeletConfiguration kubelet) {
    assertThat(kubelet.validate()).isEmpty();
  }

  static Stream<Arguments> rejected() {
    return Stream.of(
        entry("a field the kubelet library doesn't declare", kubelet("notAKubeletField", true)),
        entry("an unknown field nested in a subtree", kubelet("logging", Map.of("bogusLoggingField", true))),
        entry("an unknown field nested three levels deep", kubelet("logging", Map.of("options", Map.of("json", Map.of("nope", "x"))))),
        entry("a field with the wrong type", kubelet("podsPerCore", "ten")),
        entry("a nested field with the wrong type", kubelet("logging", Map.of("format", 12345))),
        entry("arbitrary junk", kubelet("a", Map.of("b", List.of(1, "two", true)))),
        entry("a negative maxPods", kubelet("maxPods", -1)),
        entry("a negative podsPerCore", kubelet("podsPerCore", -1)),
        entry("a negative evictionMaxPodGracePeriod", kubelet("evictionMaxPodGracePeriod", -1)),
        entry("imageGCHighThresholdPercent above 100", kubelet("imageGCHighThresholdPercent", 101)),
        entry("imageGCHighThresholdPercent below 0", kubelet("imageGCHighThresholdPercent", -1)),
        entry("imageGCLowThresholdPercent above 100", kubelet("imageGCLowThresholdPercent", 101)),
        entry("imageGCLowThresholdPercent below 0", kubelet("imageGCLowThresholdPercent", -1)),
        entry("an unreservable resource in kubeReserved", kubelet("kubeReserved", Map.of("gpu", "1"))),
        entry("an unreservable resource in systemReserved", kubelet("systemReserved", Map.of("gpu", "1"))),
        entry("a negative reservation in kubeReserved", kubelet("kubeReserved", Map.of("cpu", "-1"))),
        entry("a negative reservation in systemReserved", kubelet("systemReserved", Map.of("cpu", "-1"))),
        entry("an invalid eviction signal in evictionHard", kubelet("evictionHard", Map.of("notASignal", "5%"))),
        entry("an invalid eviction signal in evictionSoft", kubelet("evictionSoft", Map.of("notASignal", "5%"))),
        entry("an invalid eviction signal in evictionMinimumReclaim", kubelet("evictionMinimumReclaim", Map.of("notASignal", "500Mi"))),
        entry("an invalid eviction signal in evictionSoftGracePeriod", kubelet("evictionSoftGracePeriod", Map.of("notASignal", "1m"))),
        entry("an eviction threshold that is neither a percentage nor a quantity in evictionHard", kubelet("evictionHard", Map.of("memory.available", "lots"))),
        entry("an eviction threshold that is neither a percentage nor a quantity in evictionSoft", kubelet("evictionSoft", Map.of("memory.available", "lots"))),
        entry("an eviction threshold that is neither a percentage nor a quantity in evictionMinimumReclaim",
            kubelet("evictionMinimumReclaim", Map.of("memory.available", "lots"))),
        entry("a percentage above 100", kubelet("evictionHard", Map.of("memory.available", "101%"))),
        entry("a negative eviction quantity", kubelet("evictionHard", Map.of("memory.available", "-1Mi"))),
        entry("an evictionSoftGracePeriod that isn't a duration", kubelet(
            "evictionSoft", Map.of("memory.available", "10%"), "evictionSoftGracePeriod", Map.of("memory.available", "soon"))),
        entry("a negative evictionSoftGracePeriod", kubelet(
            "evictionSoft", Map.of("memory.available", "10%"), "evictionSoftGracePeriod", Map.of("memory.available", "-1m"))),
        entry("an evictionSoft threshold with no matching grace period", kubelet(
            "evictionSoft", Map.of("memory.available", "10%"), "evictionSoftGracePeriod", Map.of("nodefs.available", "1m"))),
        entry("an evictionSoftGracePeriod with no matching threshold", kubelet("evictionSoftGracePeriod", Map.of("memory.available", "1m"))),
        entry("evictionSoft with no evictionSoftGracePeriod at all", kubelet("evictionSoft", Map.of("memory.available", "10%"))),
        entry("an imageGC high threshold below the low threshold", kubelet("imageGCHighThresholdPercent", 60, "imageGCLowThresholdPercent", 80)),
        entry("an imageGC high threshold equal to the low threshold", kubelet("imageGCHighThresholdPercent", 70, "imageGCLowThresholdPercent", 70)),
        entry("an int32 field out of range", kubelet("port", 3_000_000_000L)),
        entry("a malformed duration", kubelet("syncFrequency", "1 minute")),
        entry("a malformed quantity", kubelet("logging", Map.of("options", Map.of("text", Map.of("infoBufferSize", "lots"))))),
        entry("a field name in the wrong case", kubelet("MaxPods", 10)));
  }

  @ParameterizedTest(name = "should reject {0}")
  @MethodSource("rejected")
  void rejects(String name, KubeletConfiguration kubelet) {
    assertThat(kubelet.validate()).isNotEmpty();
  }

  @Test
  void shouldRejectAFieldKarpenterSetsItself() {
    List<Violation> violations = kubelet("registerWithTaints", List.of(Map.of("key", "example.com/dedicated", "value", "gpu", "effect", "NoSchedule"))).validate();

    assertThat(violations).singleElement().satisfies(v -> assertThat(v.toString()).isEqualTo(
        "spec.kubelet.registerWithTaints: can't be set, Karpenter sets it from the NodeClaim's taints so the node registers unschedulable until it's ready"));
  }

  @Test
  void shouldReportEveryViolationRatherThanStoppingAtTheFirst() {
    List<Violation> violations = kubelet(
        "podsPerCore", -1, "kubeReserved", Map.of("gpu", "1", "cpu", "-1"), "evictionHard", Map.of("notASignal", "5%")).validate();

    assertThat(violations).extracting(Violation::toString).containsExactlyInAnyOrder(
        "spec.kubelet.evictionHard: \"notASignal\" isn't a valid eviction signal, must be one of memory.available, nodefs.available,"
            + " nodefs.inodesFree, imagefs.available, imagefs.inodesFree, pid.available",
        "spec.kubelet.kubeReserved[cpu]: \"-1\" can't be a negative resource quantity",
        "spec.kubelet.kubeReserved: \"gpu\" isn't a reservable resource, must be one of cpu, memory, ephemeral-storage, pid",
        "spec.kubelet.podsPerCore: -1 can't be negative");
  }

  @Test
  void shouldNameTheOffendingFieldInTheError() {
    assertThat(kubelet("notAKubeletField", true).validate()).extracting(Violation::toString)
        .containsExactly("spec.kubelet: unknown field \"notAKubeletField\"");
    assertThat(kubelet("logging", Map.of("options", Map.of("json", Map.of("nope", "x")))).validate()).extracting(Violation::toString)
        .containsExactly("spec.kubelet: unknown field \"logging.options.json.nope\"");
  }

  @Test
  void aTypeErrorIsReportedAloneLikeGosDecoder() {
    assertThat(kubelet("notAKubeletField", true, "podsPerCore", "ten").validate()).extracting(Violation::toString)
        .containsExactly("spec.kubelet.podsPerCore: cannot unmarshal string into a field of type int32");
  }

  /**
   * Upstream's "ValidateKubeletConfig/ParseKubeletConfig invariant": whatever {@link KubeletConfiguration#parse()}
   * cannot read, {@link KubeletConfiguration#validate()} rejects, so no invalid configuration reaches the
   * code that reads it.
   */
  static Stream<Arguments> undecodable() {
    return Stream.of(
        entry("evictionSoftGracePeriod that isn't a duration", kubelet(
            "evictionSoft", Map.of("memory.available", "5%"), "evictionSoftGracePeriod", Map.of("memory.available", "5x"))),
        entry("clusterDNS as a string rather than a list", kubelet("clusterDNS", "10.0.0.10")),
        entry("maxPods as a bool", kubelet("maxPods", true)),
        entry("podsPerCore as a string", kubelet("podsPerCore", "10")),
        entry("kubeReserved with non-string values", kubelet("kubeReserved", Map.of("cpu", 1))),
        entry("systemReserved with non-string values", kubelet("systemReserved", Map.of("cpu", 1))),
        entry("evictionHard with non-string values", kubelet("evictionHard", Map.of("memory.available", 5))),
        entry("evictionSoft with non-string values", kubelet("evictionSoft", Map.of("memory.available", 5))),
        entry("evictionMaxPodGracePeriod as a string", kubelet("evictionMaxPodGracePeriod", "30")),
        entry("imageGCHighThresholdPercent as a string", kubelet("imageGCHighThresholdPercent", "80")),
        entry("imageGCLowThresholdPercent as a string", kubelet("imageGCLowThresholdPercent", "70")),
        entry("cpuCFSQuota as a string", kubelet("cpuCFSQuota", "true")));
  }

  @ParameterizedTest(name = "should reject anything ParseKubeletConfig can't decode: {0}")
  @MethodSource("undecodable")
  void shouldRejectAnythingParseCannotDecode(String name, KubeletConfiguration kubelet) {
    assertThatIllegalArgumentException().isThrownBy(kubelet::parse);
    assertThat(kubelet.validate()).isNotEmpty();
  }

  @Test
  void shouldHaveAnInvariantEntryForEveryParsedField() {
    assertThat(ParsedKubeletConfig.FIELDS).containsExactlyInAnyOrder(
        "clusterDNS", "cpuCFSQuota", "evictionHard", "evictionMaxPodGracePeriod", "evictionSoft",
        "evictionSoftGracePeriod", "imageGCHighThresholdPercent", "imageGCLowThresholdPercent",
        "kubeReserved", "maxPods", "podsPerCore", "systemReserved");
  }

  @Test
  void shouldExtractEveryInterpretedField() {
    ParsedKubeletConfig parsed = kubelet(
        "clusterDNS", List.of("10.0.1.100"), "maxPods", 110, "podsPerCore", 2, "systemReserved", Map.of("cpu", "100m"),
        "kubeReserved", Map.of("memory", "100Mi"), "evictionHard", Map.of("memory.available", "5%"), "evictionSoft", Map.of("memory.available", "10%"),
        "evictionSoftGracePeriod", Map.of("memory.available", "1m"), "evictionMaxPodGracePeriod", 60, "imageGCHighThresholdPercent", 85,
        "imageGCLowThresholdPercent", 80, "cpuCFSQuota", true, "serializeImagePulls", false).parse();

    assertThat(parsed.clusterDNS()).containsExactly("10.0.1.100");
    assertThat(parsed.maxPodsValue()).contains(110);
    assertThat(parsed.podsPerCore()).isEqualTo(2);
    assertThat(parsed.systemReserved()).containsEntry("cpu", "100m");
    assertThat(parsed.kubeReserved()).containsEntry("memory", "100Mi");
    assertThat(parsed.evictionHard()).containsEntry("memory.available", "5%");
    assertThat(parsed.evictionSoft()).containsEntry("memory.available", "10%");
    assertThat(parsed.evictionSoftGracePeriod().get("memory.available").duration()).isEqualTo(Duration.ofMinutes(1));
    assertThat(parsed.evictionMaxPodGracePeriod()).isEqualTo(60);
    assertThat(parsed.imageGCHighThresholdPercent()).isEqualTo(85);
    assertThat(parsed.imageGCLowThresholdPercent()).isEqualTo(80);
    assertThat(parsed.cpuCFSQuota()).isTrue();
    assertThat(parsed.hasExpressions()).isFalse();
  }

  @Test
  void shouldReturnAnEmptyStructForAnEmptyConfiguration() {
    ParsedKubeletConfig parsed = kubelet().parse();
    assertThat(parsed.maxPods()).isNull();
    assertThat(parsed.kubeReserved()).isEmpty();
    assertThat(parsed.maxPodsValue()).isEmpty();
    assertThat(parsed.hasExpressions()).isFalse();
  }

  @Test
  void shouldKeepMaxPodsAsAStringWhenItHoldsACelExpression() {
    ParsedKubeletConfig parsed = kubelet("maxPods", "vcpus * 10").parse();
    assertThat(parsed.maxPods()).isEqualTo(new IntOrString("vcpus * 10"));
    assertThat(parsed.maxPodsValue()).isEmpty();
    assertThat(parsed.hasExpressions()).isTrue();
    assertThat(parsed.hasResourceExpressions()).isFalse();
  }

  @ParameterizedTest
  @ValueSource(strings = {"kubeReserved", "systemReserved"})
  void shouldDetectExpressionsInEitherReservedMap(String field) {
    ParsedKubeletConfig parsed = kubelet(field, Map.of("cpu", "200m", "memory", "memory * 0.1")).parse();
    assertThat(parsed.hasResourceExpressions()).isTrue();
    assertThat(parsed.hasExpressions()).isTrue();
  }

  @Test
  void shouldReturnPassthroughFieldsKarpenterDoesNotMapSorted() {
    assertThat(kubelet("serializeImagePulls", false, "maxPods", 10, "containerLogMaxSize", "10Mi").unmanagedFields())
        .containsExactly("containerLogMaxSize", "serializeImagePulls");
    assertThat(kubelet().unmanagedFields()).isEmpty();
  }

  @Test
  void writesCanonicalJson() {
    Map<String, Object> ordered = new LinkedHashMap<>();
    ordered.put("maxPods", 110);
    ordered.put("evictionHard", new java.util.TreeMap<>(Map.of("nodefs.available", "10%", "memory.available", "5%")).descendingMap());
    assertThat(KubeletConfiguration.of(ordered).canonicalJson())
        .isEqualTo("{\"evictionHard\":{\"memory.available\":\"5%\",\"nodefs.available\":\"10%\"},\"maxPods\":110}");
    assertThat(kubelet().canonicalJson()).isEqualTo("null");
  }
}
