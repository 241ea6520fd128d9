package sh.karpenter.core.disruption;

/**
 * A pod that keeps its node from being voluntarily disrupted: a {@code karpenter.sh/do-not-disrupt}
 * pod, or a pod covered by a PDB that allows no disruption or by more than one PDB.
 *
 * @param podKey {@code namespace/name}
 * @param reason what blocks, for people (e.g. {@code pdb default/web allows 0 disruptions})
 */
public record PodBlocker(String podKey, String reason) {}
