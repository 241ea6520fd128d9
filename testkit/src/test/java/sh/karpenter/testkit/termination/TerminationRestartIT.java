package sh.karpenter.testkit.termination;

import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Clock;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * A Karpenter process that dies in the middle of a drain leaves nothing behind: the next one reads
 * where the drain stood from the API (taint, conditions, the pods left) and finishes it, and neither
 * the Node nor the NodeClaim is orphaned.
 */
@ControlPlaneTest
class TerminationRestartIT {
  private TerminationRig rig;

  @AfterEach
  void stop() {
    if (rig != null) {
      rig.close();
    }
  }

  @Test
  void aControllerStartedAfterTheFirstDiedMidDrainFinishesTheDrain(KubernetesClient client) throws Exception {
    rig = new TerminationRig(client, Clock.systemUTC());
    rig.registeredNode("restart", "node-restart", null);
    String providerId = Metadata.providerId(client.resources(NodeClaim.class).withName("restart").get());
    Pod guarded = TestObjects.pausePod("guarded", "guarded");
    guarded.getMetadata().setAnnotations(Map.of(Annotations.DO_NOT_DISRUPT, "true"));
    guarded.getSpec().setNodeName("node-restart");
    client.pods().resource(guarded).create();
    rig.boundPod("web-1", "web", "node-restart");
    rig.boundPod("web-2", "web", "node-restart");
    rig.awaitRunning(3);

    // The first process starts the drain and dies while the do-not-disrupt pod holds it.
    try (AutoCloseable first = rig.startControllers("restart", "node-restart")) {
      client.nodes().withName("node-restart").delete();
      await().atMost(2, MINUTES).until(() -> client.pods().withName("web-1").get() == null
          && client.pods().withName("web-2").get() == null
          && Conditions.get(client.resources(NodeClaim.class).withName("restart").get().getStatus().getConditions(), ConditionTypes.DRAINED)
              .filter(c -> c.getStatus().equals("False")).isPresent());
    }
    Node node = client.nodes().withName("node-restart").get();
    assertThat(node.getMetadata().getFinalizers()).contains("karpenter.sh/termination");
    assertThat(node.getSpec().getTaints()).anySatisfy(t -> assertThat(t.getKey()).isEqualTo("karpenter.sh/disrupted"));
    assertThat(client.resources(NodeClaim.class).withName("restart").get().getMetadata().getDeletionTimestamp()).isNotNull();
    assertThat(rig.cloudProvider.get(providerId)).isPresent();

    // The pod lets go while no process runs; the next process finishes the drain.
    client.pods().withName("guarded").edit(p -> {
      p.getMetadata().getAnnotations().remove(Annotations.DO_NOT_DISRUPT);
      return p;
    });
    try (AutoCloseable second = rig.startControllers("restart", "node-restart")) {
      await().atMost(2, MINUTES).until(() -> client.nodes().withName("node-restart").get() == null
          && client.resources(NodeClaim.class).withName("restart").get() == null);
    }

    assertThat(client.pods().list().getItems()).isEmpty();
    assertThat(client.nodes().list().getItems()).isEmpty();
    assertThat(client.resources(NodeClaim.class).list().getItems()).isEmpty();
    assertThat(rig.cloudProvider.list()).isEmpty();
    assertThat(rig.events.events()).filteredOn(e -> e.reason().equals("Evicted")).extracting(e -> e.name())
        .containsExactlyInAnyOrder("web-1", "web-2", "guarded");
  }
}
