package sh.karpenter.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.runtime.TestingEventRecorder.RecordedEvent;
import sh.karpenter.core.clock.TestingClock;

class EventRecorderTest {
  private final TestingClock clock = new TestingClock();
  private final TestingEventRecorder recorder = new TestingEventRecorder(clock);

  private static Pod pod(String name, String uid) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("apps").withUid(uid).endMetadata().build();
  }

  private static Node node(String name) {
    return new NodeBuilder().withNewMetadata().withName(name).withUid("node-uid").withResourceVersion("7").endMetadata()
        .build();
  }

  @Test
  void dropsAnIdenticalEventInsideTheDefaultWindow() {
    Pod pod = pod("web", "uid-1");
    recorder.warning(pod, "FailedScheduling", "no capacity");
    recorder.warning(pod, "FailedScheduling", "no capacity");
    clock.step(EventRecorder.DEFAULT_DEDUPE.minusSeconds(1));
    recorder.warning(pod, "FailedScheduling", "no capacity");

    assertThat(recorder.events()).containsExactly(
        new RecordedEvent("Pod", "apps", "web", EventRecorder.WARNING, "FailedScheduling", "no capacity"));
  }

  @Test
  void publishesTheEventAgainOnceTheWindowHasPassed() {
    Pod pod = pod("web", "uid-1");
    recorder.warning(pod, "FailedScheduling", "no capacity");
    clock.step(EventRecorder.DEFAULT_DEDUPE.minusSeconds(1));
    recorder.warning(pod, "FailedScheduling", "no capacity"); // does not extend the window
    clock.step(Duration.ofSeconds(1));
    recorder.warning(pod, "FailedScheduling", "no capacity");

    assertThat(recorder.reasons()).containsExactly("FailedScheduling", "FailedScheduling");
  }

  @Test
  void anyDifferenceInObjectTypeReasonOrMessageIsANewEvent() {
    recorder.normal(pod("web", "uid-1"), "Nominated", "on node a");
    recorder.normal(pod("web", "uid-1"), "Nominated", "on node b");
    recorder.warning(pod("web", "uid-1"), "Nominated", "on node b");
    recorder.normal(pod("web", "uid-1"), "Evicted", "on node b");
    recorder.normal(pod("web", "uid-2"), "Nominated", "on node a"); // recreated pod, new UID

    assertThat(recorder.events()).hasSize(5);
  }

  @Test
  void honoursAShorterWindowPerEvent() {
    Node node = node("n1");
    recorder.publish(node, EventRecorder.WARNING, "NoCompatibleInstanceTypes", "none", Duration.ofMinutes(1));
    clock.step(Duration.ofMinutes(1));
    recorder.publish(node, EventRecorder.WARNING, "NoCompatibleInstanceTypes", "none", Duration.ofMinutes(1));

    assertThat(recorder.forObject("n1")).hasSize(2);
    assertThat(recorder.forObject("n1").getFirst().namespace()).isNull();
  }

  @Test
  void objectsWithoutUidAreToldApartByKindNamespaceAndName() {
    recorder.normal(pod("a", null), "Evicted", "x");
    recorder.normal(pod("b", null), "Evicted", "x");
    recorder.normal(pod("a", null), "Evicted", "x");

    assertThat(recorder.events()).extracting(RecordedEvent::name).containsExactly("a", "b");
  }

  @Test
  void clearForgetsEventsAndWindows() {
    Pod pod = pod("web", "uid-1");
    recorder.normal(pod, "Nominated", "x");
    recorder.clear();
    assertThat(recorder.events()).isEmpty();
    recorder.normal(pod, "Nominated", "x");
    assertThat(recorder.events()).hasSize(1);
  }

  @Test
  void kubernetesRecorderRateLimitsNominatedEventsAfterDeduplication() {
    try (KubernetesEventRecorder events =
        new KubernetesEventRecorder(null, clock, KubernetesEventRecorder.DEFAULT_RATE_LIMITS, "test")) {
      int admitted = 0;
      for (int i = 0; i < 30; i++) {
        if (events.admit(pod("p" + i, "uid-" + i), EventRecorder.NORMAL, "Nominated", "n", EventRecorder.DEFAULT_DEDUPE)) {
          admitted++;
        }
      }
      assertThat(admitted).isEqualTo(10); // the burst

      clock.step(Duration.ofSeconds(1));
      admitted = 0;
      for (int i = 30; i < 60; i++) {
        if (events.admit(pod("p" + i, "uid-" + i), EventRecorder.NORMAL, "Nominated", "n", EventRecorder.DEFAULT_DEDUPE)) {
          admitted++;
        }
      }
      assertThat(admitted).isEqualTo(5); // 5 per second

      assertThat(events.admit(pod("q", "uid-q"), EventRecorder.WARNING, "FailedScheduling", "m", Duration.ofMinutes(5)))
          .isTrue();
      assertThat(events.admit(pod("q", "uid-q"), EventRecorder.WARNING, "FailedScheduling", "m", Duration.ofMinutes(5)))
          .isFalse();
    }
  }

  @Test
  void kubernetesRecorderBuildsACoreEventInTheObjectsNamespaceOrDefault() {
    try (KubernetesEventRecorder events = new KubernetesEventRecorder(null, clock, Map.of(), "replica-1")) {
      Event forPod = events.toEvent(pod("web", "uid-1"), EventRecorder.NORMAL, "Nominated", "on n1", clock.instant());
      assertThat(forPod.getMetadata().getNamespace()).isEqualTo("apps");
      assertThat(forPod.getMetadata().getGenerateName()).isEqualTo("web.");
      assertThat(forPod.getInvolvedObject().getKind()).isEqualTo("Pod");
      assertThat(forPod.getInvolvedObject().getApiVersion()).isEqualTo("v1");
      assertThat(forPod.getInvolvedObject().getUid()).isEqualTo("uid-1");
      assertThat(forPod.getSource().getComponent()).isEqualTo("karpenter");
      assertThat(forPod.getReportingComponent()).isEqualTo("karpenter");
      assertThat(forPod.getReportingInstance()).isEqualTo("replica-1");
      assertThat(forPod.getCount()).isEqualTo(1);
      assertThat(forPod.getFirstTimestamp()).isEqualTo("2026-01-01T00:00:00Z");
      assertThat(forPod.getLastTimestamp()).isEqualTo("2026-01-01T00:00:00Z");
      assertThat(forPod.getEventTime().getTime()).isEqualTo("2026-01-01T00:00:00.000000Z");

      Event forNode = events.toEvent(node("n1"), EventRecorder.WARNING, "FailedConsistencyCheck", "m", clock.instant());
      assertThat(forNode.getMetadata().getNamespace()).isEqualTo("default");
      assertThat(forNode.getInvolvedObject().getNamespace()).isNull();
      assertThat(forNode.getInvolvedObject().getResourceVersion()).isEqualTo("7");

      NodeClaim claim = new NodeClaim();
      claim.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("default-abcde").build());
      Event forClaim = events.toEvent(claim, EventRecorder.NORMAL, "Launched", "m", clock.instant());
      assertThat(forClaim.getInvolvedObject().getKind()).isEqualTo("NodeClaim");
      assertThat(forClaim.getInvolvedObject().getApiVersion()).isEqualTo("karpenter.sh/v1");
    }
  }
}
