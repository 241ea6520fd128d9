package sh.karpenter.core.cost;

import java.util.BitSet;
import sh.karpenter.core.resources.Resources;

/**
 * A pod compatibility class of the cost lower bound: {@code podCount} pods with the same requests
 * that may use the same candidate offerings. The bound only needs the class's aggregate demand
 * ({@link #demand()}), so 50,000 pods of a few shapes and constraint kinds make a few classes.
 *
 * <p>Pods of different requests must be different classes even when they share candidates: the LP
 * splits a class across offerings in proportion to its demand vector, which only pods of one shape
 * are guaranteed to allow (a cpu-heavy and a memory-heavy pod may go to different node types).
 *
 * @param name for diagnostics, e.g. the first pod of the class
 * @param podCount pods in the class
 * @param requests what each pod requests (including {@code pods}: 1)
 * @param candidates indices into the offering list passed to {@link LowerBound#compute} whose
 *     requirements and taints the pods accept; offerings the pods do not fit are ignored
 * @param onePerNode null, or a group no two pods of which may share a node (e.g. the pods of one
 *     required hostname anti-affinity term that selects them all): then at most one pod of the class
 *     fits any node. Classes of different groups (or capped and uncapped ones) never merge.
 */
public record DemandClass(String name, int podCount, Resources requests, BitSet candidates, Object onePerNode) {
  public DemandClass {
    if (podCount < 0) {
      throw new IllegalArgumentException("podCount must not be negative: " + podCount);
    }
    candidates = (BitSet) candidates.clone();
  }

  /** A class without a per-node cap. */
  public DemandClass(String name, int podCount, Resources requests, BitSet candidates) {
    this(name, podCount, requests, candidates, null);
  }

  @Override
  public BitSet candidates() {
    return (BitSet) candidates.clone();
  }

  /** Whether the pods may use the offering at {@code index} (requirements and taints only). */
  public boolean mayUse(int index) {
    return candidates.get(index);
  }

  /** The summed requests of the class. */
  public Resources demand() {
    return requests.times(podCount);
  }
}
