package sh.karpenter.controller.objects;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The pod vocabulary: keys, owners, and which pods of a deleting node provisioning plans new capacity for. */
class PodsTest {
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
    assertThat(Pods.reschedulable(pod("", ""))).isTrue();
  }

  @Test
  void finishedTerminatingDaemonSetAndMirrorPodsAreNot() {
    assertThat(Pods.reschedulable(pod("", "").toBuilder().editStatus().withPhase("Succeeded").endStatus().build())).isFalse();
    assertThat(Pods.reschedulable(pod(", deletionTimestamp: \"2026-01-01T00:59:00Z\"", ""))).isFalse();
    assertThat(Pods.reschedulable(pod(", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: d, uid: d}]", ""))).isFalse();
    assertThat(Pods.reschedulable(pod(", ownerReferences: [{apiVersion: v1, kind: Node, name: n, uid: n}]", ""))).isFalse();
  }

  @Test
  void terminatingStatefulSetPodsAreReschedulable() {
    assertThat(Pods.reschedulable(pod(
        ", deletionTimestamp: \"2026-01-01T00:59:00Z\", ownerReferences: [{apiVersion: apps/v1, kind: StatefulSet, name: s, uid: s}]", "")))
        .isTrue();
  }

  @Test
  void doNotDisruptHoldsForeverOrForItsDurationFromPodStart() {
    assertThat(Pods.doNotDisrupt(pod("", ""), NOW)).isFalse();
    assertThat(Pods.doNotDisrupt(pod(", annotations: {karpenter.sh/do-not-disrupt: \"true\"}", ""), NOW)).isTrue();
    assertThat(Pods.doNotDisrupt(pod(", annotations: {karpenter.sh/do-not-disrupt: 1h}", ""), NOW)).isTrue();
    assertThat(Pods.doNotDisrupt(pod(", annotations: {karpenter.sh/do-not-disrupt: 30m}", ""), NOW)).isFalse();
    assertThat(Pods.doNotDisrupt(pod(", annotations: {karpenter.sh/do-not-disrupt: soon}", ""), NOW)).isFalse();
  }

  @Test
  void aDoNotDisruptDurationProtectsAPodThatHasNotStartedYet() {
    Pod pending = pod(", annotations: {karpenter.sh/do-not-disrupt: 30m}", "");
    pending.getStatus().setStartTime(null);
    assertThat(Pods.doNotDisrupt(pending, NOW)).isTrue();
  }

  @Test
  void aPodIsKeyedByNamespaceAndNameAsCoresPodIs() {
    Pod pod = pod("", "");
    assertThat(Pods.key(pod)).isEqualTo("team/web");
    pod.getMetadata().setNamespace(null);
    assertThat(Pods.key(pod)).isEqualTo("default/web");
    assertThat(sh.karpenter.core.pod.Pod.builder().name("web").build().key()).isEqualTo(Pods.key(pod));
  }

  @Test
  void ownersMatchByApiVersionAndKindOrByKindWithoutApiVersion() {
    assertThat(Pods.ownedByDaemonSet(pod(", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: d, uid: d}]", ""))).isTrue();
    Pod withoutApiVersion = pod("", "");
    withoutApiVersion.getMetadata().setOwnerReferences(List.of(new OwnerReferenceBuilder().withKind("DaemonSet").withName("d").build()));
    assertThat(Pods.ownedByDaemonSet(withoutApiVersion)).isTrue();
    assertThat(Pods.ownedByDaemonSet(pod(", ownerReferences: [{apiVersion: example.com/v1, kind: DaemonSet, name: d, uid: d}]", ""))).isFalse();
    assertThat(Pods.controlledByDaemonSet(pod(", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: d, uid: d}]", ""))).isFalse();
    assertThat(Pods.controlledByDaemonSet(
        pod(", ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: d, uid: d, controller: true}]", ""))).isTrue();
  }

  @Test
  void mirrorPodsAreOwnedByTheirNodeOrAnnotated() {
    assertThat(Pods.mirror(pod(", ownerReferences: [{apiVersion: v1, kind: Node, name: n, uid: n}]", ""))).isTrue();
    assertThat(Pods.mirror(pod(", annotations: {kubernetes.io/config.mirror: abc}", ""))).isTrue();
    assertThat(Pods.mirror(pod("", ""))).isFalse();
  }
}
