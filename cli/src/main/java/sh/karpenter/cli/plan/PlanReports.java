package sh.karpenter.cli.plan;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import sh.karpenter.controller.snapshot.ClusterSnapshot;
import sh.karpenter.core.cost.LowerBound;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.PodError;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Labels;

/** Turns a scheduling result into the {@link PlanReport} of the plan contract. */
final class PlanReports {
  private PlanReports() {}

  /** Digits kept of the lower bound; it is rounded down so that it stays a lower bound. */
  private static final int LOWER_BOUND_SCALE = 6;

  static PlanReport of(ClusterSnapshot snapshot, SchedulingResult result, LowerBound lowerBound, long solveMillis, long lowerBoundMillis) {
    NodeClaimNames names = new NodeClaimNames();
    List<PlanReport.NodeClaim> nodeClaims = new ArrayList<>(result.newNodeClaims().size());
    Set<Pod> accounted = Collections.newSetFromMap(new java.util.IdentityHashMap<>());
    BigDecimal cost = BigDecimal.ZERO;
    for (PlannedNodeClaim claim : result.newNodeClaims()) {
      PlanReport.NodeClaim entry = nodeClaim(names.next(claim.nodePoolName()), claim);
      nodeClaims.add(entry);
      cost = cost.add(entry.pricePerHour());
      accounted.addAll(claim.pods());
    }

    List<PlanReport.ExistingNode> existingNodes = new ArrayList<>();
    new TreeMap<>(result.existingNodePlacements())
        .forEach(
            (node, pods) -> {
              if (!pods.isEmpty()) {
                existingNodes.add(new PlanReport.ExistingNode(node, keys(pods)));
                accounted.addAll(pods);
              }
            });
    int scheduled = accounted.size();

    List<PlanReport.Unschedulable> unschedulable = new ArrayList<>();
    for (PodError error : snapshot.rejectedPods()) {
      unschedulable.add(new PlanReport.Unschedulable(error.pod().key(), error.reason()));
    }
    for (PodError error : result.unschedulable()) {
      if (accounted.add(error.pod())) {
        unschedulable.add(new PlanReport.Unschedulable(error.pod().key(), error.reason()));
      }
    }
    for (PodError error : result.deferred()) {
      if (accounted.add(error.pod())) {
        unschedulable.add(new PlanReport.Unschedulable(error.pod().key(), "deferred to the next pass: " + error.reason()));
      }
    }
    for (Pod pod : snapshot.pendingPods()) {
      if (accounted.add(pod)) {
        unschedulable.add(new PlanReport.Unschedulable(pod.key(), "not placed in this pass (deferred by the scheduler)"));
      }
    }

    PlanReport.Summary summary =
        new PlanReport.Summary(
            snapshot.pendingPods().size() + snapshot.rejectedPods().size(),
            scheduled,
            nodeClaims.size(),
            cost,
            BigDecimal.valueOf(lowerBound.perHour()).setScale(LOWER_BOUND_SCALE, RoundingMode.FLOOR).stripTrailingZeros(),
            solveMillis);
    return new PlanReport(
        List.copyOf(nodeClaims), List.copyOf(existingNodes), List.copyOf(unschedulable), summary, lowerBound.describe(), lowerBoundMillis,
        result.costRepackingOutOfBudget());
  }

  private static PlanReport.NodeClaim nodeClaim(String name, PlannedNodeClaim claim) {
    InstanceType type = claim.cheapestInstanceType();
    Offering offering = claim.cheapestOffering();
    return new PlanReport.NodeClaim(
        name,
        claim.nodePoolName(),
        type.name(),
        offering.zone(),
        offering.capacityType(),
        BigDecimal.valueOf(offering.price()),
        claim.instanceTypeOptions().stream().map(InstanceType::name).toList(),
        labels(name, claim, type, offering),
        taints(claim.taints()),
        taints(claim.startupTaints()),
        type.allocatable().toQuantities(),
        keys(claim.pods()));
  }

  /**
   * The labels the node will carry: the claim's single-valued requirements, the NodePool template
   * labels, the chosen instance type's and offering's well-known labels, and the hostname.
   */
  private static Map<String, String> labels(String name, PlannedNodeClaim claim, InstanceType type, Offering offering) {
    Map<String, String> labels = new TreeMap<>(claim.requirements().labels());
    labels.putAll(claim.labels());
    labels.putAll(type.requirements().labels());
    labels.putAll(offering.requirements().labels());
    labels.put(Labels.HOSTNAME, name);
    labels.keySet().removeAll(Labels.SIMULATION_ONLY);
    return labels;
  }

  private static List<PlanReport.Taint> taints(List<Taint> taints) {
    return taints.stream().map(t -> new PlanReport.Taint(t.key(), t.value(), t.effect().name())).toList();
  }

  private static List<String> keys(List<Pod> pods) {
    return pods.stream().map(Pod::key).toList();
  }
}
