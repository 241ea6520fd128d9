package sh.karpenter.core.volume;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import sh.karpenter.core.requirements.Requirements;

/**
 * The parts of a StorageClass that constrain scheduling.
 *
 * @param provisioner the provisioner (a CSI driver name for CSI classes)
 * @param allowedTopologies ORed topology terms (frozen); empty when unrestricted
 */
public record StorageClass(String name, String provisioner, VolumeBindingMode volumeBindingMode, List<Requirements> allowedTopologies) {
  /** When a claim of this class is bound and provisioned. */
  public enum VolumeBindingMode {
    Immediate,
    WaitForFirstConsumer
  }

  public StorageClass {
    Objects.requireNonNull(name, "name");
    volumeBindingMode = volumeBindingMode == null ? VolumeBindingMode.Immediate : volumeBindingMode;
    List<Requirements> frozen = new ArrayList<>();
    if (allowedTopologies != null) {
      allowedTopologies.forEach(t -> frozen.add(t.frozen()));
    }
    allowedTopologies = List.copyOf(frozen);
  }
}
