package sh.karpenter.providers.aws.cloudprovider;

import io.fabric8.kubernetes.api.model.Condition;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import sh.karpenter.api.aws.v1.AMI;
import sh.karpenter.api.aws.v1.AwsAnnotations;
import sh.karpenter.api.aws.v1.EC2NodeClass;
import sh.karpenter.api.aws.v1.EC2NodeClassConditions;
import sh.karpenter.api.aws.v1.EC2NodeClassHash;
import sh.karpenter.api.aws.v1.SecurityGroup;
import sh.karpenter.api.aws.v1.Subnet;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.CreateException;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.cloudprovider.RepairPolicy;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.aws.instance.AwsInstance;
import sh.karpenter.providers.aws.instance.InstanceProvider;
import sh.karpenter.providers.aws.instancetype.InstanceTypeException;
import sh.karpenter.providers.aws.instancetype.InstanceTypeProvider;

/**
 * The AWS cloud provider (upstream {@code pkg/cloudprovider/cloudprovider.go} and {@code drift.go}):
 * instance types of an EC2NodeClass from {@link InstanceTypeProvider}, launch, lookup and termination
 * through {@link InstanceProvider}, and NodeClass drift. The EC2NodeClass comes resolved (status
 * subnets, security groups, AMIs, instance profile and the Ready condition, written by the NodeClass
 * controller) from {@code nodeClasses}, usually an informer's cache. Thread-safe.
 *
 * <p>Behaviour: docs/behaviour/aws.md.
 */
public final class AwsCloudProvider implements CloudProvider {
  public static final String NAME = "aws";
  public static final NodeClassRef NODE_CLASS = new NodeClassRef(EC2NodeClass.GROUP, EC2NodeClass.KIND, "");

  /** Drift reasons (upstream's {@code AMIDrift}, {@code SubnetDrift}, {@code SecurityGroupDrift}, {@code NodeClassDrift}). */
  public static final String AMI_DRIFT = "AMIDrift";
  public static final String SUBNET_DRIFT = "SubnetDrift";
  public static final String SECURITY_GROUP_DRIFT = "SecurityGroupDrift";
  public static final String NODE_CLASS_DRIFT = "NodeClassDrift";

  /**
   * Upstream's node conditions that, held past their toleration, make a node unhealthy: the kubelet's
   * Ready (False or Unknown) and the Node Monitoring Agent's conditions, each 30 minutes except
   * AcceleratedHardwareReady (10 minutes for the XID families upstream replaces quickly; this port
   * matches on condition and status only, so it takes upstream's fallback of 30 minutes).
   */
  public static final List<RepairPolicy> REPAIR_POLICIES = List.of(
      new RepairPolicy("Ready", "False", Duration.ofMinutes(30)),
      new RepairPolicy("Ready", "Unknown", Duration.ofMinutes(30)),
      new RepairPolicy("AcceleratedHardwareReady", "False", Duration.ofMinutes(30)),
      new RepairPolicy("StorageReady", "False", Duration.ofMinutes(30)),
      new RepairPolicy("NetworkingReady", "False", Duration.ofMinutes(30)),
      new RepairPolicy("KernelReady", "False", Duration.ofMinutes(30)),
      new RepairPolicy("ContainerRuntimeReady", "False", Duration.ofMinutes(30)));

  private final Function<String, Optional<EC2NodeClass>> nodeClasses;
  private final InstanceTypeProvider instanceTypes;
  private final InstanceProvider instances;

  /**
   * @param nodeClasses the EC2NodeClass of a name, or empty when there is none
   */
  public AwsCloudProvider(
      Function<String, Optional<EC2NodeClass>> nodeClasses, InstanceTypeProvider instanceTypes, InstanceProvider instances) {
    this.nodeClasses = nodeClasses;
    this.instanceTypes = instanceTypes;
    this.instances = instances;
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * The NodeClass's instance types; none while the class does not exist or has no subnets resolved
   * yet (upstream answers no types when the class is not found), so the scheduler gives its pods a
   * reason instead of failing.
   */
  @Override
  public List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef) {
    Optional<EC2NodeClass> nodeClass = nodeClass(nodeClassRef);
    if (nodeClass.isEmpty() || !hasSubnets(nodeClass.get())) {
      return List.of();
    }
    try {
      return instanceTypes.list(nodeClass.get());
    } catch (InstanceTypeException e) {
      return List.of();
    }
  }

  /**
   * Upstream's {@code Create}: the NodeClass must exist, be Ready and be reconciled against its
   * current spec; then the instance types it offers go to the instance provider, which narrows them
   * to the request, picks and launches one (insufficient capacity when none is launchable). The NodeClaim gets the class's drift hash.
   */
  @Override
  public Instance create(LaunchRequest request) {
    EC2NodeClass nodeClass = nodeClass(request.nodeClassRef())
        .orElseThrow(() -> new InsufficientCapacityException(
            "resolving nodeclass: EC2NodeClass \"" + request.nodeClassRef().name() + "\" not found"));
    checkReady(nodeClass);
    List<InstanceType> types;
    try {
      types = instanceTypes.list(nodeClass);
    } catch (InstanceTypeException e) {
      throw new CreateException("InstanceTypeResolutionFailed", "Error resolving instance types: " + e.getMessage(), e);
    }
    // the instance provider narrows the types to the request and refuses when none is launchable
    Instance launched = instances.create(nodeClass, request, types);
    InstanceType type = types.stream().filter(t -> t.name().equals(launched.instanceType())).findFirst().orElse(null);
    Map<String, String> annotations = new HashMap<>(launched.annotations());
    annotations.putAll(hashAnnotations(nodeClass));
    return withType(launched, type, annotations);
  }

  @Override
  public void delete(String providerId) {
    instances.delete(providerId);
  }

  @Override
  public Optional<Instance> get(String providerId) {
    return instances.describe(providerId).map(this::instance);
  }

  @Override
  public List<Instance> list() {
    List<Instance> out = new ArrayList<>();
    for (AwsInstance instance : instances.listAws()) {
      out.add(instance(instance));
    }
    return out;
  }

  @Override
  public String driftReason(String providerId, NodeClassRef nodeClassRef) {
    return driftReason(providerId, nodeClassRef, Map.of());
  }

  /**
   * Upstream's {@code IsDrifted}: the class's static drift hash against the one the NodeClaim was
   * launched with (same hash version only), then the instance's AMI, subnet and security groups
   * against the class's resolved status. "" when the class or the instance is gone, or the status is
   * not resolved yet.
   */
  @Override
  public String driftReason(String providerId, NodeClassRef nodeClassRef, Map<String, String> nodeClaimAnnotations) {
    Optional<EC2NodeClass> found = nodeClass(nodeClassRef);
    if (found.isEmpty()) {
      return "";
    }
    EC2NodeClass nodeClass = found.get();
    String staticDrift = staticDrift(nodeClass, nodeClaimAnnotations);
    if (!staticDrift.isEmpty()) {
      return staticDrift;
    }
    Optional<AwsInstance> instance = instances.describe(providerId);
    if (instance.isEmpty() || nodeClass.getStatus() == null) {
      return "";
    }
    return instanceDrift(nodeClass, instance.get());
  }

  /** {@value #NODE_CLASS_DRIFT} when both hashes exist at the same version and differ. */
  static String staticDrift(EC2NodeClass nodeClass, Map<String, String> nodeClaimAnnotations) {
    Map<String, String> classAnnotations = nodeClass.getMetadata().getAnnotations() == null ? Map.of() : nodeClass.getMetadata().getAnnotations();
    String classHash = classAnnotations.get(AwsAnnotations.EC2_NODE_CLASS_HASH);
    String claimHash = nodeClaimAnnotations.get(AwsAnnotations.EC2_NODE_CLASS_HASH);
    String classVersion = classAnnotations.get(AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION);
    String claimVersion = nodeClaimAnnotations.get(AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION);
    if (classHash == null || claimHash == null || classVersion == null || !classVersion.equals(claimVersion)) {
      return "";
    }
    return classHash.equals(claimHash) ? "" : NODE_CLASS_DRIFT;
  }

  /** AMI, then subnet, then security-group drift of a live instance against the class's status. */
  static String instanceDrift(EC2NodeClass nodeClass, AwsInstance instance) {
    var status = nodeClass.getStatus();
    List<AMI> amis = status.getAmis() == null ? List.of() : status.getAmis();
    if (!amis.isEmpty() && !instance.imageId().isEmpty() && amis.stream().noneMatch(a -> instance.imageId().equals(a.getId()))) {
      return AMI_DRIFT;
    }
    List<Subnet> subnets = status.getSubnets() == null ? List.of() : status.getSubnets();
    if (!subnets.isEmpty() && subnets.stream().noneMatch(s -> s.getId().equals(instance.subnetId()))) {
      return SUBNET_DRIFT;
    }
    List<SecurityGroup> groups = status.getSecurityGroups() == null ? List.of() : status.getSecurityGroups();
    if (!groups.isEmpty()) {
      Set<String> resolved = new HashSet<>();
      groups.forEach(g -> resolved.add(g.getId()));
      if (!resolved.equals(new HashSet<>(instance.securityGroupIds()))) {
        return SECURITY_GROUP_DRIFT;
      }
    }
    return "";
  }

  @Override
  public List<RepairPolicy> repairPolicies() {
    return REPAIR_POLICIES;
  }

  @Override
  public List<NodeClassRef> supportedNodeClasses() {
    return List.of(NODE_CLASS);
  }

  private Optional<EC2NodeClass> nodeClass(NodeClassRef ref) {
    if (ref == null || !ref.sameKind(NODE_CLASS) || ref.name().isEmpty()) {
      return Optional.empty();
    }
    return nodeClasses.apply(ref.name());
  }

  /**
   * Upstream's readiness gate: Ready=False or missing is {@link NodeClassNotReadyException}, Unknown
   * a {@link CreateException} ({@code NodeClassReadinessUnknown}), and a Ready condition observed at an
   * older generation means the status is stale.
   */
  static void checkReady(EC2NodeClass nodeClass) {
    String name = nodeClass.getMetadata().getName();
    Condition ready = condition(nodeClass, EC2NodeClassConditions.READY);
    if (ready == null || "False".equals(ready.getStatus())) {
      String why = ready == null ? "it has no Ready condition yet" : ready.getMessage();
      throw new NodeClassNotReadyException("EC2NodeClass \"" + name + "\" is not ready: " + why);
    }
    if (!"True".equals(ready.getStatus())) {
      throw new CreateException("NodeClassReadinessUnknown", "NodeClass is in Ready=Unknown: " + ready.getMessage(), null);
    }
    Long generation = nodeClass.getMetadata().getGeneration();
    if (generation != null && ready.getObservedGeneration() != null && ready.getObservedGeneration() < generation) {
      throw new NodeClassNotReadyException(
          "EC2NodeClass \"" + name + "\": status has not been reconciled against the latest spec");
    }
  }

  private static Condition condition(EC2NodeClass nodeClass, String type) {
    if (nodeClass.getStatus() == null || nodeClass.getStatus().getConditions() == null) {
      return null;
    }
    return nodeClass.getStatus().getConditions().stream().filter(c -> type.equals(c.getType())).findFirst().orElse(null);
  }

  private static boolean hasSubnets(EC2NodeClass nodeClass) {
    return nodeClass.getStatus() != null && nodeClass.getStatus().getSubnets() != null && !nodeClass.getStatus().getSubnets().isEmpty();
  }

  private static Map<String, String> hashAnnotations(EC2NodeClass nodeClass) {
    Map<String, String> annotations = nodeClass.getMetadata().getAnnotations();
    String hash = annotations == null ? null : annotations.get(AwsAnnotations.EC2_NODE_CLASS_HASH);
    if (hash == null) {
      hash = EC2NodeClassHash.of(nodeClass, null);
    }
    return Map.of(AwsAnnotations.EC2_NODE_CLASS_HASH, hash, AwsAnnotations.EC2_NODE_CLASS_HASH_VERSION, EC2NodeClassHash.VERSION);
  }

  /** A described instance with capacity from its type, when its class and type are known. */
  private Instance instance(AwsInstance described) {
    Instance instance = InstanceProvider.instance(described);
    String className = described.tags().get(sh.karpenter.api.aws.v1.AwsTags.NODE_CLASS);
    InstanceType type = className == null ? null : nodeClasses.apply(className)
        .filter(AwsCloudProvider::hasSubnets)
        .flatMap(nc -> {
          try {
            return instanceTypes.get(nc, described.instanceType());
          } catch (InstanceTypeException e) {
            return Optional.empty();
          }
        })
        .orElse(null);
    return withType(instance, type, instance.annotations());
  }

  private static Instance withType(Instance instance, InstanceType type, Map<String, String> annotations) {
    Map<String, String> labels = new HashMap<>(instance.labels());
    if (type != null) {
      type.requirements().labels().forEach(labels::putIfAbsent);
    }
    labels.putIfAbsent(Labels.CAPACITY_TYPE, instance.capacityType());
    return new Instance(instance.providerId(), instance.instanceType(), instance.zone(), instance.capacityType(), labels, annotations,
        type == null ? instance.capacity() : type.capacity(), type == null ? instance.allocatable() : type.allocatable(),
        instance.imageId());
  }
}
