package sh.karpenter.controller.nodeclaim.lifecycle;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimSpec;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.requirements.Operator;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.taints.Taint;

/**
 * Turns a NodeClaim into the {@link LaunchRequest} the cloud provider launches from: its name and
 * NodePool, {@code spec.nodeClassRef}, {@code spec.requirements} (with minValues), {@code
 * spec.resources.requests}, its labels, {@code spec.taints} and {@code spec.startupTaints}.
 */
public final class LaunchRequests {
  private LaunchRequests() {}

  /**
   * @throws IllegalArgumentException naming the field when the NodeClaim cannot be launched as
   *     written (an unknown operator, an invalid quantity, ...)
   */
  public static LaunchRequest from(NodeClaim nodeClaim) {
    NodeClaimSpec spec = nodeClaim.getSpec() == null ? new NodeClaimSpec() : nodeClaim.getSpec();
    NodeClassReference ref = spec.getNodeClassRef();
    Map<String, String> labels = nodeClaim.getMetadata().getLabels();
    return new LaunchRequest(
        nodeClaim.getMetadata().getName(),
        NodeClaims.nodePool(nodeClaim),
        ref == null ? new NodeClassRef("", "", "") : new NodeClassRef(ref.getGroup(), ref.getKind(), ref.getName()),
        requirements(spec.getRequirements()),
        requests(spec.getResources() == null ? null : spec.getResources().getRequests()),
        labels == null ? Map.of() : labels,
        taints(spec.getTaints(), "spec.taints"),
        taints(spec.getStartupTaints(), "spec.startupTaints"));
  }

  static Requirements requirements(List<NodeSelectorRequirementWithMinValues> list) {
    List<Requirement> requirements = new ArrayList<>();
    List<NodeSelectorRequirementWithMinValues> items = list == null ? List.of() : list;
    for (int i = 0; i < items.size(); i++) {
      NodeSelectorRequirementWithMinValues r = items.get(i);
      String field = "spec.requirements[" + i + "]";
      if (r.getKey() == null || r.getKey().isEmpty()) {
        throw new IllegalArgumentException(field + ".key: required");
      }
      try {
        requirements.add(
            Requirement.of(r.getKey(), Operator.parse(r.getOperator()), r.getValues() == null ? List.of() : r.getValues(), r.getMinValues()));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(field + ": " + e.getMessage(), e);
      }
    }
    return Requirements.of(requirements);
  }

  static Resources requests(Map<String, Quantity> requests) {
    if (requests == null || requests.isEmpty()) {
      return Resources.EMPTY;
    }
    Resources.Builder builder = Resources.builder();
    requests.forEach((name, quantity) -> {
      String text = quantity == null ? "" : quantity.toString();
      try {
        builder.quantity(name, text);
      } catch (IllegalArgumentException | ArithmeticException e) {
        throw new IllegalArgumentException("spec.resources.requests." + name + ": invalid quantity \"" + text + "\"", e);
      }
    });
    return builder.build();
  }

  static List<Taint> taints(List<io.fabric8.kubernetes.api.model.Taint> taints, String field) {
    List<Taint> converted = new ArrayList<>();
    List<io.fabric8.kubernetes.api.model.Taint> items = taints == null ? List.of() : taints;
    for (int i = 0; i < items.size(); i++) {
      io.fabric8.kubernetes.api.model.Taint t = items.get(i);
      try {
        converted.add(new Taint(t.getKey(), t.getValue(), Taint.Effect.parse(t.getEffect())));
      } catch (IllegalArgumentException | NullPointerException e) {
        throw new IllegalArgumentException(field + "[" + i + "]: " + e.getMessage(), e);
      }
    }
    return converted;
  }
}
