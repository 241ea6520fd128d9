package sh.karpenter.controller.snapshot;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import sh.karpenter.core.requirements.LabelSelector;

/**
 * The PodDisruptionBudgets that forbid every eviction of the pods they select (upstream's
 * {@code pdb.Limits.IsCurrentlyReschedulable}): {@code maxUnavailable} 0 or {@code "0%"}, or
 * {@code minAvailable} {@code "100%"}. Pods behind them stay where they are while their node is
 * deleted, so provisioning does not launch capacity for them.
 */
public final class DisruptionBudgets {
  private record Budget(String namespace, LabelSelector selector) {}

  private final List<Budget> fullyBlocking;

  private DisruptionBudgets(List<Budget> fullyBlocking) {
    this.fullyBlocking = fullyBlocking;
  }

  /** The fully blocking budgets among {@code budgets}; one with an invalid selector is skipped. */
  public static DisruptionBudgets of(Collection<PodDisruptionBudget> budgets) {
    List<Budget> blocking = new ArrayList<>();
    for (PodDisruptionBudget pdb : budgets) {
      if (pdb.getSpec() == null || !fullyBlocking(pdb.getSpec().getMaxUnavailable(), pdb.getSpec().getMinAvailable())) {
        continue;
      }
      String origin = "PodDisruptionBudget " + pdb.getMetadata().getNamespace() + "/" + pdb.getMetadata().getName();
      try {
        blocking.add(new Budget(pdb.getMetadata().getNamespace(), Fields.labelSelector(pdb.getSpec().getSelector(), origin, "spec.selector")));
      } catch (SnapshotInputException e) {
        // an invalid selector selects nothing for the API server's disruption controller either
      }
    }
    return new DisruptionBudgets(List.copyOf(blocking));
  }

  /** True when a fully blocking budget in the pod's namespace selects it. */
  public boolean blocksEviction(Pod pod) {
    String namespace = pod.getMetadata().getNamespace();
    Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    for (Budget budget : fullyBlocking) {
      if (budget.namespace().equals(namespace) && budget.selector().matches(labels)) {
        return true;
      }
    }
    return false;
  }

  private static boolean fullyBlocking(IntOrString maxUnavailable, IntOrString minAvailable) {
    if (maxUnavailable != null) {
      Object value = maxUnavailable.getValue();
      return (value instanceof Integer i && i == 0) || "0%".equals(value) || "0".equals(value);
    }
    return minAvailable != null && "100%".equals(minAvailable.getValue());
  }
}
