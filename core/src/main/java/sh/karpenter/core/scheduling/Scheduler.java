package sh.karpenter.core.scheduling;

import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.resources.ResourceNames;

/**
 * Karpenter's provisioning scheduler (upstream pkg/controllers/provisioning/scheduling): places
 * pending pods on existing nodes, on NodeClaims planned earlier in the same pass, or on new
 * NodeClaims from the NodePools in weight order, relaxing preferences one step at a time for pods
 * that do not fit, and explains every pod it cannot place.
 *
 * <p>The semantics are upstream's (pod order, where a pod is tried and in which order, requirement
 * compatibility, topology, limits, DaemonSet overhead, minValues, the 600-type cap). The data
 * structures are not: instance-type options are type masks (bit sets) over each template's catalogue,
 * and "types fitting these requests" or "types matching this requirement" are cached masks, so trying a pod
 * on a NodeClaim costs a few word-wise ANDs rather than a walk over every instance type.
 *
 * <p>Each {@link #solve()} runs an independent {@link SchedulingPass}; the scheduler holds no state
 * between passes.
 * Given a {@link SchedulerCache}, passes over the same NodePools share the per-template preparation
 * (instance-type matrices, lookup tables) and each existing node's set-up, never pass state, so the
 * results are the same.
 */
public final class Scheduler {
  /** Upstream's {@code MaxInstanceTypes}: the options a NodeClaim keeps, cheapest first. */
  public static final int MAX_INSTANCE_TYPES = InstanceTypes.MAX_INSTANCE_TYPES;

  private final SchedulingInput input;
  private final SchedulerCache cache;

  public Scheduler(SchedulingInput input) {
    this(input, null);
  }

  /**
   * A scheduler whose passes take the prepared templates from {@code cache} (and leave theirs there)
   * when the input's NodePools and DaemonSet pods are the ones it holds.
   *
   * @param cache shared by passes over the same NodePools, one thread at a time; null for none
   */
  public Scheduler(SchedulingInput input, SchedulerCache cache) {
    this.input = input;
    this.cache = cache;
  }

  /** Runs one scheduling pass over the input, however long it takes. */
  public SchedulingResult solve() {
    return solve(Deadline.NONE);
  }

  /**
   * Runs one scheduling pass over the input that stops trying pods once {@code deadline} has passed
   * (docs/behaviour/scheduling.md#solve-timeout): what it placed by then stands, and the pods it had
   * not tried yet are deferred to the next pass ({@link SchedulingResult#timedOut()}).
   */
  public SchedulingResult solve(Deadline deadline) {
    ResourceNames.index(NodePoolLimits.NODES); // interned before counting: limits have a "nodes" dimension
    int dimensions = ResourceNames.count();
    PreparedTemplates prepared = cache == null ? PreparedTemplates.of(input, dimensions) : cache.prepare(input, dimensions);
    return new SchedulingPass(input, prepared, cache).run(deadline == null ? Deadline.NONE : deadline);
  }
}
