package sh.karpenter.cli.plan;

import com.fasterxml.jackson.annotation.JsonIgnore;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * The result of {@code karpenter plan}, shaped exactly as the JSON output of the plan contract
 * ({@code docs/plan-contract.md}): components serialise in declaration order, so renaming or
 * reordering them changes the contract.
 *
 * <p>Prices are {@link BigDecimal}s holding the catalogue's decimal value of each offering, so that
 * {@code summary.costPerHour} is exactly the sum of the printed {@code pricePerHour} values.
 *
 * @param lowerBoundMethod how the lower bound was obtained (LP, aggregated LP or per-resource, and
 *     why); printed in the table, not part of the JSON contract
 * @param lowerBoundMillis wall-clock time of the lower bound; printed in the table, not part of the
 *     JSON contract
 * @param costRepackingOutOfBudget NodePools whose cost post-pass stopped at its step budget, so their
 *     NodeClaims are the cheapest plan found by then; printed in the table, not part of the JSON
 *     contract
 */
public record PlanReport(
    List<NodeClaim> nodeClaims,
    List<ExistingNode> existingNodes,
    List<Unschedulable> unschedulable,
    Summary summary,
    @JsonIgnore String lowerBoundMethod,
    @JsonIgnore long lowerBoundMillis,
    @JsonIgnore List<String> costRepackingOutOfBudget) {

  /** A NodeClaim the plan would create, priced at its cheapest compatible offering. */
  public record NodeClaim(
      String name,
      String nodePool,
      String instanceType,
      String zone,
      String capacityType,
      BigDecimal pricePerHour,
      List<String> instanceTypeOptions,
      Map<String, String> labels,
      List<Taint> taints,
      List<Taint> startupTaints,
      Map<String, String> allocatable,
      List<String> pods) {}

  /** A node taint; {@code value} is omitted when empty. */
  @JsonInclude(JsonInclude.Include.NON_EMPTY)
  public record Taint(String key, String value, String effect) {}

  /** An existing node that receives pending pods. */
  public record ExistingNode(String name, List<String> pods) {}

  /** A pending pod the plan cannot place, and why. */
  public record Unschedulable(String pod, String reason) {}

  /**
   * Totals of the plan.
   *
   * @param pendingPods pods to place (every one appears once in the plan)
   * @param scheduledPods pods placed on new NodeClaims or existing nodes
   * @param newNodeClaims NodeClaims to create
   * @param costPerHour sum of the new NodeClaims' {@code pricePerHour}
   * @param lowerBoundPerHour a proven lower bound on the cost of placing the scheduled pods
   * @param solveMillis wall-clock time of the scheduling simulation
   */
  public record Summary(
      int pendingPods,
      int scheduledPods,
      int newNodeClaims,
      BigDecimal costPerHour,
      BigDecimal lowerBoundPerHour,
      long solveMillis) {}
}
