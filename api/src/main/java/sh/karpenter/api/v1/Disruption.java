package sh.karpenter.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.time.Duration;
import java.util.List;
import sh.karpenter.core.disruption.ConsolidateAfter;

/** How and when Karpenter may disrupt a NodePool's nodes ({@code spec.disruption}). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class Disruption {
  private NillableDuration consolidateAfter;
  private ConsolidationPolicy consolidationPolicy;
  private List<Budget> budgets;

  /** How long a node must be a consolidation candidate first; {@code Never} turns off consolidation and emptiness. */
  public NillableDuration getConsolidateAfter() { return consolidateAfter; }

  public void setConsolidateAfter(NillableDuration consolidateAfter) { this.consolidateAfter = consolidateAfter; }

  /**
   * The consolidateAfter a NodePool's {@code spec.disruption} sets: null for {@code Never}, the CRD
   * default ({@link ConsolidateAfter#DEFAULT}, 0s) when the field or the whole block is absent.
   */
  public static Duration consolidateAfterOf(Disruption disruption) {
    NillableDuration value = disruption == null ? null : disruption.consolidateAfter;
    return value == null ? ConsolidateAfter.DEFAULT : value.duration();
  }

  public ConsolidationPolicy getConsolidationPolicy() { return consolidationPolicy; }

  public void setConsolidationPolicy(ConsolidationPolicy consolidationPolicy) { this.consolidationPolicy = consolidationPolicy; }

  public List<Budget> getBudgets() { return budgets; }

  public void setBudgets(List<Budget> budgets) { this.budgets = budgets; }
}
