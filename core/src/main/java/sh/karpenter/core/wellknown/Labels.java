package sh.karpenter.core.wellknown;

import java.util.Map;
import java.util.Set;

/**
 * Label keys Karpenter reads and writes, as upstream pkg/apis/v1/labels.go defines them. This class,
 * {@link Annotations}, {@link TaintKeys} and {@link Finalizers} are the single place for such names.
 */
public final class Labels {
  private Labels() {}

  public static final String GROUP = "karpenter.sh";

  public static final String NODE_POOL = "karpenter.sh/nodepool";
  public static final String CAPACITY_TYPE = "karpenter.sh/capacity-type";
  public static final String NODE_INITIALIZED = "karpenter.sh/initialized";
  public static final String NODE_REGISTERED = "karpenter.sh/registered";
  public static final String DO_NOT_SYNC_TAINTS = "karpenter.sh/do-not-sync-taints";

  public static final String CAPACITY_TYPE_SPOT = "spot";
  public static final String CAPACITY_TYPE_ON_DEMAND = "on-demand";
  public static final String CAPACITY_TYPE_RESERVED = "reserved";
  /** Known values of {@link #CAPACITY_TYPE}. */
  public static final Set<String> CAPACITY_TYPES =
      Set.of(CAPACITY_TYPE_SPOT, CAPACITY_TYPE_ON_DEMAND, CAPACITY_TYPE_RESERVED);

  public static final String ZONE = "topology.kubernetes.io/zone";
  public static final String REGION = "topology.kubernetes.io/region";
  public static final String INSTANCE_TYPE = "node.kubernetes.io/instance-type";
  public static final String WINDOWS_BUILD = "node.kubernetes.io/windows-build";
  public static final String ARCH = "kubernetes.io/arch";
  public static final String OS = "kubernetes.io/os";
  public static final String HOSTNAME = "kubernetes.io/hostname";
  /**
   * Reservation ID of a reserved offering, set by the cloud provider (upstream core's
   * {@code cloudprovider.ReservationIDLabel}); bound to the AWS provider's key as upstream's AWS
   * provider binds it.
   */
  public static final String RESERVATION_ID = AwsLabels.CAPACITY_RESERVATION_ID;

  public static final String EXCLUDE_FROM_EXTERNAL_LOAD_BALANCERS =
      "node.kubernetes.io/exclude-from-external-load-balancers";

  /** Labels of the KWOK provider's instance types. */
  public static final String KWOK_INSTANCE_SIZE = "karpenter.kwok.sh/instance-size";
  public static final String KWOK_INSTANCE_FAMILY = "karpenter.kwok.sh/instance-family";
  public static final String KWOK_INSTANCE_CPU = "karpenter.kwok.sh/instance-cpu";
  public static final String KWOK_INSTANCE_MEMORY = "karpenter.kwok.sh/instance-memory";

  /**
   * Labels a pod may select on that a new NodeClaim may leave undefined until launch ("allowed
   * undefined" when matching against NodeClaim templates). Providers add their own with {@link
   * #wellKnownWith(Set)}.
   */
  public static final Set<String> WELL_KNOWN =
      Set.of(NODE_POOL, CAPACITY_TYPE, ZONE, REGION, INSTANCE_TYPE, WINDOWS_BUILD, ARCH, OS);

  /** Karpenter-owned keys a NodePool may still use in its template labels and requirements. */
  public static final Set<String> KARPENTER_DOMAIN_EXCEPTIONS = Set.of(CAPACITY_TYPE, NODE_POOL);

  /** Deprecated beta keys and the stable keys they normalise to. */
  public static final Map<String, String> NORMALIZED =
      Map.of(
          "failure-domain.beta.kubernetes.io/zone", ZONE,
          "failure-domain.beta.kubernetes.io/region", REGION,
          "beta.kubernetes.io/arch", ARCH,
          "beta.kubernetes.io/os", OS,
          "beta.kubernetes.io/instance-type", INSTANCE_TYPE);

  /** Simulation-only keys dropped when a NodeClaim is written. */
  public static final Set<String> SIMULATION_ONLY = Set.of(NODE_REGISTERED, NODE_INITIALIZED);

  public static Set<String> wellKnownWith(Set<String> providerLabels) {
    java.util.HashSet<String> all = new java.util.HashSet<>(WELL_KNOWN);
    all.addAll(providerLabels);
    return Set.copyOf(all);
  }

  /** The stable key for a deprecated beta key, or the key itself. */
  public static String normalize(String key) {
    return NORMALIZED.getOrDefault(key, key);
  }

  /**
   * True when a key may not appear in NodePool template labels or requirements, nor in pod node
   * selectors and required affinity: {@code kubernetes.io/hostname}, and any key whose domain (the
   * part before the first {@code /}, or the whole key) ends with {@code karpenter.sh} other than the
   * exceptions. This is upstream's CEL rule {@code !x.find("^([^/]+)").endsWith("karpenter.sh")}.
   */
  public static boolean isRestricted(String key) {
    if (HOSTNAME.equals(key)) {
      return true;
    }
    if (KARPENTER_DOMAIN_EXCEPTIONS.contains(key)) {
      return false;
    }
    int slash = key.indexOf('/');
    String domain = slash < 0 ? key : key.substring(0, slash);
    return domain.endsWith(GROUP);
  }
}
