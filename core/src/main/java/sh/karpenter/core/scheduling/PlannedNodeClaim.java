package sh.karpenter.core.scheduling;

import java.util.List;
import java.util.Map;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;

/**
 * A NodeClaim the pass decided to launch (upstream's {@code ToNodeClaim} output): its requirements
 * (narrowed by its pods, with {@code node.kubernetes.io/instance-type} and
 * {@code karpenter.sh/capacity-type} resolved), at most 600 instance-type options ordered cheapest
 * first, its pods and their total requests including the DaemonSet overhead.
 */
public final class PlannedNodeClaim {
  private final String nodePoolName;
  private final Requirements requirements;
  private final List<InstanceType> instanceTypeOptions;
  private final List<Pod> pods;
  private final Resources requests;
  private final List<Taint> taints;
  private final List<Taint> startupTaints;
  private final Map<String, String> labels;
  private final Map<String, String> annotations;
  private final Offering cheapestOffering;
  private final boolean minValuesRelaxed;

  PlannedNodeClaim(
      NodeClaimTemplate template,
      Requirements requirements,
      List<InstanceType> instanceTypeOptions,
      List<Pod> pods,
      Resources requests,
      Offering cheapestOffering,
      boolean minValuesRelaxed) {
    this.nodePoolName = template.nodePoolName();
    this.requirements = requirements.frozen();
    this.instanceTypeOptions = List.copyOf(instanceTypeOptions);
    this.pods = List.copyOf(pods);
    this.requests = requests;
    this.taints = template.taints();
    this.startupTaints = template.startupTaints();
    this.labels = template.labels();
    this.annotations = template.annotations();
    this.cheapestOffering = cheapestOffering;
    this.minValuesRelaxed = minValuesRelaxed;
  }

  public String nodePoolName() {
    return nodePoolName;
  }

  public Requirements requirements() {
    return requirements;
  }

  /** The instance types the claim may launch as, cheapest compatible available offering first. */
  public List<InstanceType> instanceTypeOptions() {
    return instanceTypeOptions;
  }

  public List<Pod> pods() {
    return pods;
  }

  /** The pods' requests plus the DaemonSet overhead the node will carry. */
  public Resources requests() {
    return requests;
  }

  public List<Taint> taints() {
    return taints;
  }

  public List<Taint> startupTaints() {
    return startupTaints;
  }

  /** The NodePool template's labels. */
  public Map<String, String> labels() {
    return labels;
  }

  /** The NodePool template's annotations. */
  public Map<String, String> annotations() {
    return annotations;
  }

  /** The instance type the plan is priced at: the first option. */
  public InstanceType cheapestInstanceType() {
    return instanceTypeOptions.get(0);
  }

  /** The offering the plan is priced at: the cheapest compatible available offering of the first option. */
  public Offering cheapestOffering() {
    return cheapestOffering;
  }

  /** The hourly price the plan assumes. */
  public double price() {
    return cheapestOffering.price();
  }

  /**
   * True when minValues were lowered to what the options could meet (BestEffort); the NodeClaim then
   * carries the {@code karpenter.sh/nodeclaim-min-values-relaxed} annotation.
   */
  public boolean minValuesRelaxed() {
    return minValuesRelaxed;
  }

  @Override
  public String toString() {
    return "NodeClaim(" + nodePoolName + ", " + cheapestInstanceType().name() + " " + cheapestOffering + ", " + pods.size() + " pods)";
  }
}
