package sh.karpenter.core.pod;

import java.util.List;
import java.util.Objects;
import java.util.Set;
import sh.karpenter.core.requirements.LabelSelector;

/**
 * A pod (anti-)affinity term: pods matching {@code selector} in the selected namespaces, counted per
 * domain of {@code topologyKey}.
 *
 * @param selector the pods this term is about ({@link LabelSelector#NOTHING} when absent)
 * @param namespaces namespaces named explicitly; with an empty set and no namespace selector, the
 *     pod's own namespace
 * @param namespaceSelector namespaces selected by label, or null when absent ({@link
 *     LabelSelector#EVERYTHING} selects all namespaces)
 * @param matchLabelKeys pod label keys whose values (from the incoming pod) are ANDed into the selector
 */
public record PodAffinityTerm(
    LabelSelector selector,
    Set<String> namespaces,
    LabelSelector namespaceSelector,
    String topologyKey,
    List<String> matchLabelKeys) {
  public PodAffinityTerm {
    selector = selector == null ? LabelSelector.NOTHING : selector;
    namespaces = namespaces == null ? Set.of() : Set.copyOf(namespaces);
    Objects.requireNonNull(topologyKey, "topologyKey");
    matchLabelKeys = matchLabelKeys == null ? List.of() : List.copyOf(matchLabelKeys);
  }

  /** A term over the pod's own namespace. */
  public static PodAffinityTerm of(LabelSelector selector, String topologyKey) {
    return new PodAffinityTerm(selector, Set.of(), null, topologyKey, List.of());
  }
}
