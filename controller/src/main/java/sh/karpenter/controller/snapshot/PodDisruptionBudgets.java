package sh.karpenter.controller.snapshot;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import sh.karpenter.core.requirements.LabelSelector;

/**
 * What the cluster's PodDisruptionBudgets say about evicting a pod, read two ways as upstream's
 * {@code pdb.Limits} does:
 * <ul>
 *   <li>{@link #blocksEviction}: budgets that forbid every eviction ({@code maxUnavailable} 0 or
 *       {@code "0%"}, or {@code minAvailable} {@code "100%"}); pods behind them stay where they are
 *       while their node is deleted, so provisioning does not launch capacity for them;
 *   <li>{@link #blocksDisruption}: whether an eviction would be refused now ({@code
 *       status.disruptionsAllowed} 0 or not computed yet, or more than one budget selects the pod,
 *       which the Eviction API refuses), so voluntary disruption leaves the pod's node alone.
 * </ul>
 * A budget whose selector is null or cannot be read selects nothing, as for the API server.
 */
public final class PodDisruptionBudgets {
  private record Budget(String key, String namespace, LabelSelector selector, boolean fullyBlocking, int disruptionsAllowed) {}

  private final List<Budget> budgets;

  private PodDisruptionBudgets(List<Budget> budgets) {
    this.budgets = budgets;
  }

  public static PodDisruptionBudgets of(Collection<PodDisruptionBudget> budgets) {
    List<Budget> read = new ArrayList<>();
    for (PodDisruptionBudget pdb : budgets) {
      if (pdb.getSpec() == null || pdb.getSpec().getSelector() == null) {
        continue;
      }
      String namespace = pdb.getMetadata().getNamespace();
      String key = namespace + "/" + pdb.getMetadata().getName();
      try {
        LabelSelector selector = ValueConverter.labelSelector(pdb.getSpec().getSelector(), "PodDisruptionBudget " + key, "spec.selector");
        Integer allowed = pdb.getStatus() == null ? null : pdb.getStatus().getDisruptionsAllowed();
        read.add(new Budget(key, namespace, selector, fullyBlocking(pdb.getSpec().getMaxUnavailable(), pdb.getSpec().getMinAvailable()),
            allowed == null ? 0 : allowed));
      } catch (SnapshotInputException e) {
        // an invalid selector selects nothing for the API server's disruption controller either
      }
    }
    return new PodDisruptionBudgets(List.copyOf(read));
  }

  /** True when a fully blocking budget in the pod's namespace selects it. */
  public boolean blocksEviction(Pod pod) {
    return selecting(pod).stream().anyMatch(Budget::fullyBlocking);
  }

  /** Why the budgets keep this pod from being evicted now, for people, or empty when they do not. */
  public Optional<String> blocksDisruption(Pod pod) {
    List<Budget> matching = selecting(pod);
    if (matching.size() > 1) {
      return Optional.of("pod " + pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName() + " is selected by multiple PDBs ("
          + String.join(", ", matching.stream().map(Budget::key).toList()) + ")");
    }
    if (matching.size() == 1 && matching.getFirst().disruptionsAllowed() <= 0) {
      return Optional.of("pdb " + matching.getFirst().key() + " prevents pod evictions");
    }
    return Optional.empty();
  }

  private List<Budget> selecting(Pod pod) {
    String namespace = pod.getMetadata().getNamespace();
    Map<String, String> labels = pod.getMetadata().getLabels() == null ? Map.of() : pod.getMetadata().getLabels();
    return budgets.stream().filter(b -> b.namespace().equals(namespace) && b.selector().matches(labels)).toList();
  }

  private static boolean fullyBlocking(IntOrString maxUnavailable, IntOrString minAvailable) {
    if (maxUnavailable != null) {
      Object value = maxUnavailable.getValue();
      return (value instanceof Integer i && i == 0) || "0%".equals(value) || "0".equals(value);
    }
    return minAvailable != null && "100%".equals(minAvailable.getValue());
  }
}
