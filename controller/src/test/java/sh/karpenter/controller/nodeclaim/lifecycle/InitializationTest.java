package sh.karpenter.controller.nodeclaim.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import sh.karpenter.api.v1.NodeClaim;

class InitializationTest {

  private static final NodeClaim NODE_CLAIM = Manifests.nodeClaim("""
      metadata: {name: c}
      spec:
        startupTaints: [{key: example.com/agent-not-ready, effect: NoSchedule}]
        resources:
          requests: {cpu: '1', memory: 1Gi, ephemeral-storage: 1Gi, example.com/gpu: '1', example.com/unused: '0'}
      """);

  private static Node node(String ready, String taints, String gpus) {
    return Manifests.node("""
        metadata: {name: n}
        spec:
          taints: %s
        status:
          conditions: [{type: Ready, status: '%s'}]
          allocatable: {cpu: '4', memory: 8Gi, example.com/gpu: '%s'}
        """.formatted(taints, ready, gpus));
  }

  @Test
  void aReadyNodeWithoutStartupOrEphemeralTaintsAndWithItsDevicesIsInitialized() {
    // ephemeral-storage was requested but is not reported: only extended resources are waited for.
    assertThat(Initialization.blocker(node("True", "[{key: dedicated, effect: NoSchedule}]", "1"), NODE_CLAIM)).isEmpty();
  }

  @Test
  void aNotReadyNodeIsNot() {
    assertThat(Initialization.blocker(node("False", "[]", "1"), NODE_CLAIM))
        .hasValueSatisfying(b -> assertThat(b.reason()).isEqualTo("NodeNotReady"));
    assertThat(Initialization.blocker(Manifests.node("metadata: {name: n}"), NODE_CLAIM))
        .hasValueSatisfying(b -> assertThat(b.reason()).isEqualTo("NodeNotReady"));
  }

  @Test
  void aStartupTaintBlocksWhateverItsValue() {
    assertThat(Initialization.blocker(node("True", "[{key: example.com/agent-not-ready, value: x, effect: NoSchedule}]", "1"), NODE_CLAIM))
        .hasValueSatisfying(b -> {
          assertThat(b.reason()).isEqualTo("StartupTaintsExist");
          assertThat(b.message()).contains("example.com/agent-not-ready=x:NoSchedule");
        });
  }

  @ParameterizedTest
  @CsvSource({
      "node.kubernetes.io/not-ready, NoSchedule",
      "node.kubernetes.io/unreachable, NoExecute",
      "node.cloudprovider.kubernetes.io/uninitialized, NoSchedule",
      "karpenter.sh/unregistered, NoExecute",
      "readiness.k8s.io/network, NoSchedule"})
  void knownEphemeralTaintsBlock(String key, String effect) {
    assertThat(Initialization.blocker(node("True", "[{key: " + key + ", effect: " + effect + "}]", "1"), NODE_CLAIM))
        .hasValueSatisfying(b -> assertThat(b.reason()).isEqualTo("KnownEphemeralTaintsExist"));
  }

  @Test
  void aRequestedDeviceWithoutAllocatableBlocks() {
    assertThat(Initialization.blocker(node("True", "[]", "0"), NODE_CLAIM))
        .hasValueSatisfying(b -> {
          assertThat(b.reason()).isEqualTo("ResourceNotRegistered");
          assertThat(b.message()).contains("example.com/gpu");
        });
  }

  @Test
  void extendedResourcesAreThoseOutsideKubernetesIo() {
    assertThat(Initialization.isExtended("nvidia.com/gpu")).isTrue();
    assertThat(Initialization.isExtended("cpu")).isFalse();
    assertThat(Initialization.isExtended("hugepages-2Mi")).isFalse();
    assertThat(Initialization.isExtended("kubernetes.io/batch")).isFalse();
    assertThat(Initialization.isExtended("example.kubernetes.io/thing")).isFalse();
  }
}
