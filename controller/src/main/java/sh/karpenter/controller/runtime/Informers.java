package sh.karpenter.controller.runtime;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.VolumeAttachment;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;

/**
 * The shared informers every controller reads from: one per kind, created once, with upstream's
 * field indexers (pods by node, nodes and NodeClaims by provider ID). Every replica runs them, leader
 * or not, so caches are warm when leadership arrives. Resync is off: controllers requeue on their own
 * timers instead.
 *
 * <p>Controllers register their handlers before {@link #start()}; handlers must be short (update a
 * cache, enqueue a key).
 */
public final class Informers implements AutoCloseable {
  /** Pods by {@code spec.nodeName} (unbound pods are not indexed). */
  public static final String POD_BY_NODE = "spec.nodeName";
  /** Nodes by {@code spec.providerID}. */
  public static final String NODE_BY_PROVIDER_ID = "spec.providerID";
  /** NodeClaims by {@code status.providerID}. */
  /** VolumeAttachments by {@code spec.nodeName}. */
  public static final String VOLUME_ATTACHMENT_BY_NODE = "spec.nodeName";
  public static final String NODECLAIM_BY_PROVIDER_ID = "status.providerID";

  private final List<SharedIndexInformer<?>> all = new ArrayList<>();
  private final SharedIndexInformer<Node> nodes;
  private final SharedIndexInformer<Pod> pods;
  private final SharedIndexInformer<NodeClaim> nodeClaims;
  private final SharedIndexInformer<NodePool> nodePools;
  private final SharedIndexInformer<DaemonSet> daemonSets;
  private final SharedIndexInformer<PersistentVolume> persistentVolumes;
  private final SharedIndexInformer<PersistentVolumeClaim> persistentVolumeClaims;
  private final SharedIndexInformer<StorageClass> storageClasses;
  private final SharedIndexInformer<Namespace> namespaces;
  private final SharedIndexInformer<PodDisruptionBudget> podDisruptionBudgets;
  private final SharedIndexInformer<Service> services;
  private final SharedIndexInformer<CSINode> csiNodes;
  private final SharedIndexInformer<VolumeAttachment> volumeAttachments;
  private final SharedIndexInformer<RuntimeClass> runtimeClasses;
  private final KubernetesClient client;
  private SharedIndexInformer<ReplicaSet> replicaSets;
  private SharedIndexInformer<StatefulSet> statefulSets;
  private SharedIndexInformer<ReplicationController> replicationControllers;

  public Informers(KubernetesClient client) {
    this.client = client;
    nodes = add(client.nodes().runnableInformer(0));
    nodes.addIndexers(Map.of(NODE_BY_PROVIDER_ID, indexer(n -> n.getSpec() == null ? null : n.getSpec().getProviderID())));
    pods = add(client.pods().inAnyNamespace().runnableInformer(0));
    pods.addIndexers(Map.of(POD_BY_NODE, indexer(p -> p.getSpec() == null ? null : p.getSpec().getNodeName())));
    nodeClaims = add(client.resources(NodeClaim.class).runnableInformer(0));
    nodeClaims.addIndexers(
        Map.of(NODECLAIM_BY_PROVIDER_ID, indexer(c -> c.getStatus() == null ? null : c.getStatus().getProviderID())));
    nodePools = add(client.resources(NodePool.class).runnableInformer(0));
    daemonSets = add(client.apps().daemonSets().inAnyNamespace().runnableInformer(0));
    persistentVolumes = add(client.persistentVolumes().runnableInformer(0));
    persistentVolumeClaims = add(client.persistentVolumeClaims().inAnyNamespace().runnableInformer(0));
    storageClasses = add(client.storage().v1().storageClasses().runnableInformer(0));
    namespaces = add(client.namespaces().runnableInformer(0));
    podDisruptionBudgets = add(client.policy().v1().podDisruptionBudget().inAnyNamespace().runnableInformer(0));
    services = add(client.services().inAnyNamespace().runnableInformer(0));
    csiNodes = add(client.storage().v1().csiNodes().runnableInformer(0));
    volumeAttachments = add(client.storage().v1().volumeAttachments().runnableInformer(0));
    volumeAttachments.addIndexers(Map.of(VOLUME_ATTACHMENT_BY_NODE, indexer(a -> a.getSpec() == null ? null : a.getSpec().getNodeName())));
    runtimeClasses = add(client.resources(RuntimeClass.class).runnableInformer(0));
  }

  private <T extends HasMetadata> SharedIndexInformer<T> add(SharedIndexInformer<T> informer) {
    informer.exceptionHandler((started, t) -> true); // keep retrying list/watch failures
    all.add(informer);
    return informer;
  }

  private static <T> Function<T, List<String>> indexer(Function<T, String> field) {
    return object -> {
      String value = field.apply(object);
      return value == null || value.isEmpty() ? List.of() : List.of(value);
    };
  }

  /**
   * Adds an informer of a kind this class does not know (e.g. a cloud provider's NodeClass), started,
   * synced and closed with the others. Call before {@link #start()}.
   *
   * @return {@code informer}, with the same list/watch retry as the built-in ones
   */
  public <T extends HasMetadata> SharedIndexInformer<T> register(SharedIndexInformer<T> informer) {
    return add(informer);
  }

  /**
   * Also watches ReplicaSets, StatefulSets and ReplicationControllers, whose selectors default
   * topology spread constraints count pods by (docs/behaviour/scheduling.md#default-topology-spread);
   * only needed, and only called, when {@code --scheduler-config} sets default constraints. Call
   * before {@link #start()}; calling again does nothing.
   */
  public synchronized void watchSpreadControllers() {
    if (replicaSets == null) {
      replicaSets = add(client.apps().replicaSets().inAnyNamespace().runnableInformer(0));
      statefulSets = add(client.apps().statefulSets().inAnyNamespace().runnableInformer(0));
      replicationControllers = add(client.replicationControllers().inAnyNamespace().runnableInformer(0));
    }
  }

  /** The ReplicaSets, StatefulSets and ReplicationControllers cached, or none unless {@link #watchSpreadControllers()} was called. */
  public synchronized List<HasMetadata> spreadControllers() {
    if (replicaSets == null) {
      return List.of();
    }
    List<HasMetadata> controllers = new ArrayList<>();
    controllers.addAll(replicaSets.getStore().list());
    controllers.addAll(statefulSets.getStore().list());
    controllers.addAll(replicationControllers.getStore().list());
    return controllers;
  }

  /** Starts every informer (non-blocking). */
  public void start() {
    all.forEach(SharedIndexInformer::start);
  }

  /** True once every informer has completed its first list. */
  public boolean hasSynced() {
    return all.stream().allMatch(SharedIndexInformer::hasSynced);
  }

  public SharedIndexInformer<Node> nodes() { return nodes; }
  public SharedIndexInformer<Pod> pods() { return pods; }
  public SharedIndexInformer<NodeClaim> nodeClaims() { return nodeClaims; }
  public SharedIndexInformer<NodePool> nodePools() { return nodePools; }
  public SharedIndexInformer<DaemonSet> daemonSets() { return daemonSets; }
  public SharedIndexInformer<PersistentVolume> persistentVolumes() { return persistentVolumes; }
  public SharedIndexInformer<PersistentVolumeClaim> persistentVolumeClaims() { return persistentVolumeClaims; }
  public SharedIndexInformer<StorageClass> storageClasses() { return storageClasses; }
  public SharedIndexInformer<Namespace> namespaces() { return namespaces; }
  public SharedIndexInformer<PodDisruptionBudget> podDisruptionBudgets() { return podDisruptionBudgets; }
  public SharedIndexInformer<Service> services() { return services; }
  /** Per-node CSI drivers and how many volumes each can attach (volume limits). */
  public SharedIndexInformer<CSINode> csiNodes() { return csiNodes; }

  public SharedIndexInformer<VolumeAttachment> volumeAttachments() { return volumeAttachments; }
  /** RuntimeClasses: the overhead, node selector and tolerations of DaemonSet templates naming one. */
  public SharedIndexInformer<RuntimeClass> runtimeClasses() { return runtimeClasses; }

  @Override
  public void close() {
    all.forEach(SharedIndexInformer::close);
  }
}
