package sh.karpenter.core.scheduling;

import java.util.List;
import java.util.Map;
import java.util.Objects;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;

/**
 * What a NodePool launches: its template's labels, annotations, taints and requirements, its weight
 * and limits, and the instance types the cloud provider offers for it.
 *
 * @param limits the pool's limits, or null for none
 * @param usage what the pool's existing nodes already use (counted against the limits)
 */
public record NodeClaimTemplate(
    String nodePoolName,
    int weight,
    Map<String, String> labels,
    Map<String, String> annotations,
    List<Taint> taints,
    List<Taint> startupTaints,
    Requirements requirements,
    Resources limits,
    Resources usage,
    List<InstanceType> instanceTypes) {
  public NodeClaimTemplate {
    Objects.requireNonNull(nodePoolName, "nodePoolName");
    labels = labels == null ? Map.of() : Map.copyOf(labels);
    annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
    taints = taints == null ? List.of() : List.copyOf(taints);
    startupTaints = startupTaints == null ? List.of() : List.copyOf(startupTaints);
    requirements = requirements == null ? Requirements.EMPTY : requirements.copy().frozen();
    usage = usage == null ? Resources.EMPTY : usage;
    instanceTypes = List.copyOf(instanceTypes);
  }
}
