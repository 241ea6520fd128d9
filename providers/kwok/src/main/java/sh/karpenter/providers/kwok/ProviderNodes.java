package sh.karpenter.providers.kwok;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.random.RandomGenerator;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.providers.kwok.OfferingSelection.Selection;

/**
 * The Node objects the KWOK provider creates in place of cloud instances, and the {@link Instance}
 * each one stands for. A Node looks as a kubelet started by Karpenter registers it: the instance
 * type's labels, the NodeClaim's labels and taints, the unregistered taint, and the instance type's
 * capacity and allocatable; KWOK then turns it Ready.
 */
final class ProviderNodes {
  private ProviderNodes() {}

  /** Kubernetes' generateName alphabet: no vowels, no look-alike digits. */
  private static final String ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
  private static final int SUFFIX_LENGTH = 5;
  /** A node name is also its hostname label value, which is at most 63 characters. */
  private static final int MAX_NAME = 63;

  /** {@code <nodeclaim name>-<5 random characters>}, a DNS label of at most 63 characters. */
  static String nodeName(String nodeClaimName, RandomGenerator random) {
    String prefix = nodeClaimName == null ? "" : nodeClaimName.toLowerCase(java.util.Locale.ROOT).replaceAll("[^a-z0-9-]", "-");
    if (prefix.length() > MAX_NAME - SUFFIX_LENGTH - 1) {
      prefix = prefix.substring(0, MAX_NAME - SUFFIX_LENGTH - 1);
    }
    prefix = prefix.replaceAll("^-+|-+$", "");
    if (prefix.isEmpty()) {
      prefix = "kwok";
    }
    StringBuilder name = new StringBuilder(prefix).append('-');
    for (int i = 0; i < SUFFIX_LENGTH; i++) {
      name.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
    }
    return name.toString();
  }

  /**
   * The node's labels: the single-valued labels of the instance type's requirements intersected with
   * the request's, the Offering's zone and capacity type, the instance type name, then the request's
   * labels (which win), then the hostname and the provider's marker.
   */
  static Map<String, String> labels(String nodeName, Selection selection, LaunchRequest request) {
    Requirements resolved = selection.instanceType().requirements().copy().add(request.requirements());
    Map<String, String> labels = new LinkedHashMap<>(resolved.labels());
    labels.putAll(selection.offering().requirements().labels());
    labels.put(Labels.INSTANCE_TYPE, selection.instanceType().name());
    labels.putAll(request.labels());
    Labels.SIMULATION_ONLY.forEach(labels::remove);
    labels.put(Labels.HOSTNAME, nodeName);
    labels.put(KwokCloudProvider.PROVIDER_LABEL, KwokCloudProvider.PROVIDER_LABEL_VALUE);
    return labels;
  }

  /** The request's taints, then its startup taints, then {@code karpenter.sh/unregistered:NoExecute}. */
  static List<Taint> taints(LaunchRequest request) {
    List<Taint> taints = new ArrayList<>();
    for (List<Taint> group : List.of(request.taints(), request.startupTaints(), List.of(KwokCloudProvider.UNREGISTERED_TAINT))) {
      for (Taint taint : group) {
        if (taints.stream().noneMatch(taint::matches)) {
          taints.add(taint);
        }
      }
    }
    return taints;
  }

  static Node node(String nodeName, Map<String, String> labels, List<Taint> taints, Selection selection) {
    return new NodeBuilder()
        .withNewMetadata()
          .withName(nodeName)
          .withLabels(labels)
          .addToAnnotations(Annotations.KWOK_NODE, Annotations.KWOK_NODE_VALUE)
        .endMetadata()
        .withNewSpec()
          .withProviderID(KwokCloudProvider.PROVIDER_ID_PREFIX + nodeName)
          .withTaints(taints.stream()
              .map(t -> new TaintBuilder().withKey(t.key()).withValue(t.value().isEmpty() ? null : t.value())
                  .withEffect(t.effect().name()).build())
              .toList())
        .endSpec()
        .withNewStatus()
          .withCapacity(quantities(selection.instanceType().capacity()))
          .withAllocatable(quantities(selection.instanceType().allocatable()))
          .withPhase("Pending")
        .endStatus()
        .build();
  }

  static Instance instance(String nodeName, Map<String, String> labels, Selection selection) {
    return new Instance(
        KwokCloudProvider.PROVIDER_ID_PREFIX + nodeName,
        selection.instanceType().name(),
        nullToEmpty(selection.offering().zone()),
        nullToEmpty(selection.offering().capacityType()),
        labels,
        Map.of(),
        selection.instanceType().capacity(),
        selection.instanceType().allocatable(),
        "");
  }

  /** The instance a Node created by this provider stands for. */
  static Instance instance(Node node) {
    Map<String, String> labels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    String providerId = node.getSpec() == null || node.getSpec().getProviderID() == null
        ? KwokCloudProvider.PROVIDER_ID_PREFIX + node.getMetadata().getName()
        : node.getSpec().getProviderID();
    Map<String, Quantity> capacity = node.getStatus() == null ? null : node.getStatus().getCapacity();
    Map<String, Quantity> allocatable = node.getStatus() == null ? null : node.getStatus().getAllocatable();
    Resources capacityResources = resources(capacity);
    Resources allocatableResources = allocatable == null || allocatable.isEmpty() ? capacityResources : resources(allocatable);
    return new Instance(
        providerId,
        labels.getOrDefault(Labels.INSTANCE_TYPE, ""),
        labels.getOrDefault(Labels.ZONE, ""),
        labels.getOrDefault(Labels.CAPACITY_TYPE, ""),
        labels,
        Map.of(),
        capacityResources,
        allocatableResources,
        "");
  }

  static Map<String, Quantity> quantities(Resources resources) {
    Map<String, Quantity> result = new LinkedHashMap<>();
    resources.toQuantities().forEach((name, quantity) -> result.put(name, new Quantity(quantity)));
    return result;
  }

  /** Node quantities as a resource vector; a quantity that does not parse is left out. */
  static Resources resources(Map<String, Quantity> quantities) {
    if (quantities == null) {
      return Resources.EMPTY;
    }
    Resources.Builder builder = Resources.builder();
    quantities.forEach((name, quantity) -> {
      if (quantity != null && quantity.getAmount() != null) {
        try {
          builder.quantity(name, quantity.getAmount() + (quantity.getFormat() == null ? "" : quantity.getFormat()));
        } catch (IllegalArgumentException e) {
          // a malformed quantity on a Node someone edited: leave the dimension out
        }
      }
    });
    return builder.build();
  }

  private static String nullToEmpty(String s) {
    return s == null ? "" : s;
  }
}
