package sh.karpenter.controller.snapshot;

import static sh.karpenter.controller.snapshot.ValueConverter.nullToEmpty;

import io.fabric8.kubernetes.api.model.Affinity;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeAffinity;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PersistentVolume;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PreferredSchedulingTerm;
import io.fabric8.kubernetes.api.model.ReplicationController;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.PodError;
import sh.karpenter.core.topology.DefaultConstraints;
import sh.karpenter.core.volume.VolumeTopology;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.controller.snapshot.VolumeConverter.Sourced;

/**
 * Collects Kubernetes objects, from any source, and converts them into a {@link ClusterSnapshot}.
 * Objects may be added in any order; {@link #build()} resolves the references between them (pods
 * to nodes, nodes to NodePools, pods to claims).
 *
 * <p>Each object is added with an {@code origin} (a file and document, or {@code "Pod ns/name"} for
 * objects from an API server) that {@link SnapshotInputException} messages name.
 *
 * <p>Which pods are pending follows upstream's provisioner: no {@code spec.nodeName}, not finished,
 * not terminating, not owned by a DaemonSet, not a mirror pod. Pending pods whose constraints
 * Karpenter refuses (restricted labels, {@code matchFields}, {@code karpenter.sh/nodepool
 * DoesNotExist}, claims that do not exist) are set aside as {@link ClusterSnapshot#rejectedPods()}.
 *
 * <p>NodeClaims are added separately ({@link #addNodeClaim}; {@link #add} ignores them, as {@code
 * karpenter plan} does): those not being deleted and not yet joined to an added Node by provider ID
 * or node name become uninitialized nodes ({@link NodeClaimConverter}) and count towards their
 * NodePool's usage.
 *
 * <p>With {@link #defaultConstraints default constraints} ({@code --scheduler-config}), pending pods
 * that declare no topology spread constraints get them, with the selector {@link
 * DefaultSpreadSelectors} derives from the Services and controllers added.
 *
 * <p>Every pod and pod template that names a RuntimeClass is taken as kube-apiserver's RuntimeClass
 * admission leaves it ({@link RuntimeClassAdmission}: the class's overhead, node selector and
 * tolerations). Each DaemonSet contributes its newest pod among the pods added, else a pod from its
 * template ({@link DaemonSetPods}). Things a person should know about the input that are not errors
 * are collected in {@link ClusterSnapshot#warnings()}.
 *
 * <p>Names are unique per kind and namespace, as in a cluster: an object added twice is an error
 * naming both origins. Workloads are expanded when the snapshot is built, so that the pods they
 * already own count ({@link WorkloadPods#expand(HasMetadata, List, String)}); a ReplicaSet whose
 * Deployment was added too is that Deployment's, and its pods count for the Deployment (as do pods
 * of a ReplicaSet not added whose name is the Deployment's and the pods' {@code pod-template-hash}).
 * The pods expanded from all workloads are capped ({@link #maxExpandedPods}). Pods bound to a node
 * that was not added are reported in {@link ClusterSnapshot#warnings()}.
 */
public final class SnapshotBuilder {
  private static final String NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name";
  /** The rejection of pods that require {@code karpenter.sh/nodepool DoesNotExist}. */
  private static final String NOT_FOR_KARPENTER =
      "requires " + Labels.NODE_POOL + " DoesNotExist: the pod asks not to run on Karpenter nodes";

  private final Function<NodePool, List<InstanceType>> instanceTypes;
  private final List<Sourced<NodePool>> nodePools = new ArrayList<>();
  private final List<Sourced<Node>> nodes = new ArrayList<>();
  private final List<Sourced<NodeClaim>> nodeClaims = new ArrayList<>();
  private final List<SourcedPod> pods = new ArrayList<>();
  private final List<Sourced<DaemonSet>> daemonSets = new ArrayList<>();
  private final List<Sourced<Namespace>> namespaces = new ArrayList<>();
  private final List<Sourced<PersistentVolume>> volumes = new ArrayList<>();
  private final List<Sourced<PersistentVolumeClaim>> claims = new ArrayList<>();
  private final List<Sourced<StorageClass>> storageClasses = new ArrayList<>();
  private final Map<String, RuntimeClass> runtimeClasses = new HashMap<>();
  private boolean allRuntimeClassesKnown;
  private final DefaultSpreadSelectors spreadSelectors = new DefaultSpreadSelectors();
  /** Attachable volumes per CSI driver, by node name (from CSINode objects). */
  private final Map<String, Map<String, Integer>> volumeLimits = new HashMap<>();
  private final List<Sourced<HasMetadata>> workloads = new ArrayList<>();
  /** Origin of every object added, by kind, namespace and name. */
  private final Map<String, String> origins = new HashMap<>();
  private DefaultConstraints defaultConstraints = DefaultConstraints.NONE;
  private Map<String, Resources> usageOverride;
  private int maxExpandedPods = Integer.MAX_VALUE;
  private String maxExpandedPodsSetting = "";

  /** A pod with its origin and where its spec is there ({@code spec.template.spec} for a workload's pods). */
  private record SourcedPod(Pod pod, String origin, String specField) {}

  /** @param instanceTypes the instance types the cloud provider offers each NodePool */
  public SnapshotBuilder(Function<NodePool, List<InstanceType>> instanceTypes) {
    this.instanceTypes = instanceTypes;
  }

  /**
   * Caps the pods expanded from workloads, in all: a workload that would take them beyond {@code
   * max} is an error naming it and {@code setting} (how a person raises the cap, e.g. a flag).
   */
  public SnapshotBuilder maxExpandedPods(int max, String setting) {
    this.maxExpandedPods = max;
    this.maxExpandedPodsSetting = setting;
    return this;
  }

  /** Sets the default topology spread constraints of pending pods without constraints of their own. */
  public SnapshotBuilder defaultConstraints(DefaultConstraints defaults) {
    this.defaultConstraints = defaults;
    return this;
  }

  /**
   * Declares that the RuntimeClasses added are all the cluster has (the controller's informer): a
   * pending pod naming another one is then rejected, and a DaemonSet whose template names one adds no
   * overhead, since kube-apiserver refuses to create such pods. Without it (manifests for {@code
   * karpenter plan}, which may leave a class out) such pods are planned as they are, with a warning.
   */
  public SnapshotBuilder allRuntimeClassesKnown() {
    this.allRuntimeClassesKnown = true;
    return this;
  }

  /**
   * Adds a NodeClaim. One that is being deleted is ignored; one whose Node was also added is
   * represented by that Node; any other is in flight and becomes an uninitialized node.
   */
  public SnapshotBuilder addNodeClaim(NodeClaim claim, String origin) {
    if (claim.getMetadata() == null || claim.getMetadata().getName() == null || claim.getMetadata().getName().isEmpty()) {
      throw new SnapshotInputException(origin, "metadata.name", "required");
    }
    unique(claim, origin);
    nodeClaims.add(new Sourced<>(claim, origin));
    return this;
  }

  /**
   * Uses these NodePool usages (capacity and {@code nodes}, counted against limits) instead of
   * summing the nodes and NodeClaims added. Cluster state passes its own aggregate, which also counts
   * nodes that are being deleted, as upstream does.
   */
  public SnapshotBuilder nodePoolUsage(Map<String, Resources> usage) {
    this.usageOverride = Map.copyOf(usage);
    return this;
  }

  /**
   * Adds one object. Workloads (Deployment, ReplicaSet, StatefulSet, Job) are expanded into their
   * pods (and claims) with {@link WorkloadPods} when the snapshot is built; their counts are checked
   * now. PodDisruptionBudgets are accepted for later use.
   * Services, ReplicationControllers and workloads also select the pods that default constraints
   * count (see {@link DefaultSpreadSelectors}).
   *
   * @return false when the kind plays no part in a snapshot (the object is ignored)
   */
  public boolean add(HasMetadata object, String origin) {
    if (object.getMetadata() == null || object.getMetadata().getName() == null || object.getMetadata().getName().isEmpty()) {
      throw new SnapshotInputException(origin, "metadata.name", "required");
    }
    unique(object, origin);
    switch (object) {
      case NodePool pool -> nodePools.add(new Sourced<>(pool, origin));
      case Node node -> nodes.add(new Sourced<>(node, origin));
      case Pod pod -> pods.add(new SourcedPod(pod, origin, "spec"));
      case DaemonSet daemonSet -> daemonSets.add(new Sourced<>(daemonSet, origin));
      case Namespace namespace -> namespaces.add(new Sourced<>(namespace, origin));
      case PersistentVolume volume -> volumes.add(new Sourced<>(volume, origin));
      case PersistentVolumeClaim claim -> claims.add(new Sourced<>(claim, origin));
      case StorageClass storageClass -> storageClasses.add(new Sourced<>(storageClass, origin));
      case Service service -> spreadSelectors.addService(service);
      case CSINode csiNode -> volumeLimits.put(csiNode.getMetadata().getName(), volumeLimits(csiNode));
      case RuntimeClass runtimeClass -> runtimeClasses.put(runtimeClass.getMetadata().getName(), runtimeClass);
      case ReplicationController controller -> spreadSelectors.addController(controller, origin);
      case PodDisruptionBudget ignored -> {
        // disruption budgets matter to consolidation, not to a provisioning pass
      }
      default -> {
        if (!WorkloadPods.isWorkload(object)) {
          return false;
        }
        int wanted = WorkloadPods.desiredPods(object, origin);
        if (wanted > maxExpandedPods) {
          throw tooManyPods(object, origin, wanted);
        }
        spreadSelectors.addController(object, origin);
        workloads.add(new Sourced<>(object, origin));
      }
    }
    return true;
  }

  /**
   * Records only the selector a pod's controller gives its default spread constraints (a live
   * cluster's ReplicaSet, StatefulSet or ReplicationController, whose pods are already in the
   * snapshot): unlike {@link #add}, nothing is expanded into pods. Other kinds are ignored.
   *
   * @throws SnapshotInputException when the controller's {@code spec.selector} is malformed
   */
  public void addSpreadController(HasMetadata controller, String origin) {
    spreadSelectors.addController(controller, origin);
  }

  /** Records the object's name; a second object of the same kind, namespace and name is an error naming both. */
  private void unique(HasMetadata object, String origin) {
    String key = key(object.getKind(), object.getMetadata().getNamespace(), object.getMetadata().getName(), object instanceof Pod || WorkloadPods.isWorkload(object));
    String first = origins.putIfAbsent(key, origin);
    if (first != null) {
      throw new SnapshotInputException(origin, "metadata.name", "Duplicate value: " + describe(key) + " is also in " + first);
    }
  }

  /** Kind, namespace and name; pods without a namespace are in {@code default}. */
  private static String key(String kind, String namespace, String name, boolean defaultNamespace) {
    return kind + "/" + (namespace == null && defaultNamespace ? "default" : Objects.requireNonNullElse(namespace, "")) + "/" + name;
  }

  /** {@code Pod "shop/web-0"} or {@code NodePool "default"} for a key. */
  private static String describe(String key) {
    String[] parts = key.split("/", 3);
    return parts[0] + " \"" + (parts[1].isEmpty() ? parts[2] : parts[1] + "/" + parts[2]) + "\"";
  }

  private SnapshotInputException tooManyPods(HasMetadata workload, String origin, long total) {
    String field = workload instanceof io.fabric8.kubernetes.api.model.batch.v1.Job ? "spec.parallelism" : "spec.replicas";
    return new SnapshotInputException(
        origin,
        field,
        String.format(
            "%s %s would take the pods expanded from workloads to %,d, more than the limit of %,d%s",
            workload.getKind(),
            workload.getMetadata().getName(),
            total,
            maxExpandedPods,
            maxExpandedPodsSetting.isEmpty() ? "" : " (" + maxExpandedPodsSetting + ")"));
  }

  /**
   * The pods and claims the workloads' controllers would create, given the pods already added:
   * each pod counts for the workload that controls it (for a ReplicaSet's pod, the ReplicaSet's
   * Deployment when that was added), and a ReplicaSet of an added Deployment is not expanded.
   */
  private void expandWorkloads(List<SourcedPod> allPods, List<Sourced<PersistentVolumeClaim>> allClaims) {
    if (workloads.isEmpty()) {
      return;
    }
    Map<String, Sourced<HasMetadata>> byKey = new HashMap<>();
    for (Sourced<HasMetadata> workload : workloads) {
      byKey.put(key(workload.object()), workload);
    }
    // A ReplicaSet controlled by an added Deployment stands for it.
    Map<String, String> standsFor = new HashMap<>();
    for (Sourced<HasMetadata> workload : workloads) {
      if (workload.object() instanceof ReplicaSet replicaSet) {
        String deployment = controller(replicaSet.getMetadata(), "Deployment", byKey);
        if (deployment != null) {
          standsFor.put(key(replicaSet), deployment);
        }
      }
    }
    Map<String, List<Pod>> owned = new HashMap<>();
    for (SourcedPod sourced : pods) {
      String owner = ownerOf(sourced.pod(), byKey, standsFor);
      if (owner != null) {
        owned.computeIfAbsent(owner, o -> new ArrayList<>()).add(sourced.pod());
      }
    }
    long expanded = 0;
    for (Sourced<HasMetadata> workload : workloads) {
      String key = key(workload.object());
      if (standsFor.containsKey(key)) {
        continue;
      }
      WorkloadPods.Expansion expansion = WorkloadPods.expand(workload.object(), owned.getOrDefault(key, List.of()), workload.origin());
      expanded += expansion.pods().size();
      if (expanded > maxExpandedPods) {
        throw tooManyPods(workload.object(), workload.origin(), expanded);
      }
      for (Pod pod : expansion.pods()) {
        String first = origins.get(key(pod));
        if (first != null) {
          throw new SnapshotInputException(
              workload.origin(), "metadata.name", "Duplicate value: " + describe(key(pod)) + ", one of its pods, is also in " + first);
        }
        allPods.add(new SourcedPod(pod, workload.origin(), "spec.template.spec"));
      }
      expansion.claims().forEach(claim -> allClaims.add(new Sourced<>(claim, workload.origin())));
    }
  }

  private static String key(HasMetadata object) {
    return key(object.getKind(), object.getMetadata().getNamespace(), object.getMetadata().getName(), true);
  }

  /** The key of the added workload of {@code kind} that controls an object with this metadata, or null. */
  private static String controller(io.fabric8.kubernetes.api.model.ObjectMeta meta, String kind, Map<String, Sourced<HasMetadata>> workloads) {
    OwnerReference owner = controllerRef(meta);
    if (owner == null || !kind.equals(owner.getKind())) {
      return null;
    }
    String key = key(kind, meta.getNamespace(), owner.getName(), true);
    Sourced<HasMetadata> workload = workloads.get(key);
    if (workload == null) {
      return null;
    }
    String uid = workload.object().getMetadata().getUid();
    return owner.getUid() == null || uid == null || owner.getUid().equals(uid) ? key : null;
  }

  /**
   * The added workload that controls the pod: its owner, or the Deployment its ReplicaSet stands
   * for; for a ReplicaSet that was not added, the Deployment whose name and the pod's {@code
   * pod-template-hash} make the ReplicaSet's name, as the Deployment controller names them.
   */
  private static String ownerOf(Pod pod, Map<String, Sourced<HasMetadata>> workloads, Map<String, String> standsFor) {
    OwnerReference owner = controllerRef(pod.getMetadata());
    if (owner == null || owner.getKind() == null) {
      return null;
    }
    String direct = controller(pod.getMetadata(), owner.getKind(), workloads);
    if (direct != null) {
      return standsFor.getOrDefault(direct, direct);
    }
    String hash = nullToEmpty(pod.getMetadata().getLabels()).get("pod-template-hash");
    if ("ReplicaSet".equals(owner.getKind()) && hash != null && owner.getName() != null && owner.getName().endsWith("-" + hash)) {
      String deployment = key("Deployment", pod.getMetadata().getNamespace(), owner.getName().substring(0, owner.getName().length() - hash.length() - 1), true);
      return workloads.get(deployment) != null && workloads.get(deployment).object() instanceof Deployment ? deployment : null;
    }
    return null;
  }

  private static OwnerReference controllerRef(io.fabric8.kubernetes.api.model.ObjectMeta meta) {
    return nullToEmpty(meta.getOwnerReferences()).stream().filter(o -> Boolean.TRUE.equals(o.getController())).findFirst().orElse(null);
  }

  /**
   * True for the rejection of a pod that asks not to run on Karpenter nodes ({@code
   * karpenter.sh/nodepool DoesNotExist}): upstream ignores such pods without an event.
   */
  public static boolean ignoredSilently(String rejection) {
    return NOT_FOR_KARPENTER.equals(rejection);
  }

  /** Converts everything added so far. */
  public ClusterSnapshot build() {
    List<SourcedPod> pods = new ArrayList<>(this.pods);
    List<Sourced<PersistentVolumeClaim>> claims = new ArrayList<>(this.claims);
    expandWorkloads(pods, claims);
    VolumeTopology volumeTopology = VolumeConverter.convert(volumes, claims, storageClasses);
    RuntimeClassAdmission admission = new RuntimeClassAdmission(runtimeClasses, allRuntimeClassesKnown);
    Set<String> warnings = new LinkedHashSet<>();
    Map<String, List<sh.karpenter.core.pod.Pod>> boundByNode = new HashMap<>();
    Map<String, List<SourcedPod>> boundPodsByNode = new HashMap<>();
    Map<String, List<BoundPod>> boundPairs = new HashMap<>();
    List<sh.karpenter.core.pod.Pod> pending = new ArrayList<>();
    List<PodError> rejected = new ArrayList<>();
    Map<String, Map<String, String>> namespaceLabels = new TreeMap<>();
    for (SourcedPod sourced : pods) {
      Pod pod = sourced.pod();
      namespaceLabels.computeIfAbsent(namespaceOf(pod), SnapshotBuilder::defaultNamespaceLabels);
      if (Pods.terminal(pod)) {
        continue;
      }
      String nodeName = pod.getSpec() == null ? null : pod.getSpec().getNodeName();
      RuntimeClassAdmission.Admitted admitted = admission.admit(pod.getSpec());
      if (admitted.warning() != null) {
        warnings.add(sourced.origin() + ": " + sourced.specField() + ".runtimeClassName: " + admitted.warning());
      }
      sh.karpenter.core.pod.Pod converted =
          PodConverter.convert(pod.getMetadata(), admitted.spec(), sourced.origin(), sourced.specField(), warnings::add);
      if (nodeName != null && !nodeName.isEmpty()) {
        boundByNode.computeIfAbsent(nodeName, n -> new ArrayList<>()).add(converted);
        boundPodsByNode.computeIfAbsent(nodeName, n -> new ArrayList<>()).add(sourced);
        boundPairs.computeIfAbsent(nodeName, n -> new ArrayList<>()).add(new BoundPod(pod, converted));
      } else if (Pods.provisionable(pod)) {
        String rejection = admitted.rejection() != null ? admitted.rejection() : rejection(pod, converted, volumeTopology);
        if (rejection == null) {
          pending.add(defaultConstraints.appliesTo(converted) ? defaultConstraints.apply(converted, spreadSelectors.selectorFor(pod)) : converted);
        } else {
          rejected.add(new PodError(converted, rejection));
        }
      }
    }
    for (Sourced<Namespace> namespace : namespaces) {
      Map<String, String> labels = new TreeMap<>(defaultNamespaceLabels(namespace.object().getMetadata().getName()));
      labels.putAll(nullToEmpty(namespace.object().getMetadata().getLabels()));
      namespaceLabels.put(namespace.object().getMetadata().getName(), Map.copyOf(labels));
    }

    List<ExistingNode> existing = new ArrayList<>();
    Map<String, Resources> usageByPool = new HashMap<>();
    Set<String> nodeNames = new HashSet<>();
    Set<String> providerIds = new HashSet<>();
    Map<String, NodeClaim> claimsByProviderId = new HashMap<>();
    for (Sourced<NodeClaim> sourced : nodeClaims) {
      var status = sourced.object().getStatus();
      if (status != null && status.getProviderID() != null && !status.getProviderID().isEmpty()) {
        claimsByProviderId.put(status.getProviderID(), sourced.object());
      }
    }
    for (Sourced<Node> sourced : nodes) {
      Node node = sourced.object();
      nodeNames.add(node.getMetadata().getName());
      if (node.getSpec() != null && node.getSpec().getProviderID() != null && !node.getSpec().getProviderID().isEmpty()) {
        providerIds.add(node.getSpec().getProviderID());
      }
      if (node.getMetadata().getDeletionTimestamp() != null) {
        continue;
      }
      ExistingNode converted =
          NodeConverter.convert(node, boundByNode.getOrDefault(node.getMetadata().getName(), List.of()), sourced.origin(),
              node.getSpec() == null ? null : claimsByProviderId.get(node.getSpec().getProviderID()));
      Map<String, Integer> limits = volumeLimits.get(node.getMetadata().getName());
      if (limits != null) {
        converted = converted.withVolumeLimits(limits);
      }
      existing.add(converted);
      if (converted.nodePoolName() != null) {
        Resources usage = NodeConverter.capacity(node, sourced.origin()).plus(Resources.builder().milli(ResourceNames.index("nodes"), 1000).build());
        usageByPool.merge(converted.nodePoolName(), usage, Resources::plus);
      }
    }
    Map<String, List<InstanceType>> typesByPool = new HashMap<>();
    for (Sourced<NodeClaim> sourced : nodeClaims) {
      NodeClaim claim = sourced.object();
      var status = claim.getStatus();
      if (claim.getMetadata().getDeletionTimestamp() != null
          || (status != null && status.getProviderID() != null && providerIds.contains(status.getProviderID()))
          || (status != null && status.getNodeName() != null && nodeNames.contains(status.getNodeName()))) {
        continue;
      }
      List<InstanceType> poolTypes = poolTypes(nullToEmpty(claim.getMetadata().getLabels()).get(Labels.NODE_POOL), typesByPool);
      ExistingNode converted = NodeClaimConverter.inFlight(claim, poolTypes, sourced.origin());
      existing.add(converted);
      if (converted.nodePoolName() != null) {
        Resources usage =
            NodeClaimConverter.capacity(claim, poolTypes, sourced.origin()).plus(Resources.builder().milli(ResourceNames.index("nodes"), 1000).build());
        usageByPool.merge(converted.nodePoolName(), usage, Resources::plus);
      }
    }
    if (usageOverride != null) {
      usageByPool = usageOverride;
    }
    boundPodsByNode.forEach((nodeName, bound) -> {
      if (!nodeNames.contains(nodeName)) {
        for (SourcedPod sourced : bound) {
          warnings.add(sourced.origin() + ": spec.nodeName: pod " + namespaceOf(sourced.pod()) + "/" + sourced.pod().getMetadata().getName()
              + " is bound to node \"" + nodeName + "\", which is not in the snapshot; its requests count on no node");
        }
      }
    });

    List<NodeClaimTemplate> templates = new ArrayList<>();
    for (Sourced<NodePool> sourced : nodePools) {
      NodePool pool = sourced.object();
      if (NodePoolConverter.provisionable(pool)) {
        templates.add(
            NodePoolConverter.convert(
                pool,
                usageByPool.getOrDefault(pool.getMetadata().getName(), Resources.EMPTY),
                poolTypes(pool.getMetadata().getName(), typesByPool),
                sourced.origin()));
      }
    }

    List<sh.karpenter.core.pod.Pod> daemonSetPods = daemonSetPods(admission, warnings);
    return new ClusterSnapshot(
        List.copyOf(templates),
        List.copyOf(existing),
        List.copyOf(pending),
        List.copyOf(rejected),
        List.copyOf(daemonSetPods),
        volumeTopology,
        namespaceLabels,
        List.copyOf(warnings),
        Map.copyOf(boundPairs));
  }

  /**
   * One pod per DaemonSet ({@link DaemonSetPods}), admitted like any pod. A DaemonSet whose pods
   * kube-apiserver would refuse (its template names a RuntimeClass that does not exist, or conflicts
   * with it) runs no pod on a new node and adds nothing.
   */
  private List<sh.karpenter.core.pod.Pod> daemonSetPods(RuntimeClassAdmission admission, Set<String> warnings) {
    List<DaemonSetPods.Candidate> candidates = new ArrayList<>(pods.size());
    for (SourcedPod sourced : pods) {
      if (sourced.specField().equals("spec")) {
        candidates.add(new DaemonSetPods.Candidate(sourced.pod(), sourced.origin()));
      }
    }
    List<sh.karpenter.core.pod.Pod> converted = new ArrayList<>(daemonSets.size());
    for (DaemonSetPods.Chosen chosen : DaemonSetPods.choose(daemonSets, candidates)) {
      RuntimeClassAdmission.Admitted admitted = admission.admit(chosen.pod().getSpec());
      String field = chosen.specField() + ".runtimeClassName: ";
      if (admitted.warning() != null) {
        warnings.add(chosen.origin() + ": " + field + admitted.warning());
      }
      if (admitted.rejection() != null && chosen.fromTemplate()) {
        warnings.add(chosen.origin() + ": " + field + admitted.rejection() + "; the DaemonSet adds no overhead to new nodes");
        continue;
      }
      converted.add(PodConverter.convert(chosen.pod().getMetadata(), admitted.spec(), chosen.origin(), chosen.specField()));
    }
    return converted;
  }

  /** The instance types of the named pool (looked up once per build), or none when the pool was not added. */
  private List<InstanceType> poolTypes(String poolName, Map<String, List<InstanceType>> cache) {
    if (poolName == null) {
      return List.of();
    }
    return cache.computeIfAbsent(
        poolName,
        name -> nodePools.stream()
            .map(Sourced::object)
            .filter(pool -> name.equals(pool.getMetadata().getName()))
            .findFirst()
            .map(instanceTypes)
            .orElse(List.of()));
  }

  /** {@code spec.drivers[].allocatable.count} by driver name; drivers without a count are unlimited. */
  private static Map<String, Integer> volumeLimits(CSINode csiNode) {
    Map<String, Integer> limits = new HashMap<>();
    if (csiNode.getSpec() != null && csiNode.getSpec().getDrivers() != null) {
      for (var driver : csiNode.getSpec().getDrivers()) {
        if (driver.getName() != null && driver.getAllocatable() != null && driver.getAllocatable().getCount() != null) {
          limits.put(driver.getName(), driver.getAllocatable().getCount());
        }
      }
    }
    return limits;
  }

  /** Why Karpenter would refuse the pod (upstream's provisioner validation), or null. */
  private static String rejection(Pod pod, sh.karpenter.core.pod.Pod converted, VolumeTopology volumes) {
    for (String key : converted.nodeSelector().keySet()) {
      if (Labels.isRestricted(key)) {
        return "nodeSelector uses the restricted label " + key + ", which Karpenter cannot set on a new node";
      }
    }
    if (pod.getSpec() != null && usesMatchFields(pod.getSpec().getAffinity())) {
      return "node affinity uses matchFields, which Karpenter does not support";
    }
    for (var term : converted.requiredNodeAffinityTerms()) {
      for (var requirement : term) {
        if (Labels.isRestricted(requirement.key())) {
          return "required node affinity uses the restricted label " + requirement.key() + ", which Karpenter cannot set on a new node";
        }
        if (requirement.key().equals(Labels.NODE_POOL) && requirement.operator() == sh.karpenter.core.requirements.Operator.DoesNotExist) {
          return NOT_FOR_KARPENTER;
        }
      }
    }
    return volumes.validate(converted);
  }

  /** Whether a required or preferred node affinity term selects by node fields (upstream rejects both). */
  private static boolean usesMatchFields(Affinity affinity) {
    if (affinity == null || affinity.getNodeAffinity() == null) {
      return false;
    }
    NodeAffinity nodeAffinity = affinity.getNodeAffinity();
    List<NodeSelectorTerm> terms = new ArrayList<>();
    if (nodeAffinity.getRequiredDuringSchedulingIgnoredDuringExecution() != null) {
      terms.addAll(nullToEmpty(nodeAffinity.getRequiredDuringSchedulingIgnoredDuringExecution().getNodeSelectorTerms()));
    }
    nullToEmpty(nodeAffinity.getPreferredDuringSchedulingIgnoredDuringExecution()).stream()
        .map(PreferredSchedulingTerm::getPreference)
        .filter(Objects::nonNull)
        .forEach(terms::add);
    return terms.stream().anyMatch(term -> !nullToEmpty(term.getMatchFields()).isEmpty());
  }

  private static String namespaceOf(Pod pod) {
    return pod.getMetadata().getNamespace() == null ? "default" : pod.getMetadata().getNamespace();
  }

  private static Map<String, String> defaultNamespaceLabels(String namespace) {
    return Map.of(NAMESPACE_NAME_LABEL, namespace);
  }
}
