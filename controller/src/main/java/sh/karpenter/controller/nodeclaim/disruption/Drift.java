package sh.karpenter.controller.nodeclaim.disruption;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimSpec;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.api.v1.NodePoolHash;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.snapshot.NodePoolConverter;
import sh.karpenter.controller.snapshot.SnapshotInputException;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.requirements.Requirement;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.core.wellknown.Labels;

/**
 * Decides whether a launched NodeClaim has drifted from its NodePool or its NodeClass, and why
 * (upstream nodeclaim/disruption/drift.go,
 * docs/behaviour/nodeclaim-lifecycle.md#drifted-condition), checking in this order:
 *
 * <ol>
 *   <li>{@value #NODE_POOL_DRIFTED}: static drift, the NodeClaim's {@code karpenter.sh/nodepool-hash}
 *       differs from the pool's {@link NodePoolHash} — judged only when the NodeClaim carries the
 *       current hash version (and the pool, if it is annotated, too), as a hash of another version
 *       is not comparable;
 *   <li>{@value #REQUIREMENTS_DRIFTED}: the pool's requirements are no longer compatible with the
 *       NodeClaim's labels (every requirement key must be labelled, unless NotIn/DoesNotExist);
 *   <li>{@value #INSTANCE_TYPE_NOT_FOUND}: once the NodeClaim is {@link #INSTANCE_TYPE_MIN_AGE} old,
 *       its instance type is no longer offered to the pool, or has no offering compatible with its
 *       zone and capacity type (a reserved NodeClaim also accepts on-demand, since it may be demoted);
 *       the instance types are looked up at most every 30 minutes;
 *   <li>whatever the cloud provider's {@link CloudProvider#driftReason} answers.
 * </ol>
 *
 * Thread-safe.
 */
public final class Drift {
  public static final String NODE_POOL_DRIFTED = "NodePoolDrifted";
  public static final String REQUIREMENTS_DRIFTED = "RequirementsDrifted";
  public static final String INSTANCE_TYPE_NOT_FOUND = "InstanceTypeNotFound";
  /**
   * Younger NodeClaims are not checked for {@value #INSTANCE_TYPE_NOT_FOUND}
   * (docs/behaviour/options.md).
   */
  public static final Duration INSTANCE_TYPE_MIN_AGE = Duration.ofHours(1);
  /** How often the condition is re-checked (docs/behaviour/options.md). */
  public static final Duration RECHECK = Duration.ofMinutes(5);

  private final CloudProvider cloudProvider;
  private final Clock clock;
  private final InstanceTypeCache instanceTypes;

  public Drift(CloudProvider cloudProvider, Clock clock) {
    this.cloudProvider = cloudProvider;
    this.clock = clock;
    this.instanceTypes = new InstanceTypeCache(cloudProvider, clock);
  }

  /**
   * Why the launched NodeClaim has drifted, or "" when it has not. Throws what the cloud provider
   * throws.
   */
  public String reason(NodePool pool, NodeClaim nodeClaim) {
    String reason = staticDrift(pool, nodeClaim);
    if (reason.isEmpty()) {
      reason = requirementsDrift(pool, nodeClaim);
    }
    if (reason.isEmpty() && oldEnoughForInstanceTypeDrift(nodeClaim, clock.instant())) {
      reason = instanceTypeDrift(instanceTypes.get(pool.getMetadata().getName(), nodeClassRef(pool)), nodeClaim);
    }
    if (reason.isEmpty()) {
      String provider = cloudProvider.driftReason(Metadata.providerId(nodeClaim), nodeClassRef(nodeClaim.getSpec()),
          orEmpty(nodeClaim.getMetadata().getAnnotations()));
      reason = provider == null ? "" : provider;
    }
    return reason;
  }

  /** {@value #NODE_POOL_DRIFTED} when the hashes of the same, current version differ, else "". */
  static String staticDrift(NodePool pool, NodeClaim nodeClaim) {
    Map<String, String> claim = orEmpty(nodeClaim.getMetadata().getAnnotations());
    String claimHash = claim.get(Annotations.NODE_POOL_HASH);
    if (claimHash == null || !NodePoolHash.VERSION.equals(claim.get(Annotations.NODE_POOL_HASH_VERSION))) {
      return "";
    }
    String poolVersion = orEmpty(pool.getMetadata().getAnnotations()).get(Annotations.NODE_POOL_HASH_VERSION);
    if (poolVersion != null && !NodePoolHash.VERSION.equals(poolVersion)) {
      return "";
    }
    return claimHash.equals(NodePoolHash.of(pool)) ? "" : NODE_POOL_DRIFTED;
  }

  /**
   * {@value #REQUIREMENTS_DRIFTED} when the NodeClaim's labels no longer satisfy the pool's
   * requirements, else "" (also for requirements that do not parse: nodepool.validation reports
   * those, and an invalid pool is no reason to replace its nodes).
   */
  static String requirementsDrift(NodePool pool, NodeClaim nodeClaim) {
    Requirements requirements;
    try {
      requirements = NodePoolConverter.requirements(pool);
    } catch (SnapshotInputException e) {
      return "";
    }
    Requirements labels = Requirements.fromLabels(orEmpty(nodeClaim.getMetadata().getLabels()));
    return labels.isStrictlyCompatible(requirements) ? "" : REQUIREMENTS_DRIFTED;
  }

  static boolean oldEnoughForInstanceTypeDrift(NodeClaim nodeClaim, Instant now) {
    String created = nodeClaim.getMetadata().getCreationTimestamp();
    return created != null && !Instant.parse(created).plus(INSTANCE_TYPE_MIN_AGE).isAfter(now);
  }

  /**
   * {@value #INSTANCE_TYPE_NOT_FOUND} when the NodeClaim's instance type is not among {@code types},
   * or none of its offerings (available or not) is compatible with the NodeClaim's labels; else "".
   */
  static String instanceTypeDrift(List<InstanceType> types, NodeClaim nodeClaim) {
    Map<String, String> labels = orEmpty(nodeClaim.getMetadata().getLabels());
    Optional<InstanceType> type = types.stream().filter(t -> t.name().equals(labels.get(Labels.INSTANCE_TYPE))).findFirst();
    if (type.isEmpty()) {
      return INSTANCE_TYPE_NOT_FOUND;
    }
    Requirements requirements = Requirements.fromLabels(labels);
    if (Labels.CAPACITY_TYPE_RESERVED.equals(labels.get(Labels.CAPACITY_TYPE))) {
      // A reserved NodeClaim may be demoted to on-demand before its label changes; the reservation is the provider's to judge.
      requirements.put(Requirement.in(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_RESERVED, Labels.CAPACITY_TYPE_ON_DEMAND));
      requirements.remove(Labels.RESERVATION_ID);
    }
    return type.get().offerings().stream().anyMatch(o -> o.isCompatible(requirements)) ? "" : INSTANCE_TYPE_NOT_FOUND;
  }

  private static NodeClassRef nodeClassRef(NodePool pool) {
    var template = pool.getSpec() == null || pool.getSpec().getTemplate() == null ? null : pool.getSpec().getTemplate().getSpec();
    return template == null ? new NodeClassRef("", "", "") : toRef(template.getNodeClassRef());
  }

  private static NodeClassRef nodeClassRef(NodeClaimSpec spec) {
    return spec == null ? new NodeClassRef("", "", "") : toRef(spec.getNodeClassRef());
  }

  private static NodeClassRef toRef(NodeClassReference ref) {
    return ref == null ? new NodeClassRef("", "", "") : new NodeClassRef(ref.getGroup(), ref.getKind(), ref.getName());
  }

  private static Map<String, String> orEmpty(Map<String, String> map) {
    return map == null ? Map.of() : map;
  }
}
