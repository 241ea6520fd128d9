package sh.karpenter.core.volume;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import sh.karpenter.core.requirements.Requirements;

/**
 * The parts of a PersistentVolume that constrain scheduling.
 *
 * @param nodeAffinityTerms required node affinity, ORed terms (frozen); empty when unconstrained
 * @param localOrHostPath a local or hostPath volume, whose hostname affinity is ignored (the pod is
 *     being placed on a new node anyway)
 * @param csiDriver the CSI driver name, or null for in-tree volumes
 */
public record PersistentVolume(String name, List<Requirements> nodeAffinityTerms, boolean localOrHostPath, String csiDriver) {
  public PersistentVolume {
    Objects.requireNonNull(name, "name");
    List<Requirements> frozen = new ArrayList<>();
    if (nodeAffinityTerms != null) {
      nodeAffinityTerms.forEach(t -> frozen.add(t.frozen()));
    }
    nodeAffinityTerms = List.copyOf(frozen);
  }
}
