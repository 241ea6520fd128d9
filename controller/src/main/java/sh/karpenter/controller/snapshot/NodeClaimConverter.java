package sh.karpenter.controller.snapshot;

import static sh.karpenter.controller.snapshot.ValueConverter.nullToEmpty;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.wellknown.Labels;

/**
 * Converts an in-flight NodeClaim (created, no registered Node yet) into core's {@link
 * ExistingNode}, so that a provisioning pass places pending pods on capacity that is already on its
 * way instead of launching it twice (upstream's StateNode for a NodeClaim without a Node).
 *
 * <p>The node is not initialized; its labels are the single-valued requirements plus the NodeClaim's
 * own labels, and {@code kubernetes.io/hostname} is the NodeClaim's name so that hostname topology
 * counts it as a domain of its own. Its taints are {@code spec.taints} (startup taints do not keep
 * pods away). Its allocatable is {@code status.allocatable} once launched, and before that the
 * smallest allocatable, dimension by dimension, among the instance types it may still launch as:
 * whatever the cloud provider picks, at least that much fits.
 */
public final class NodeClaimConverter {
  private NodeClaimConverter() {}

  /**
   * The in-flight NodeClaim as a node.
   *
   * @param poolTypes the instance types its NodePool offers (empty when the pool is gone)
   */
  public static ExistingNode inFlight(NodeClaim claim, List<InstanceType> poolTypes, String origin) {
    String name = claim.getMetadata().getName();
    Map<String, String> labels = new LinkedHashMap<>(requirements(claim, origin).labels());
    labels.putAll(nullToEmpty(claim.getMetadata().getLabels()));
    labels.putIfAbsent(Labels.HOSTNAME, name);
    var spec = claim.getSpec();
    return new ExistingNode(
        name,
        labels,
        ValueConverter.taints(spec == null ? null : spec.getTaints(), origin, "spec.taints"),
        allocatable(claim, poolTypes, origin),
        List.of(),
        false,
        labels.get(Labels.NODE_POOL));
  }

  /** The NodeClaim's {@code spec.requirements}. */
  public static Requirements requirements(NodeClaim claim, String origin) {
    List<NodeSelectorRequirementWithMinValues> list = claim.getSpec() == null ? List.of() : nullToEmpty(claim.getSpec().getRequirements());
    List<Requirement> converted = new ArrayList<>(list.size());
    for (int i = 0; i < list.size(); i++) {
      var r = list.get(i);
      converted.add(ValueConverter.requirement(r.getKey(), r.getOperator(), r.getValues(), r.getMinValues(), origin, "spec.requirements[" + i + "]"));
    }
    return Requirements.of(converted);
  }

  /**
   * The instance types the NodeClaim may still launch as: those of its pool that its requirements
   * allow (by name through {@code node.kubernetes.io/instance-type}, and by their labels).
   */
  public static List<InstanceType> options(NodeClaim claim, List<InstanceType> poolTypes, String origin) {
    Requirements requirements = requirements(claim, origin);
    List<InstanceType> options = new ArrayList<>();
    for (InstanceType type : poolTypes) {
      if ((!requirements.has(Labels.INSTANCE_TYPE) || requirements.get(Labels.INSTANCE_TYPE).has(type.name()))
          && type.requirements().intersects(requirements)) {
        options.add(type);
      }
    }
    return options;
  }

  /**
   * What the NodeClaim counts against its NodePool's limits: {@code status.capacity} once launched,
   * else the largest capacity among its options (as the scheduler charges a planned NodeClaim), else
   * its requests.
   */
  public static Resources capacity(NodeClaim claim, List<InstanceType> poolTypes, String origin) {
    var status = claim.getStatus();
    if (status != null && status.getCapacity() != null && !status.getCapacity().isEmpty()) {
      return ValueConverter.resources(status.getCapacity(), origin, "status.capacity");
    }
    Resources max = null;
    for (InstanceType type : options(claim, poolTypes, origin)) {
      max = max == null ? type.capacity() : max.max(type.capacity());
    }
    return max != null ? max : requests(claim, origin);
  }

  /**
   * Room for pods: {@code status.allocatable} once launched, else the per-dimension minimum over the
   * options' allocatable, else the NodeClaim's requests (what it was sized for).
   */
  public static Resources allocatable(NodeClaim claim, List<InstanceType> poolTypes, String origin) {
    var status = claim.getStatus();
    if (status != null && status.getAllocatable() != null && !status.getAllocatable().isEmpty()) {
      return ValueConverter.resources(status.getAllocatable(), origin, "status.allocatable");
    }
    List<InstanceType> options = options(claim, poolTypes, origin);
    if (options.isEmpty()) {
      return requests(claim, origin);
    }
    Map<String, Long> min = new HashMap<>(options.get(0).allocatable().toMilli());
    for (InstanceType type : options.subList(1, options.size())) {
      Map<String, Long> milli = type.allocatable().toMilli();
      min.replaceAll((dimension, value) -> Math.min(value, milli.getOrDefault(dimension, 0L)));
    }
    return Resources.ofMilli(min);
  }

  private static Resources requests(NodeClaim claim, String origin) {
    var spec = claim.getSpec();
    return spec == null || spec.getResources() == null
        ? Resources.EMPTY
        : ValueConverter.resources(spec.getResources().getRequests(), origin, "spec.resources.requests");
  }
}
