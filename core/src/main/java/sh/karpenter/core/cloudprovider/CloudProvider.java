package sh.karpenter.core.cloudprovider;

import java.util.List;
import java.util.Optional;
import sh.karpenter.core.instancetype.InstanceType;

/**
 * What Karpenter asks of a cloud (upstream pkg/cloudprovider/types.go): the instance types it offers
 * a NodePool, and launching, finding and terminating instances. Implementations are called from many
 * threads at once and must be thread-safe.
 *
 * <p>Errors are the unchecked {@link CloudProviderException} subtypes: {@link
 * InsufficientCapacityException} and {@link NodeClassNotReadyException} make the caller delete the
 * NodeClaim, {@link NodeClaimNotFoundException} answers Get and Delete for an instance that is gone,
 * {@link CreateException} carries a reason for the {@code Launched} condition.
 */
public interface CloudProvider {

  /** The provider's name, e.g. {@code kwok} or {@code aws}. */
  String name();

  /**
   * Every instance type the provider offers the NodePool, including those with no available
   * offering.
   *
   * @param nodePoolName the NodePool asking
   * @param nodeClassRef its {@code spec.template.spec.nodeClassRef}
   */
  List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef);

  /**
   * Launches one instance that satisfies the request; with several instance types allowed, the
   * provider picks (the cheapest available offering, as upstream).
   */
  Instance create(LaunchRequest request);

  /**
   * Terminates the instance; throws {@link NodeClaimNotFoundException} once it is gone, so callers
   * repeat the call until then.
   */
  void delete(String providerId);

  /** The instance, or empty when it does not exist (any more). */
  Optional<Instance> get(String providerId);

  /** Every instance this provider launched for Karpenter. */
  List<Instance> list();

  /** Why the instance drifted from its NodeClass, or "" when it has not. */
  default String driftReason(String providerId, NodeClassRef nodeClassRef) {
    return "";
  }

  /**
   * Why the instance drifted from its NodeClass, or "" when it has not, given the NodeClaim's
   * annotations (where a provider's launch left the NodeClass's static drift hash, e.g. AWS's {@code
   * karpenter.k8s.aws/ec2nodeclass-hash}). Defaults to {@link #driftReason(String, NodeClassRef)}.
   */
  default String driftReason(String providerId, NodeClassRef nodeClassRef, java.util.Map<String, String> nodeClaimAnnotations) {
    return driftReason(providerId, nodeClassRef);
  }

  /**
   * Node conditions that, held past their toleration, make node repair replace a node (with the
   * {@code NodeRepair} gate on; none turns repair off).
   */
  default List<RepairPolicy> repairPolicies() {
    return List.of();
  }

  /** The NodeClass kinds this provider supports; the first is the default. */
  List<NodeClassRef> supportedNodeClasses();
}
