package sh.karpenter.controller.node.termination;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.TolerationBuilder;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachmentBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Which VolumeAttachments hold a drained Node's termination
 * (docs/behaviour/termination.md#volume-attachments).
 */
class VolumeDetachmentTest {
  private static final Instant NOW = Instant.parse("2026-01-01T01:00:00Z");

  private static final Map<String, PersistentVolumeClaim> CLAIMS = Map.of(
      "team/data", claim("data", "pv-data"),
      "team/cache", claim("cache", "pv-cache"),
      "team/agent-scratch", claim("agent-scratch", "pv-scratch"));

  private static PersistentVolumeClaim claim(String name, String volume) {
    return new PersistentVolumeClaimBuilder().withNewMetadata().withName(name).withNamespace("team").endMetadata()
        .withNewSpec().withVolumeName(volume).endSpec().build();
  }

  private static VolumeAttachment attachment(String name, String persistentVolume) {
    return new VolumeAttachmentBuilder().withNewMetadata().withName(name).endMetadata()
        .withNewSpec().withAttacher("csi.example.com").withNodeName("node-1")
        .withNewSource().withPersistentVolumeName(persistentVolume).endSource().endSpec().build();
  }

  private static PodBuilder pod(String name, String claim) {
    return new PodBuilder().withNewMetadata().withName(name).withNamespace("team").endMetadata()
        .withNewSpec().withNodeName("node-1")
        .addNewVolume().withName("vol").withNewPersistentVolumeClaim().withClaimName(claim).endPersistentVolumeClaim().endVolume()
        .endSpec()
        .withNewStatus().withPhase("Running").endStatus();
  }

  private static List<String> blocking(List<VolumeAttachment> attachments, List<Pod> pods) {
    return VolumeDetachment.blocking(attachments, pods, CLAIMS::get, NOW).stream().map(a -> a.getMetadata().getName()).toList();
  }

  @Test
  void attachmentsOfDrainedPodsVolumesHoldTheNode() {
    assertThat(blocking(List.of(attachment("va-data", "pv-data")), List.of(pod("db", "data").build()))).containsExactly("va-data");
    // The pod is gone already; its volume still has to detach.
    assertThat(blocking(List.of(attachment("va-data", "pv-data")), List.of())).containsExactly("va-data");
  }

  @Test
  void volumesOfPodsTheDrainLeavesRunningDoNotHoldTheNode() {
    Pod tolerating = pod("agent", "cache").editSpec()
        .withTolerations(new TolerationBuilder().withKey("karpenter.sh/disrupted").withOperator("Exists").build()).endSpec().build();
    Pod stuck = pod("stuck", "data").editMetadata().withDeletionTimestamp(NOW.minusSeconds(120).toString()).endMetadata().build();

    assertThat(blocking(
            List.of(attachment("va-cache", "pv-cache"), attachment("va-data", "pv-data"), attachment("va-other", "pv-other")),
            List.of(tolerating, stuck)))
        .containsExactly("va-other");
  }

  @Test
  void anEphemeralVolumesClaimIsNamedAfterPodAndVolume() {
    Pod agent = new PodBuilder().withNewMetadata().withName("agent").withNamespace("team").endMetadata()
        .withNewSpec().withNodeName("node-1")
        .withTolerations(new TolerationBuilder().withOperator("Exists").build())
        .addNewVolume().withName("scratch").withNewEphemeral().withNewVolumeClaimTemplate().endVolumeClaimTemplate().endEphemeral().endVolume()
        .endSpec().build();

    assertThat(blocking(List.of(attachment("va-scratch", "pv-scratch")), List.of(agent))).isEmpty();
  }

  @Test
  void attachmentsWithoutAPersistentVolumeDoNotHoldTheNode() {
    VolumeAttachment inline = new VolumeAttachmentBuilder().withNewMetadata().withName("va-inline").endMetadata()
        .withNewSpec().withAttacher("csi.example.com").withNodeName("node-1").withNewSource().endSource().endSpec().build();

    assertThat(blocking(List.of(inline), List.of())).isEmpty();
  }
}
