package sh.karpenter.core.topology;

import java.util.ArrayList;
import java.util.List;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.pod.TopologySpreadConstraint;
import sh.karpenter.core.requirements.LabelSelector;

/**
 * Cluster-wide default topology spread constraints: the PodTopologySpread plugin's {@code
 * defaultConstraints} of the cluster's kube-scheduler, which Karpenter mirrors when started with
 * {@code --scheduler-config} so that it spreads the pods kube-scheduler will spread.
 *
 * <p>As in kube-scheduler, the defaults are all-or-nothing: a pod that declares any
 * topologySpreadConstraints of its own keeps exactly those. A default constraint carries no label
 * selector; each pod gets one derived from the Services and the controller that select it (the edge
 * derives it, see the controller's {@code DefaultSpreadSelectors}), and a pod for which nothing can
 * be derived is left unconstrained. Only the listed constraints apply: kube-scheduler's built-in
 * {@code defaultingType: System} defaults are not mirrored, as upstream Karpenter does not mirror
 * them.
 *
 * <p>Immutable. Validation of the configured constraints (positive maxSkew, no selector, no
 * matchLabelKeys, no repeated key and whenUnsatisfiable) belongs to whoever reads the configuration.
 */
public final class DefaultConstraints {
  /** No defaults: every pod keeps its own constraints, or none. */
  public static final DefaultConstraints NONE = new DefaultConstraints(List.of());

  private final List<TopologySpreadConstraint> constraints;

  private DefaultConstraints(List<TopologySpreadConstraint> constraints) {
    this.constraints = constraints;
  }

  /** Defaults from the configured constraints, in order; their selectors are ignored. */
  public static DefaultConstraints of(List<TopologySpreadConstraint> constraints) {
    return constraints.isEmpty() ? NONE : new DefaultConstraints(List.copyOf(constraints));
  }

  /** The configured constraints, without selectors. */
  public List<TopologySpreadConstraint> constraints() {
    return constraints;
  }

  public boolean isEmpty() {
    return constraints.isEmpty();
  }

  /**
   * Whether the pod is a candidate for the defaults: some are configured and the pod declares no
   * constraint of its own. Lets callers skip deriving a selector for pods the defaults cannot touch.
   */
  public boolean appliesTo(Pod pod) {
    return !constraints.isEmpty() && pod.topologySpreadConstraints().isEmpty();
  }

  /**
   * The pod with the defaults applied, each counting the pods {@code selector} matches; the pod
   * itself when it declares constraints of its own, or when no selector could be derived for it
   * ({@code null}, empty or {@link LabelSelector#NOTHING}: kube-scheduler leaves such pods alone
   * rather than count every pod of the namespace).
   */
  public Pod apply(Pod pod, LabelSelector selector) {
    if (!appliesTo(pod) || selector == null || selector.isEmpty() || selector.equals(LabelSelector.NOTHING)) {
      return pod;
    }
    List<TopologySpreadConstraint> applied = new ArrayList<>(constraints.size());
    for (TopologySpreadConstraint c : constraints) {
      applied.add(
          new TopologySpreadConstraint(
              c.maxSkew(),
              c.topologyKey(),
              c.whenUnsatisfiable(),
              selector,
              c.minDomains(),
              c.nodeAffinityPolicy(),
              c.nodeTaintsPolicy(),
              c.matchLabelKeys()));
    }
    return pod.toBuilder().topologySpreadConstraints(applied).build();
  }

  @Override
  public String toString() {
    return "DefaultConstraints" + constraints;
  }
}
