package sh.karpenter.core.cost;

import sh.karpenter.core.resources.Resources;

/**
 * Capacity a plan may use, as the cost lower bound sees it: one instance type in one zone and
 * capacity type (bought per node at {@code price}), or the free capacity of an existing node (price 0,
 * at most one).
 *
 * @param name for diagnostics, e.g. {@code m5.large/us-east-1a/spot} or a node name
 * @param price USD per node-hour, not negative
 * @param allocatable what one node offers pods, after DaemonSet overhead for the template it would
 *     be launched from (or an existing node's allocatable minus what its pods already request)
 * @param maxCount how many such nodes a plan may use; {@link Integer#MAX_VALUE} when unbounded
 */
public record CandidateOffering(String name, double price, Resources allocatable, int maxCount) {
  public CandidateOffering {
    if (!(price >= 0) || Double.isInfinite(price)) {
      throw new IllegalArgumentException("price of " + name + " must be finite and >= 0: " + price);
    }
    if (maxCount < 0) {
      throw new IllegalArgumentException("maxCount of " + name + " must not be negative: " + maxCount);
    }
  }

  /** An offering a plan may launch any number of. */
  public static CandidateOffering purchasable(String name, double price, Resources allocatable) {
    return new CandidateOffering(name, price, allocatable, Integer.MAX_VALUE);
  }

  /** The free capacity of one existing node: costs nothing more, usable once. */
  public static CandidateOffering existingNode(String name, Resources freeCapacity) {
    return new CandidateOffering(name, 0, freeCapacity, 1);
  }

  public boolean bounded() {
    return maxCount != Integer.MAX_VALUE;
  }
}
