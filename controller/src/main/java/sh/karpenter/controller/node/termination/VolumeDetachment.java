package sh.karpenter.controller.node.termination;

import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import java.time.Instant;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * Which VolumeAttachments on a drained Node hold its termination (upstream {@code
 * filterVolumeAttachments}): so that the volumes of evicted pods can attach elsewhere, the Node
 * waits for their attachments to go. Attachments without a PersistentVolume, and those of volumes a
 * pod the drain leaves running still uses (one tolerating the disrupted taint, a mirror pod, a pod
 * stuck terminating), do not hold it.
 */
final class VolumeDetachment {
  private VolumeDetachment() {}

  /**
   * @param attachments the VolumeAttachments on the Node
   * @param pods the pods bound to the Node
   * @param claims looks a PersistentVolumeClaim up by {@code namespace/name}; null when absent
   */
  static List<VolumeAttachment> blocking(
      Collection<VolumeAttachment> attachments, Collection<Pod> pods, Function<String, PersistentVolumeClaim> claims, Instant now) {
    if (attachments.isEmpty()) {
      return List.of();
    }
    Set<String> keptVolumes = new HashSet<>();
    for (Pod pod : pods) {
      if (DrainPods.drainable(pod, now) || pod.getSpec() == null || pod.getSpec().getVolumes() == null) {
        continue;
      }
      for (Volume volume : pod.getSpec().getVolumes()) {
        String claimName = claimName(pod, volume);
        PersistentVolumeClaim claim = claimName == null ? null : claims.apply(pod.getMetadata().getNamespace() + "/" + claimName);
        if (claim != null && claim.getSpec() != null && claim.getSpec().getVolumeName() != null) {
          keptVolumes.add(claim.getSpec().getVolumeName());
        }
      }
    }
    return attachments.stream()
        .filter(a -> {
          String pv = persistentVolume(a);
          return pv != null && !keptVolumes.contains(pv);
        })
        .toList();
  }

  /** The claim behind a pod volume: a PersistentVolumeClaim's name, or {@code <pod>-<volume>} for an ephemeral volume. */
  private static String claimName(Pod pod, Volume volume) {
    if (volume.getPersistentVolumeClaim() != null) {
      return volume.getPersistentVolumeClaim().getClaimName();
    }
    if (volume.getEphemeral() != null) {
      return pod.getMetadata().getName() + "-" + volume.getName();
    }
    return null;
  }

  private static String persistentVolume(VolumeAttachment attachment) {
    if (attachment.getSpec() == null || attachment.getSpec().getSource() == null) {
      return null;
    }
    return attachment.getSpec().getSource().getPersistentVolumeName();
  }
}
