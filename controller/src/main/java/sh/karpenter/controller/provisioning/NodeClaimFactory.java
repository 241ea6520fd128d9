package sh.karpenter.controller.provisioning;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.TaintBuilder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimSpec;
import sh.karpenter.api.v1.NodeClaimTemplateSpec;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.v1.NodePoolHash;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;
import sh.karpenter.api.v1.ResourceRequirements;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;

/**
 * Writes a {@link PlannedNodeClaim} as the NodeClaim to create (upstream {@code
 * NodeClaimTemplate.ToNodeClaim} and {@code FinalizeScheduling},
 * docs/behaviour/scheduling.md#from-plan-to-nodeclaim):
 *
 * <ul>
 *   <li>{@code generateName: <nodepool>-}, an owner reference to the NodePool ({@code
 *       blockOwnerDeletion}), so deleting the pool deletes its NodeClaims;
 *   <li>labels: the template labels and {@code karpenter.sh/nodepool}, plus a value for every
 *       custom requirement key the plan leaves open or fixed (single values as they are; several
 *       values or {@code Exists}/bounds resolved to one concrete value). Well-known labels (the
 *       cloud provider's too: any key its instance types define) and restricted domains ({@code
 *       kubernetes.io}, {@code k8s.io}, {@code karpenter.sh}, except {@code node.kubernetes.io},
 *       {@code node-restriction.kubernetes.io}, {@code kops.k8s.io}) are not resolved here: the
 *       provider sets them from the instance it launches;
 *   <li>annotations: the template annotations, the NodePool drift hash and its version, and {@code
 *       karpenter.sh/nodeclaim-min-values-relaxed: "true"} when minValues were relaxed;
 *   <li>spec: the plan's requirements (instance types In its at most 600 options, capacity types,
 *       minValues kept), its requests (pods plus DaemonSet overhead), the template's taints,
 *       startup taints, nodeClassRef, expireAfter and terminationGracePeriod.
 * </ul>
 */
public final class NodeClaimFactory {
  private static final Set<String> RESTRICTED_DOMAINS = Set.of("kubernetes.io", "k8s.io", Labels.GROUP);
  private static final Set<String> DOMAIN_EXCEPTIONS = Set.of("kops.k8s.io", "node.kubernetes.io", "node-restriction.kubernetes.io");

  private NodeClaimFactory() {}

  /** The NodeClaim to create for {@code plan}, launched from {@code pool} (the plan's NodePool). */
  public static NodeClaim create(PlannedNodeClaim plan, NodePool pool) {
    String poolName = pool.getMetadata().getName();
    NodeClaimTemplateSpec template =
        pool.getSpec() == null || pool.getSpec().getTemplate() == null || pool.getSpec().getTemplate().getSpec() == null
            ? new NodeClaimTemplateSpec()
            : pool.getSpec().getTemplate().getSpec();

    Map<String, String> annotations = new TreeMap<>(plan.annotations());
    annotations.put(Annotations.NODE_POOL_HASH, NodePoolHash.of(pool));
    annotations.put(Annotations.NODE_POOL_HASH_VERSION, NodePoolHash.VERSION);
    if (plan.minValuesRelaxed()) {
      annotations.put(Annotations.NODE_CLAIM_MIN_VALUES_RELAXED, "true");
    }

    NodeClaim claim = new NodeClaim();
    claim.setMetadata(new ObjectMetaBuilder()
        .withGenerateName(poolName + "-")
        .withLabels(labels(plan, poolName))
        .withAnnotations(annotations)
        .withOwnerReferences(new OwnerReferenceBuilder()
            .withApiVersion(NodePool.API_VERSION)
            .withKind(NodePool.KIND)
            .withName(poolName)
            .withUid(pool.getMetadata().getUid())
            .withBlockOwnerDeletion(true)
            .build())
        .build());

    NodeClaimSpec spec = new NodeClaimSpec();
    spec.setRequirements(requirements(plan));
    ResourceRequirements resources = new ResourceRequirements();
    Map<String, Quantity> requests = new TreeMap<>();
    plan.requests().toQuantities().forEach((name, value) -> requests.put(name, new Quantity(value)));
    resources.setRequests(requests);
    spec.setResources(resources);
    spec.setTaints(copy(template.getTaints()));
    spec.setStartupTaints(copy(template.getStartupTaints()));
    NodeClassReference ref = template.getNodeClassRef();
    spec.setNodeClassRef(ref == null ? null : new NodeClassReference(ref.getGroup(), ref.getKind(), ref.getName()));
    spec.setExpireAfter(template.getExpireAfter());
    spec.setTerminationGracePeriod(template.getTerminationGracePeriod());
    claim.setSpec(spec);
    return claim;
  }

  /** Template labels, {@code karpenter.sh/nodepool}, and the resolved custom requirement labels. */
  static Map<String, String> labels(PlannedNodeClaim plan, String poolName) {
    Map<String, String> labels = new TreeMap<>(plan.labels());
    labels.put(Labels.NODE_POOL, poolName);
    Set<String> providerKeys = new HashSet<>();
    for (InstanceType type : plan.instanceTypeOptions()) {
      providerKeys.addAll(type.requirements().keys());
    }
    for (Requirement requirement : plan.requirements()) {
      String key = requirement.key();
      if (labels.containsKey(key) || providerKeys.contains(key) || restricted(key)) {
        continue;
      }
      String value = requirement.any();
      if (value != null) {
        labels.put(key, value);
      }
    }
    return labels;
  }

  /** Upstream's {@code IsRestrictedNodeLabel}: well-known, hostname, simulation-only, or a restricted domain. */
  static boolean restricted(String key) {
    if (Labels.WELL_KNOWN.contains(key) || Labels.HOSTNAME.equals(key) || Labels.SIMULATION_ONLY.contains(key)) {
      return true;
    }
    int slash = key.indexOf('/');
    if (slash < 0) {
      return false;
    }
    String domain = key.substring(0, slash);
    for (String exception : DOMAIN_EXCEPTIONS) {
      if (domain.endsWith(exception)) {
        return false;
      }
    }
    for (String restricted : RESTRICTED_DOMAINS) {
      if (domain.endsWith(restricted)) {
        return true;
      }
    }
    return false;
  }

  /** The plan's requirements as node selector requirements (hostname and simulation-only keys are already gone). */
  static List<NodeSelectorRequirementWithMinValues> requirements(PlannedNodeClaim plan) {
    List<NodeSelectorRequirementWithMinValues> list = new ArrayList<>();
    for (Requirement requirement : plan.requirements()) {
      if (Labels.HOSTNAME.equals(requirement.key()) || Labels.SIMULATION_ONLY.contains(requirement.key())) {
        continue;
      }
      for (Requirement.Expression e : requirement.toExpressions()) {
        list.add(new NodeSelectorRequirementWithMinValues(
            e.key(), e.operator().name(), e.values().isEmpty() ? null : List.copyOf(e.values()), e.minValues()));
      }
    }
    return list;
  }

  private static List<Taint> copy(List<Taint> taints) {
    if (taints == null || taints.isEmpty()) {
      return null;
    }
    List<Taint> copies = new ArrayList<>(taints.size());
    taints.forEach(t -> copies.add(new TaintBuilder(t).build()));
    return copies;
  }
}
