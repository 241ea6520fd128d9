package sh.karpenter.controller.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;

/** Which pods and nodes trigger provisioning. */
class PodTriggerTest {
  private static final KubernetesSerialization YAML = new KubernetesSerialization();

  private static final String UNSCHEDULABLE = """
      apiVersion: v1
      kind: Pod
      metadata: {name: web, namespace: team, uid: web-uid}
      spec: {containers: [{name: c}]}
      status:
        phase: Pending
        conditions: [{type: PodScheduled, status: "False", reason: Unschedulable}]
      """;

  private static Pod pod(UnaryOperator<String> change) {
    return YAML.unmarshal(change.apply(UNSCHEDULABLE), Pod.class);
  }

  static Stream<Arguments> notProvisionable() {
    return Stream.of(
        Arguments.of("not yet tried by kube-scheduler", (UnaryOperator<String>) y -> y.replace(
            "conditions: [{type: PodScheduled, status: \"False\", reason: Unschedulable}]", "conditions: []")),
        Arguments.of("gated", (UnaryOperator<String>) y -> y.replace("reason: Unschedulable", "reason: SchedulingGated")),
        Arguments.of("bound", (UnaryOperator<String>) y -> y.replace("spec: {", "spec: {nodeName: node-1, ")),
        Arguments.of("terminating", (UnaryOperator<String>) y -> y.replace("uid: web-uid}", "uid: web-uid, deletionTimestamp: \"2026-01-01T00:00:00Z\"}")),
        Arguments.of("finished", (UnaryOperator<String>) y -> y.replace("phase: Pending", "phase: Failed")),
        Arguments.of("preempting", (UnaryOperator<String>) y -> y.replace("phase: Pending", "phase: Pending\n  nominatedNodeName: node-1")),
        Arguments.of("DaemonSet pod", (UnaryOperator<String>) y -> y.replace("uid: web-uid}",
            "uid: web-uid, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: ds-uid}]}")),
        Arguments.of("mirror pod", (UnaryOperator<String>) y -> y.replace("uid: web-uid}",
            "uid: web-uid, annotations: {kubernetes.io/config.mirror: abc}}")));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("notProvisionable")
  void ignores(String name, UnaryOperator<String> change) {
    assertThat(PodTrigger.isProvisionable(pod(change))).isFalse();
  }

  @Test
  void takesPodsKubeSchedulerMarkedUnschedulable() {
    assertThat(PodTrigger.isProvisionable(pod(UnaryOperator.identity()))).isTrue();
  }

  private static sh.karpenter.api.v1.NodePool pool(long generation, String ready) {
    String status = ready == null ? "" : "\nstatus:\n  conditions: [{type: Ready, status: \"" + ready + "\", reason: R, lastTransitionTime: \"2026-01-01T00:00:00Z\"}]";
    return YAML.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: general, generation: %d}
        spec: {template: {spec: {nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}, requirements: []}}}""".formatted(generation) + status,
        sh.karpenter.api.v1.NodePool.class);
  }

  @Test
  void nodePoolsTriggerWhenTheirSpecChangesOrTheyTurnReady() {
    assertThat(PodTrigger.retriggers(pool(1, null), pool(1, "True"))).as("Ready set True").isTrue();
    assertThat(PodTrigger.retriggers(pool(1, "Unknown"), pool(1, "True"))).as("Unknown to True").isTrue();
    assertThat(PodTrigger.retriggers(pool(1, "True"), pool(2, "True"))).as("new generation").isTrue();
    assertThat(PodTrigger.retriggers(pool(1, "True"), pool(1, "True"))).as("status write, still Ready").isFalse();
    assertThat(PodTrigger.retriggers(pool(1, "True"), pool(1, "False"))).as("turning not Ready").isFalse();
    assertThat(PodTrigger.retriggers(pool(1, null), pool(1, "Unknown"))).as("still not Ready").isFalse();
  }

  @Test
  void nodesTriggerOnlyWithTheDisruptedTaint() {
    Node disrupted = YAML.unmarshal("""
        apiVersion: v1
        kind: Node
        metadata: {name: n, uid: n-uid}
        spec: {taints: [{key: karpenter.sh/disrupted, effect: NoSchedule}]}
        """, Node.class);
    Node other = YAML.unmarshal("""
        apiVersion: v1
        kind: Node
        metadata: {name: n, uid: n-uid}
        spec: {taints: [{key: karpenter.sh/unregistered, effect: NoExecute}]}
        """, Node.class);

    assertThat(NodeTrigger.isDisrupted(disrupted)).isTrue();
    assertThat(NodeTrigger.isDisrupted(other)).isFalse();
  }
}
