package sh.karpenter.controller.nodeclaim.podevents;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** Which pod informer notifications are pod events of a node, and when they happened. */
class PodEventTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final Instant CREATED = Instant.parse("2026-01-01T00:00:00Z");
  private static final Instant SCHEDULED = CREATED.plusSeconds(5);
  private static final Instant NOW = CREATED.plusSeconds(3600);

  /** A pod; {@code nodeName}, {@code phase} and {@code extraMetadata} are optional. */
  private static Pod pod(String nodeName, String phase, String extraMetadata, boolean scheduled) {
    return SERIALIZATION.unmarshal("""
        apiVersion: v1
        kind: Pod
        metadata: {name: web, namespace: default, creationTimestamp: '%s'%s}
        spec: {%s containers: [{name: main, image: pause}]}
        status: {%s conditions: [%s]}
        """.formatted(CREATED, extraMetadata == null ? "" : ", " + extraMetadata,
            nodeName == null ? "" : "nodeName: " + nodeName + ",",
            phase == null ? "" : "phase: " + phase + ",",
            scheduled ? "{type: PodScheduled, status: 'True', lastTransitionTime: '" + SCHEDULED + "'}" : ""), Pod.class);
  }

  private static Pod running(String nodeName) {
    return pod(nodeName, "Running", null, true);
  }

  @Test
  void bindingIsAnEventAtThePodScheduledTransition() {
    assertThat(PodEvent.updated(pod(null, "Pending", null, false), running("node-a"), NOW))
        .contains(new PodEvent("node-a", SCHEDULED));
    assertThat(PodEvent.updated(pod(null, "Pending", null, false), pod("node-a", "Pending", null, false), NOW))
        .contains(new PodEvent("node-a", NOW));
  }

  @Test
  void aPodSeenBoundAlreadyReplaysItsSchedulingTimeOrItsCreation() {
    assertThat(PodEvent.added(running("node-a"), NOW)).contains(new PodEvent("node-a", SCHEDULED));
    assertThat(PodEvent.added(pod("node-a", "Running", null, false), NOW)).contains(new PodEvent("node-a", CREATED));
  }

  @Test
  void unboundTerminalAndDaemonSetPodsAreNoEvents() {
    String daemonSet = "ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: ds, uid: u1, controller: true}]";

    assertThat(PodEvent.added(pod(null, "Pending", null, false), NOW)).isEmpty();
    assertThat(PodEvent.added(pod("node-a", "Succeeded", null, true), NOW)).isEmpty();
    assertThat(PodEvent.added(pod("node-a", "Running", daemonSet, true), NOW)).isEmpty();
    assertThat(PodEvent.updated(pod(null, "Pending", daemonSet, false), pod("node-a", "Running", daemonSet, true), NOW)).isEmpty();
    assertThat(PodEvent.updated(running("node-a"), running("node-a"), NOW)).isEmpty();
  }

  @Test
  void becomingTerminalOrTerminatingIsARemovalNow() {
    String deleting = "deletionTimestamp: '" + NOW + "'";

    assertThat(PodEvent.updated(running("node-a"), pod("node-a", "Succeeded", null, true), NOW)).contains(new PodEvent("node-a", NOW));
    assertThat(PodEvent.updated(running("node-a"), pod("node-a", "Failed", null, true), NOW)).contains(new PodEvent("node-a", NOW));
    assertThat(PodEvent.updated(running("node-a"), pod("node-a", "Running", deleting, true), NOW)).contains(new PodEvent("node-a", NOW));
    // Already counted when it finished.
    assertThat(PodEvent.updated(pod("node-a", "Succeeded", null, true), pod("node-a", "Succeeded", deleting, true), NOW)).isEmpty();
  }

  @Test
  void aDeletionNotSeenComingIsARemovalNow() {
    assertThat(PodEvent.deleted(running("node-a"), NOW)).contains(new PodEvent("node-a", NOW));
    assertThat(PodEvent.deleted(pod("node-a", "Running", "deletionTimestamp: '" + NOW + "'", true), NOW)).isEmpty();
    assertThat(PodEvent.deleted(pod("node-a", "Failed", null, true), NOW)).isEmpty();
    assertThat(PodEvent.deleted(pod(null, "Pending", null, false), NOW)).isEmpty();
  }

  @Test
  void anEventWithinTenSecondsOfTheRecordedOneIsNotWritten() {
    String recorded = NOW.toString();

    assertThat(PodEvents.supersedes(NOW, null)).isTrue();
    assertThat(PodEvents.supersedes(NOW.plusSeconds(9), recorded)).isFalse();
    assertThat(PodEvents.supersedes(NOW.minusSeconds(60), recorded)).isFalse();
    assertThat(PodEvents.supersedes(NOW.plusSeconds(10), recorded)).isTrue();
  }
}
