package sh.karpenter.core.cloudprovider;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.requirements.Requirements;
import sh.karpenter.core.wellknown.Labels;

/**
 * An in-memory {@link CloudProvider} for unit tests, after upstream's fake provider
 * (pkg/cloudprovider/fake): it launches nothing, remembers every {@link LaunchRequest} and the
 * instances it "launched" (provider IDs {@code fake://1}, {@code fake://2}, ...), and lets a test inject
 * failures. Thread-safe.
 *
 * <p>Create picks, among the instance types compatible with the request's Requirements whose
 * allocatable fits its requests, the Offering to launch: an available reserved Offering with
 * reservation capacity left if there is one (using up one instance of it), else the cheapest available
 * compatible Offering (ties broken by instance type name, so tests are deterministic).
 */
public final class TestingCloudProvider implements CloudProvider {

  /** The provider ID prefix of instances this provider launches. */
  public static final String PROVIDER_ID_PREFIX = "fake://";

  /** The NodeClass kind this provider supports (upstream's test NodeClass). */
  public static final NodeClassRef NODE_CLASS = new NodeClassRef("karpenter.test.sh", "TestNodeClass", "");

  /** Upstream's default repair policy for the fake provider: {@code BadNode=False} for 30 minutes. */
  public static final RepairPolicy DEFAULT_REPAIR_POLICY = new RepairPolicy("BadNode", "False", Duration.ofMinutes(30));

  /**
   * One capacity pool: an instance type in a zone with a capacity type, as {@link
   * #insufficientCapacity(Predicate)} sees an Offering.
   */
  public record CapacityPool(String instanceType, String zone, String capacityType) {}

  private List<InstanceType> instanceTypes;
  private final List<LaunchRequest> createCalls = new ArrayList<>();
  private final List<String> deleteCalls = new ArrayList<>();
  private final Map<String, Instance> instances = new LinkedHashMap<>();
  private final Map<String, String> driftReasons = new HashMap<>();
  /** Reserved instances launched per reservation ID. */
  private final Map<String, Integer> reservationsUsed = new HashMap<>();
  private CloudProviderException nextCreateError;
  private Predicate<CapacityPool> insufficientCapacity = pool -> false;
  private List<RepairPolicy> repairPolicies = List.of(DEFAULT_REPAIR_POLICY);
  private long nextId = 1;

  public TestingCloudProvider(List<InstanceType> instanceTypes) {
    this.instanceTypes = List.copyOf(instanceTypes);
  }

  @Override
  public String name() {
    return "fake";
  }

  @Override
  public synchronized List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef) {
    return instanceTypes;
  }

  /** Replaces the catalogue that {@link #instanceTypes} returns and {@link #create} chooses from. */
  public synchronized void instanceTypes(List<InstanceType> types) {
    this.instanceTypes = List.copyOf(types);
  }

  @Override
  public synchronized Instance create(LaunchRequest request) {
    createCalls.add(request);
    if (nextCreateError != null) {
      CloudProviderException error = nextCreateError;
      nextCreateError = null;
      throw error;
    }
    Requirements requirements = request.requirements();
    Choice best = null;
    Choice reserved = null;
    List<String> tried = new ArrayList<>();
    for (InstanceType type : instanceTypes) {
      if (!type.requirements().intersects(requirements) || !request.requests().fits(type.allocatable())) {
        continue;
      }
      tried.add(type.name());
      for (Offering offering : type.offerings()) {
        if (!usable(type, offering, requirements)) {
          continue;
        }
        Choice choice = new Choice(type, offering);
        if (offering.isReserved()) {
          if (reservationsUsed.getOrDefault(offering.reservationId(), 0) < offering.reservationCapacity()
              && (reserved == null || choice.cheaperThan(reserved))) {
            reserved = choice;
          }
        } else if (best == null || choice.cheaperThan(best)) {
          best = choice;
        }
      }
    }
    Choice chosen = reserved != null ? reserved : best;
    if (chosen == null) {
      throw new InsufficientCapacityException(
          "no available offering compatible with requirements [" + requirements + "] fits requests "
              + request.requests() + "; instance types that fit: " + (tried.isEmpty() ? "none" : String.join(", ", tried)));
    }
    if (chosen.offering.isReserved()) {
      reservationsUsed.merge(chosen.offering.reservationId(), 1, Integer::sum);
    }
    Instance instance = instance(PROVIDER_ID_PREFIX + nextId++, chosen, request);
    instances.put(instance.providerId(), instance);
    return instance;
  }

  private boolean usable(InstanceType type, Offering offering, Requirements requirements) {
    return offering.available()
        && offering.isCompatible(requirements)
        && !insufficientCapacity.test(new CapacityPool(type.name(), offering.zone(), offering.capacityType()));
  }

  private static Instance instance(String providerId, Choice chosen, LaunchRequest request) {
    Requirements resolved = chosen.type.requirements().copy().add(request.requirements());
    Map<String, String> labels = new LinkedHashMap<>();
    labels.putAll(resolved.labels());
    labels.putAll(chosen.offering.requirements().labels());
    labels.put(Labels.INSTANCE_TYPE, chosen.type.name());
    labels.putAll(request.labels());
    return new Instance(
        providerId,
        chosen.type.name(),
        chosen.offering.zone() == null ? "" : chosen.offering.zone(),
        chosen.offering.capacityType() == null ? "" : chosen.offering.capacityType(),
        labels,
        Map.of(),
        chosen.type.capacity(),
        chosen.type.allocatable(),
        "");
  }

  @Override
  public synchronized void delete(String providerId) {
    deleteCalls.add(providerId);
    if (instances.remove(providerId) == null) {
      throw new NodeClaimNotFoundException("instance " + providerId + " not found");
    }
    driftReasons.remove(providerId);
  }

  @Override
  public synchronized Optional<Instance> get(String providerId) {
    return Optional.ofNullable(instances.get(providerId));
  }

  @Override
  public synchronized List<Instance> list() {
    return List.copyOf(instances.values());
  }

  @Override
  public synchronized String driftReason(String providerId, NodeClassRef nodeClassRef) {
    return driftReasons.getOrDefault(providerId, "");
  }

  @Override
  public synchronized List<RepairPolicy> repairPolicies() {
    return repairPolicies;
  }

  @Override
  public List<NodeClassRef> supportedNodeClasses() {
    return List.of(NODE_CLASS);
  }

  // ---- test controls ----

  /** Every request {@link #create} received, failed ones included, in order. */
  public synchronized List<LaunchRequest> createCalls() {
    return List.copyOf(createCalls);
  }

  /** Every provider ID {@link #delete} received, in order. */
  public synchronized List<String> deleteCalls() {
    return List.copyOf(deleteCalls);
  }

  /** Makes the next {@link #create} throw {@code error} (once); null clears it. */
  public synchronized void nextCreateError(CloudProviderException error) {
    this.nextCreateError = error;
  }

  /**
   * Treats the capacity pools {@code pools} matches as out of capacity: {@link #create} never picks
   * them, and throws {@link InsufficientCapacityException} when nothing else is left. {@link
   * #instanceTypes} still reports them available, as a cloud's stale capacity information would.
   */
  public synchronized void insufficientCapacity(Predicate<CapacityPool> pools) {
    this.insufficientCapacity = Objects.requireNonNull(pools, "pools");
  }

  /** Makes {@link #driftReason} answer {@code reason} for the instance ("" for not drifted). */
  public synchronized void drift(String providerId, String reason) {
    if (reason == null || reason.isEmpty()) {
      driftReasons.remove(providerId);
    } else {
      driftReasons.put(providerId, reason);
    }
  }

  /** Replaces the policies {@link #repairPolicies()} returns. */
  public synchronized void repairPolicies(List<RepairPolicy> policies) {
    this.repairPolicies = List.copyOf(policies);
  }

  /** Adds an instance as if it had been launched (e.g. one Karpenter has no NodeClaim for). */
  public synchronized void putInstance(Instance instance) {
    instances.put(instance.providerId(), instance);
  }

  /**
   * Forgets calls, instances, drift reasons, reservation usage and injected failures, and restores
   * the default repair policy; the catalogue stays.
   */
  public synchronized void reset() {
    createCalls.clear();
    deleteCalls.clear();
    instances.clear();
    driftReasons.clear();
    reservationsUsed.clear();
    nextCreateError = null;
    insufficientCapacity = pool -> false;
    repairPolicies = List.of(DEFAULT_REPAIR_POLICY);
  }

  private record Choice(InstanceType type, Offering offering) {
    boolean cheaperThan(Choice o) {
      int byPrice = Double.compare(offering.price(), o.offering.price());
      return byPrice < 0 || (byPrice == 0 && type.name().compareTo(o.type.name()) < 0);
    }
  }
}
