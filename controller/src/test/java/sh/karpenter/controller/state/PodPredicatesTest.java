package sh.karpenter.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Which pods of a deleting node provisioning plans new capacity for. */
class PodPredicatesTest {
  private static final KubernetesSerialization YAML = new KubernetesSerialization();
  private static final Instant NOW = Instant.parse("2026-01-01T01:00:00Z");

  private static Pod pod(String metadataExtra, String statusExtra) {
    return YAML.unmarshal("""
        apiVersion: v1
        kind: Pod
        metadata: {name: web, namespace: team, uid: web-uid%s}
        spec: {nodeName: node-1, containers: [{name: c}]}
        status: {phase: Running, startTime: "2026-01-01T00:30:00Z"%s}
        """.formatted(metadataExtra, statusExtra), Pod.class);
  }

  @Test
  void activePodsAreReschedulable() {
    assertThat(ClusterState.reschedulable(pod("", ""))).isTrue();
  }

  @Test
  void finishedTerminatingDaemonSetAndMirrorPodsAreNot() {
    assertThat(ClusterState.reschedulable(pod("", "").toBuilder().editStatus().withPhase("Succeeded").endStatus().build())).isFalse();
    assertThat(ClusterState.reschedulable(pod(", deletionTimestamp: \"2026-01-01T00:59:00Z\"", ""))).isFalse();
    assertThat(ClusterState.reschedulable(pod(", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: d, uid: d}]", ""))).isFalse();
    assertThat(ClusterState.reschedulable(pod(", ownerReferences: [{apiVersion: v1, kind: Node, name: n, uid: n}]", ""))).isFalse();
  }

  @Test
  void terminatingStatefulSetPodsAreReschedulable() {
    assertThat(ClusterState.reschedulable(pod(
        ", deletionTimestamp: \"2026-01-01T00:59:00Z\", ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: s, uid: s}]", "")))
        .isTrue();
  }

  @Test
  void doNotDisruptHoldsForeverOrForItsDurationFromPodStart() {
    assertThat(ClusterState.doNotDisrupt(pod("", ""), NOW)).isFalse();
    assertThat(ClusterState.doNotDisrupt(pod(", annotations: {karpenter.sh/do-not-disrupt: \"true\"}", ""), NOW)).isTrue();
    assertThat(ClusterState.doNotDisrupt(pod(", annotations: {karpenter.sh/do-not-disrupt: 1h}", ""), NOW)).isTrue();
    assertThat(ClusterState.doNotDisrupt(pod(", annotations: {karpenter.sh/do-not-disrupt: 30m}", ""), NOW)).isFalse();
    assertThat(ClusterState.doNotDisrupt(pod(", annotations: {karpenter.sh/do-not-disrupt: soon}", ""), NOW)).isFalse();
  }

  @Test
  void aDoNotDisruptDurationProtectsAPodThatHasNotStartedYet() {
    Pod pending = pod(", annotations: {karpenter.sh/do-not-disrupt: 30m}", "");
    pending.getStatus().setStartTime(null);
    assertThat(ClusterState.doNotDisrupt(pending, NOW)).isTrue();
  }
}
