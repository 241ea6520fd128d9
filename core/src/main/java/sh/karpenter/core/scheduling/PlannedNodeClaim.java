package sh.karpenter.core.scheduling;

import java.util.List;
import java.util.Map;
import java.util.ArrayList;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.InstanceTypes;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;
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

  /** A copy of {@code plan} with other requirements, options, pods and price. */
  private PlannedNodeClaim(
      PlannedNodeClaim plan, Requirements requirements, List<InstanceType> instanceTypeOptions, List<Pod> pods, Offering cheapestOffering) {
    this.nodePoolName = plan.nodePoolName;
    this.requirements = requirements.frozen();
    this.instanceTypeOptions = List.copyOf(instanceTypeOptions);
    this.pods = List.copyOf(pods);
    this.requests = plan.requests;
    this.taints = plan.taints;
    this.startupTaints = plan.startupTaints;
    this.labels = plan.labels;
    this.annotations = plan.annotations;
    this.cheapestOffering = cheapestOffering;
    this.minValuesRelaxed = plan.minValuesRelaxed;
  }

  /**
   * This plan launching only as one of {@code options} under {@code requirements}, as consolidation
   * narrows a replacement to cheaper types or pins it to spot: the options keep only those with a
   * launchable offering compatible with the requirements ({@link Offering#launchable()}), cheapest first; the instance-type requirement
   * lists exactly them (its minValues kept); the plan is priced at the first option's cheapest such
   * offering. Pods, requests, taints and labels stay as planned.
   *
   * @throws IllegalArgumentException when no option has a compatible launchable offering
   */
  public PlannedNodeClaim withInstanceTypeOptions(List<InstanceType> options, Requirements requirements) {
    Requirements narrowed = requirements.copy();
    List<InstanceType> ordered = new ArrayList<>(options.size());
    for (InstanceType type : InstanceTypes.orderByPrice(options, narrowed)) {
      if (type.cheapestOffering(narrowed) != null) {
        ordered.add(type);
      }
    }
    if (ordered.isEmpty()) {
      throw new IllegalArgumentException("no instance type option has a launchable offering compatible with " + narrowed);
    }
    List<String> names = new ArrayList<>(ordered.size());
    ordered.forEach(type -> names.add(type.name()));
    Integer minValues = narrowed.has(Labels.INSTANCE_TYPE) ? narrowed.get(Labels.INSTANCE_TYPE).minValues() : null;
    narrowed.put(Requirement.of(Labels.INSTANCE_TYPE, Operator.In, names, minValues));
    return new PlannedNodeClaim(this, narrowed, ordered, pods, ordered.get(0).cheapestOffering(narrowed));
  }

  /**
   * This plan carrying only {@code pods} (a subset of its pods). Requests, options and price stay as
   * planned, so the node keeps room for the pods dropped: consolidation drops pending pods it
   * simulated alongside a candidate's, which provisioning then places on the replacement.
   */
  public PlannedNodeClaim withPods(List<Pod> pods) {
    return new PlannedNodeClaim(this, requirements, instanceTypeOptions, pods, cheapestOffering);
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

  /** The offering the plan is priced at: the cheapest compatible launchable offering of the first option. */
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
