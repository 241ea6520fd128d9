package sh.karpenter.core.instancetype;

import sh.karpenter.core.resources.Resources;

/** What the kubelet and the system hold back from a node's capacity. */
public record Overhead(Resources kubeReserved, Resources systemReserved, Resources evictionThreshold) {
  public static final Overhead NONE = new Overhead(Resources.EMPTY, Resources.EMPTY, Resources.EMPTY);

  public Overhead {
    kubeReserved = kubeReserved == null ? Resources.EMPTY : kubeReserved;
    systemReserved = systemReserved == null ? Resources.EMPTY : systemReserved;
    evictionThreshold = evictionThreshold == null ? Resources.EMPTY : evictionThreshold;
  }

  /** kubeReserved + systemReserved + evictionThreshold. */
  public Resources total() {
    return kubeReserved.plus(systemReserved).plus(evictionThreshold);
  }
}
