package sh.karpenter.controller.snapshot;

import static sh.karpenter.controller.snapshot.ValueConverter.nullToEmpty;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.api.v1.DisruptionReason;
import sh.karpenter.api.v1.NodeClaimTemplateSpec;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;
import sh.karpenter.core.disruption.Budget;
import sh.karpenter.core.disruption.ConsolidationPolicy;
import sh.karpenter.core.disruption.PoolPolicy;
import sh.karpenter.core.disruption.Reason;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.wellknown.Labels;

/**
 * Turns a NodePool into the scheduler's {@link NodeClaimTemplate}, as upstream's {@code
 * NewNodeClaimTemplate} does: the template labels plus {@code karpenter.sh/nodepool}, the
 * requirements (with minValues) intersected with those labels, taints, startup taints, weight,
 * limits, and the pool's current usage; and into disruption's {@link PoolPolicy} (its {@code
 * spec.disruption}).
 */
public final class NodePoolConverter {
  private NodePoolConverter() {}

  /** Whether the provisioner may launch from this pool: dynamic (no replicas) and not being deleted. */
  static boolean provisionable(NodePool pool) {
    return pool.getMetadata().getDeletionTimestamp() == null
        && (pool.getSpec() == null || pool.getSpec().getReplicas() == null);
  }

  /**
   * @param usage the summed capacity of the pool's existing nodes, with their count as {@code nodes}
   * @param instanceTypes what the cloud provider offers this pool
   */
  static NodeClaimTemplate convert(NodePool pool, Resources usage, List<InstanceType> instanceTypes, String origin) {
    String name = pool.getMetadata().getName();
    if (pool.getSpec() == null || pool.getSpec().getTemplate() == null) {
      throw new SnapshotInputException(origin, "spec.template", "required");
    }
    var template = pool.getSpec().getTemplate();
    Map<String, String> labels = new HashMap<>();
    Map<String, String> annotations = new HashMap<>();
    if (template.getMetadata() != null) {
      labels.putAll(nullToEmpty(template.getMetadata().getLabels()));
      annotations.putAll(nullToEmpty(template.getMetadata().getAnnotations()));
    }
    labels.put(Labels.NODE_POOL, name);
    NodeClaimTemplateSpec spec = template.getSpec() == null ? new NodeClaimTemplateSpec() : template.getSpec();
    Requirements requirements = Requirements.of(requirements(spec.getRequirements(), origin));
    requirements.add(Requirements.fromLabels(labels));
    return new NodeClaimTemplate(
        name,
        pool.getSpec().getWeight() == null ? 0 : pool.getSpec().getWeight(),
        Map.copyOf(labels),
        Map.copyOf(annotations),
        ValueConverter.taints(spec.getTaints(), origin, "spec.template.spec.taints"),
        ValueConverter.taints(spec.getStartupTaints(), origin, "spec.template.spec.startupTaints"),
        requirements,
        pool.getSpec().getLimits() == null ? null : ValueConverter.resources(pool.getSpec().getLimits(), origin, "spec.limits"),
        usage,
        instanceTypes);
  }

  /**
   * The pool's own {@code spec.template.spec.requirements} (without its labels), as the scheduler sees
   * them; drift compares NodeClaims against these.
   *
   * @throws SnapshotInputException naming the field when one does not parse
   */
  public static Requirements requirements(NodePool pool) {
    var template = pool.getSpec() == null || pool.getSpec().getTemplate() == null ? null : pool.getSpec().getTemplate().getSpec();
    if (template == null) {
      return Requirements.EMPTY;
    }
    return Requirements.of(requirements(template.getRequirements(), "NodePool " + pool.getMetadata().getName()));
  }

  private static List<Requirement> requirements(List<NodeSelectorRequirementWithMinValues> list, String origin) {
    List<NodeSelectorRequirementWithMinValues> requirements = nullToEmpty(list);
    List<Requirement> converted = new ArrayList<>(requirements.size());
    for (int i = 0; i < requirements.size(); i++) {
      var r = requirements.get(i);
      converted.add(
          ValueConverter.requirement(
              r.getKey(), r.getOperator(), r.getValues(), r.getMinValues(), origin, "spec.template.spec.requirements[" + i + "]"));
    }
    return converted;
  }

  /**
   * A NodePool's {@code spec.disruption} as disruption's {@link PoolPolicy}, with upstream's defaults
   * (WhenEmptyOrUnderutilized, 0s, [10%]).
   */
  public static PoolPolicy disruptionPolicy(NodePool pool) {
    var disruption = pool.getSpec() == null ? null : pool.getSpec().getDisruption();
    ConsolidationPolicy policy = ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED;
    Duration consolidateAfter = sh.karpenter.api.v1.Disruption.consolidateAfterOf(disruption);
    List<Budget> budgets = new ArrayList<>();
    if (disruption != null) {
      if (disruption.getConsolidationPolicy() != null) {
        policy = switch (disruption.getConsolidationPolicy()) {
          case WhenEmpty -> ConsolidationPolicy.WHEN_EMPTY;
          case WhenEmptyOrUnderutilized -> ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED;
          case Balanced -> ConsolidationPolicy.BALANCED;
        };
      }
      for (sh.karpenter.api.v1.Budget budget : disruption.getBudgets() == null ? List.<sh.karpenter.api.v1.Budget>of() : disruption.getBudgets()) {
        Set<Reason> reasons = null;
        if (budget.getReasons() != null) {
          reasons = new LinkedHashSet<>();
          for (DisruptionReason reason : budget.getReasons()) {
            reasons.add(Reason.ofApiName(reason.name()));
          }
        }
        budgets.add(new Budget(
            budget.getNodes() == null ? Budget.DEFAULT.nodes() : budget.getNodes(),
            budget.getSchedule(),
            budget.getDuration() == null ? null : budget.getDuration().duration(),
            reasons));
      }
    }
    return new PoolPolicy(pool.getMetadata().getName(), policy, consolidateAfter, budgets);
  }
}
