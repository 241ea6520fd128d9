package sh.karpenter.testkit.runtime;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.KubernetesEventRecorder;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.TestObjects;

@ControlPlaneTest
class EventRecorderIT {
  private static final Duration WAIT = Duration.ofMinutes(1);

  private KubernetesEventRecorder recorder;

  @AfterEach
  void close() {
    if (recorder != null) {
      recorder.close();
    }
  }

  private static Pod pod(KubernetesClient client, String name) {
    return client.pods().resource(TestObjects.pausePod(name, "events")).create();
  }

  private static List<Event> eventsAbout(KubernetesClient client, String namespace, String uid, String reason) {
    return client.v1().events().inNamespace(namespace).list().getItems().stream()
        .filter(e -> uid.equals(e.getInvolvedObject().getUid()) && reason.equals(e.getReason()))
        .toList();
  }

  @Test
  void publishesAnEventForAPodAndDropsTheDuplicate(KubernetesClient client) {
    recorder = new KubernetesEventRecorder(client, Clock.systemUTC());
    Pod pod = pod(client, "nominated");
    String namespace = client.getNamespace();
    String uid = pod.getMetadata().getUid();

    recorder.normal(pod, "Nominated", "Pod should schedule on: nodeclaim/default-abcde");
    recorder.normal(pod, "Nominated", "Pod should schedule on: nodeclaim/default-abcde");
    recorder.warning(pod, "FailedScheduling", "barrier: written after the duplicate would have been");

    await().atMost(WAIT).until(() -> !eventsAbout(client, namespace, uid, "FailedScheduling").isEmpty());
    List<Event> nominated = eventsAbout(client, namespace, uid, "Nominated");
    assertThat(nominated).hasSize(1);
    Event event = nominated.getFirst();
    assertThat(event.getType()).isEqualTo(EventRecorder.NORMAL);
    assertThat(event.getMessage()).isEqualTo("Pod should schedule on: nodeclaim/default-abcde");
    assertThat(event.getInvolvedObject().getKind()).isEqualTo("Pod");
    assertThat(event.getInvolvedObject().getName()).isEqualTo("nominated");
    assertThat(event.getInvolvedObject().getNamespace()).isEqualTo(namespace);
    assertThat(event.getSource().getComponent()).isEqualTo("karpenter");
    assertThat(event.getCount()).isEqualTo(1);
    assertThat(event.getMetadata().getName()).startsWith("nominated.");
  }

  @Test
  void eventsAboutClusterScopedObjectsGoToTheDefaultNamespace(KubernetesClient client) {
    recorder = new KubernetesEventRecorder(client, Clock.systemUTC());
    Node node = client.nodes().resource(new NodeBuilder().withNewMetadata().withName("event-node").endMetadata().build())
        .create();

    recorder.warning(node, "FailedConsistencyCheck", "expected 4 cpu, got 2");

    String uid = node.getMetadata().getUid();
    await().atMost(WAIT).until(() -> !eventsAbout(client, "default", uid, "FailedConsistencyCheck").isEmpty());
    assertThat(eventsAbout(client, "default", uid, "FailedConsistencyCheck").getFirst().getInvolvedObject().getKind())
        .isEqualTo("Node");
  }
}
