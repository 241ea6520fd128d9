package sh.karpenter.controller.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.controller.provisioning.Prebinder.Decision;
import sh.karpenter.controller.state.PodRef;

/** Which recorded pods the prebinder binds, and to which Nodes. */
class PrebinderTest {
  private static final KubernetesSerialization YAML = new KubernetesSerialization();
  private static final PodRef REF = new PodRef("team", "web", "web-uid");

  private static final String PENDING = """
      apiVersion: v1
      kind: Pod
      metadata: {name: web, namespace: team, uid: web-uid}
      spec:
        containers: [{name: c}]
        tolerations: []
      status:
        phase: Pending
        conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
      """;

  private static final String NODE = """
      apiVersion: v1
      kind: Node
      metadata: {name: node-1}
      spec:
        providerID: kwok://node-1
        taints: []
      """;

  private static Pod pod(UnaryOperator<String> change) {
    return YAML.unmarshal(change.apply(PENDING), Pod.class);
  }

  private static Node node(String taints) {
    return YAML.unmarshal(NODE.replace("taints: []", "taints: " + taints), Node.class);
  }

  static Stream<Arguments> notBound() {
    return Stream.of(
        Arguments.of(Decision.REPLACED, (UnaryOperator<String>) y -> y.replace("uid: web-uid", "uid: other-uid")),
        Arguments.of(Decision.BOUND, (UnaryOperator<String>) y -> y.replace("spec:\n", "spec:\n  nodeName: elsewhere\n")),
        Arguments.of(Decision.TERMINATING, (UnaryOperator<String>) y -> y.replace("uid: web-uid}",
            "uid: web-uid, deletionTimestamp: \"2026-01-01T00:00:00Z\"}")),
        Arguments.of(Decision.FINISHED, (UnaryOperator<String>) y -> y.replace("phase: Pending", "phase: Succeeded")),
        Arguments.of(Decision.FINISHED, (UnaryOperator<String>) y -> y.replace("phase: Pending", "phase: Failed")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("notBound")
  void leavesAlonePodsThatAreNotPendingAnyMore(Decision expected, UnaryOperator<String> change) {
    assertThat(Prebinder.decide(REF, pod(change), node("[]"))).isEqualTo(expected);
    assertThat(Prebinder.decide(REF, pod(change), null)).isEqualTo(expected);
  }

  @Test
  void bindsAPendingPodWithTheRecordedUid() {
    assertThat(Prebinder.decide(REF, pod(UnaryOperator.identity()), node("[]"))).isEqualTo(Decision.BIND);
    assertThat(Prebinder.decide(REF, pod(UnaryOperator.identity()), null)).isEqualTo(Decision.BIND);
  }

  @Test
  void aDeletedPodIsGone() {
    assertThat(Prebinder.decide(REF, null, node("[]"))).isEqualTo(Decision.GONE);
  }

  @Test
  void aNodeIsRegisteredOnceTheUnregisteredTaintIsGone() {
    assertThat(Prebinder.registered(node("[{key: karpenter.sh/unregistered, effect: NoExecute}]"))).isFalse();
    assertThat(Prebinder.registered(node("[{key: example.com/startup, effect: NoSchedule}]"))).isTrue();
    assertThat(Prebinder.registered(new NodeBuilder().withNewMetadata().withName("bare").endMetadata().build())).isTrue();
  }

  @Test
  void aPodIsNotBoundWhereANoExecuteTaintWouldEvictIt() {
    Node node = node("[{key: example.com/drain, value: now, effect: NoExecute}, {key: example.com/startup, effect: NoSchedule}]");
    assertThat(Prebinder.decide(REF, pod(UnaryOperator.identity()), node)).isEqualTo(Decision.UNTOLERATED);

    Pod tolerating = pod(y -> y.replace("tolerations: []",
        "tolerations: [{key: example.com/drain, operator: Equal, value: now, effect: NoExecute}, {key: example.com/startup, operator: Exists}]"));
    assertThat(Prebinder.decide(REF, tolerating, node)).isEqualTo(Decision.BIND);
  }

  @Test
  void aStartupTaintHoldsAPodBackButTheNodeNotBeingReadyDoesNot() {
    assertThat(Prebinder.decide(REF, pod(UnaryOperator.identity()), node("[{key: example.com/startup, effect: NoSchedule}]")))
        .isEqualTo(Decision.UNTOLERATED);
    Node notReady = node("[{key: node.kubernetes.io/not-ready, effect: NoSchedule}, {key: readiness.k8s.io/cni, effect: NoSchedule},"
        + " {key: example.com/soft, effect: PreferNoSchedule}]");
    assertThat(Prebinder.decide(REF, pod(UnaryOperator.identity()), notReady)).isEqualTo(Decision.BIND);
  }

  static Stream<Arguments> tolerations() {
    Taint taint = new TaintBuilder().withKey("k").withValue("v").withEffect("NoExecute").build();
    return Stream.of(
        Arguments.of(new TolerationBuilder().withOperator("Exists").build(), taint, true),
        Arguments.of(new TolerationBuilder().withKey("k").withOperator("Exists").build(), taint, true),
        Arguments.of(new TolerationBuilder().withKey("k").withOperator("Exists").withEffect("NoSchedule").build(), taint, false),
        Arguments.of(new TolerationBuilder().withKey("k").withValue("v").build(), taint, true),
        Arguments.of(new TolerationBuilder().withKey("k").withOperator("Equal").withValue("w").build(), taint, false),
        Arguments.of(new TolerationBuilder().withKey("other").withOperator("Exists").build(), taint, false),
        Arguments.of(new TolerationBuilder().withKey("k").withOperator("Bogus").build(), taint, false),
        Arguments.of(new TolerationBuilder().withOperator("Exists").withEffect("Bogus").build(), taint, false),
        Arguments.of(new TolerationBuilder().withKey("k").withOperator("Equal").build(),
            new TaintBuilder().withKey("k").withEffect("NoExecute").build(), true));
  }

  @ParameterizedTest
  @MethodSource("tolerations")
  void tolerationsMatchTaintsAsKubernetesDoes(Toleration toleration, Taint taint, boolean expected) {
    assertThat(Prebinder.tolerates(toleration, taint)).isEqualTo(expected);
  }
}
