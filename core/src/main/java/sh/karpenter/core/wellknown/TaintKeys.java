package sh.karpenter.core.wellknown;

import java.util.Set;

/** Taint keys Karpenter applies or waits for (upstream pkg/apis/v1/taints.go, statenode.go). */
public final class TaintKeys {
  private TaintKeys() {}

  /** {@code karpenter.sh/disrupted:NoSchedule}, applied for disruption and termination. */
  public static final String DISRUPTED = "karpenter.sh/disrupted";
  /** {@code karpenter.sh/unregistered:NoExecute}, applied at launch and removed at registration. */
  public static final String UNREGISTERED = "karpenter.sh/unregistered";
  /**
   * {@code karpenter.sh/rebooting:NoSchedule}, fencing a node while it reboots in place (upstream v1.15
   * reboot action; not built here, so nothing applies it and it is not treated as ephemeral).
   */
  public static final String REBOOTING = "karpenter.sh/rebooting";

  public static final String NODE_NOT_READY = "node.kubernetes.io/not-ready";
  public static final String NODE_UNREACHABLE = "node.kubernetes.io/unreachable";
  public static final String NODE_UNINITIALIZED = "node.cloudprovider.kubernetes.io/uninitialized";
  /**
   * {@code node.kubernetes.io/unschedulable:NoSchedule}: the node is cordoned ({@code
   * spec.unschedulable}). The node lifecycle controller adds it; kube-scheduler's NodeUnschedulable
   * filter lets only pods that tolerate it onto a cordoned node.
   */
  public static final String NODE_UNSCHEDULABLE = "node.kubernetes.io/unschedulable";
  /** Any taint with this key prefix is ephemeral too. */
  public static final String READINESS_PREFIX = "readiness.k8s.io/";

  /** Taints that are expected to disappear by themselves while a node initializes. */
  public static final Set<String> KNOWN_EPHEMERAL =
      Set.of(NODE_NOT_READY, NODE_UNREACHABLE, NODE_UNINITIALIZED, UNREGISTERED);

  public static boolean isKnownEphemeral(String key) {
    return KNOWN_EPHEMERAL.contains(key) || key.startsWith(READINESS_PREFIX);
  }
}
