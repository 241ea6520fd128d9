package sh.karpenter.controller.state;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.snapshot.BoundPod;
import sh.karpenter.controller.snapshot.ClusterSnapshot;
import sh.karpenter.controller.snapshot.PodDisruptionBudgets;
import sh.karpenter.controller.snapshot.NodeClaimConverter;
import sh.karpenter.controller.snapshot.SnapshotBuilder;
import sh.karpenter.controller.snapshot.SnapshotInputException;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.resources.Quantity;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.topology.DefaultConstraints;
import sh.karpenter.core.wellknown.Labels;

/**
 * Karpenter's in-memory view of the cluster (upstream {@code state.Cluster}), read from the shared
 * informers: what provisioning and disruption decide on. On top of the informer caches it keeps what
 * exists only in this process:
 *
 * <ul>
 *   <li><b>nominations</b>: the node or NodeClaim each pod was planned onto, for {@code max(2 ×
 *       batchMaxDuration, 10s)}; a nominated node is not disrupted meanwhile;
 *   <li><b>marked for deletion</b>: nodes (by provider ID) that disruption is about to remove; they
 *       are no home for pending pods, and their pods are rescheduled;
 *   <li><b>created NodeClaims</b> not yet seen by the informer, so a pass that starts straight after
 *       a launch does not launch the same capacity again. One stays counted until the informer has
 *       it, or has read past the resource version the create returned without it (then it was
 *       deleted since); never merely because the informer is slow. A lagging informer (an
 *       overloaded API server, a watch reconnecting with back-off) once made a 500-pod burst
 *       create 742 NodeClaims when a fixed 15-second grace dropped created NodeClaims from view;
 *   <li><b>pod acknowledgements</b>, for the scheduling-decision latency metric, and
 *       <b>prebindings</b> (pods to bind once a NodeClaim's Node registers).
 * </ul>
 *
 * <p>A snapshot reads nodes first, then NodeClaims, then pods (upstream's order): capacity that
 * appears in between is then counted, never a pod without the capacity that was launched for it.
 */
public final class ClusterState {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterState.class);
  /**
   * How long a created NodeClaim is assumed to exist when the informer has not delivered it and the
   * resource versions cannot be compared (a server whose versions are not integers).
   */
  static final Duration CREATED_GRACE = Duration.ofSeconds(15);
  /** The longest a created NodeClaim is counted without the informer delivering it: a stalled informer. */
  static final Duration CREATED_LIMIT = Duration.ofMinutes(5);
  private static final int MAX_INVALID_OBJECTS = 100;

  /** A NodeClaim this process created, when, and the resource version the create returned (-1: not an integer). */
  private record Created(NodeClaim claim, Instant at, long resourceVersion, AtomicBoolean lagLogged) {
    /** The informer read past the creation: it has the NodeClaim, or it was deleted since. */
    boolean readPast(long informerVersion) {
      return resourceVersion >= 0 && informerVersion >= resourceVersion;
    }

    /** Waited for longer than an informer can lag ({@link #CREATED_GRACE} when versions cannot be compared). */
    boolean waitedOut(long informerVersion, Instant now) {
      return !now.isBefore(at.plus(resourceVersion >= 0 && informerVersion >= 0 ? CREATED_LIMIT : CREATED_GRACE));
    }
  }

  private final Informers informers;
  private final Clock clock;
  private final Function<NodePool, List<InstanceType>> instanceTypes;
  private final DefaultConstraints defaultConstraints;
  private final Nominations nominations;
  private final Set<String> markedForDeletion = ConcurrentHashMap.newKeySet();
  private final Map<String, Created> created = new ConcurrentHashMap<>();
  private final Map<String, Instant> podAcks = new ConcurrentHashMap<>();
  private final Set<String> podsDecided = ConcurrentHashMap.newKeySet();
  private final Map<String, List<PodRef>> prebindings = new ConcurrentHashMap<>();

  /**
   * Registers the handlers that keep the process-local parts tidy (created NodeClaims the informer
   * has caught up with, nominations and acknowledgements of deleted pods).
   *
   * @param instanceTypes the instance types the cloud provider offers a NodePool (see {@link
   *     #instanceTypesOf(CloudProvider)})
   * @param options batch durations (for the nomination window) and default topology spread
   */
  public ClusterState(Informers informers, Clock clock, Function<NodePool, List<InstanceType>> instanceTypes, Options options) {
    this.informers = informers;
    this.clock = clock;
    this.instanceTypes = instanceTypes;
    this.defaultConstraints = options.defaultConstraints();
    if (!defaultConstraints.isEmpty()) {
      informers.watchSpreadControllers(); // their selectors select the pods default constraints count
    }
    this.nominations = new Nominations(clock, options.nominationWindow());
    informers.nodeClaims().addEventHandler(new ResourceEventHandler<NodeClaim>() {
      @Override
      public void onAdd(NodeClaim claim) {
        created.remove(claim.getMetadata().getName());
      }

      @Override
      public void onUpdate(NodeClaim before, NodeClaim claim) {
        created.remove(claim.getMetadata().getName());
      }

      @Override
      public void onDelete(NodeClaim claim, boolean finalStateUnknown) {
        created.remove(claim.getMetadata().getName());
        nominations.forgetNode(claim.getMetadata().getName());
        prebindings.remove(claim.getMetadata().getName());
      }
    });
    informers.nodes().addEventHandler(onDelete((Node node) -> {
      nominations.forgetNode(node.getMetadata().getName());
      String providerId = providerId(node);
      if (providerId != null) {
        markedForDeletion.remove(providerId);
      }
    }));
    informers.pods().addEventHandler(onDelete(this::forgetPod));
  }

  /** A handler that acts on deletions only. */
  private static <T> ResourceEventHandler<T> onDelete(Consumer<T> deleted) {
    return new ResourceEventHandler<>() {
      @Override
      public void onAdd(T obj) {}

      @Override
      public void onUpdate(T before, T obj) {}

      @Override
      public void onDelete(T obj, boolean finalStateUnknown) {
        deleted.accept(obj);
      }
    };
  }

  /** Asks the cloud provider for a NodePool's instance types, with its {@code nodeClassRef}. */
  public static Function<NodePool, List<InstanceType>> instanceTypesOf(CloudProvider cloudProvider) {
    return pool -> {
      var spec = pool.getSpec() == null || pool.getSpec().getTemplate() == null ? null : pool.getSpec().getTemplate().getSpec();
      var ref = spec == null ? null : spec.getNodeClassRef();
      return cloudProvider.instanceTypes(
          pool.getMetadata().getName(), ref == null ? new NodeClassRef("", "", "") : new NodeClassRef(ref.getGroup(), ref.getKind(), ref.getName()));
    };
  }

  /** True once every informer has listed its kind: before that, decisions could miss capacity. */
  public boolean synced() {
    return informers.hasSynced();
  }

  // ---------------------------------------------------------------- provisioning snapshot

  /**
   * The input of one provisioning pass. Pending pods are those kube-scheduler marked Unschedulable
   * (plus the reschedulable pods of nodes being deleted); nodes and NodeClaims being deleted or marked
   * for deletion are left out; in-flight NodeClaims appear as uninitialized nodes. Every pod a
   * DaemonSet controls is read, wherever it runs, since the newest one gives the DaemonSet's overhead
   * on new nodes; every RuntimeClass is read, and a pending pod naming one that does not exist is
   * rejected. Objects that cannot be converted are left out and listed in {@link StateSnapshot#invalid()}.
   */
  public StateSnapshot provisioningSnapshot() {
    return snapshot(listing());
  }

  /** The informers' objects, read in upstream's order. */
  private record Listing(List<Node> nodes, List<NodeClaim> claims, List<Pod> pods, List<NodePool> pools) {}

  private Listing listing() {
    // Capacity first, then pods: capacity that appears in between is counted, never the reverse.
    List<Node> nodes = informers.nodes().getStore().list();
    List<NodeClaim> claims = nodeClaims();
    List<Pod> pods = informers.pods().getStore().list();
    List<NodePool> pools = informers.nodePools().getStore().list();
    return new Listing(nodes, claims, pods, pools);
  }

  private StateSnapshot snapshot(Listing listing) {
    List<Node> nodes = listing.nodes();
    List<NodeClaim> claims = listing.claims();
    List<Pod> pods = listing.pods();
    List<NodePool> pools = listing.pools();

    Map<String, NodeClaim> claimByProviderId = new HashMap<>();
    for (NodeClaim claim : claims) {
      String providerId = providerId(claim);
      if (providerId != null) {
        claimByProviderId.put(providerId, claim);
      }
    }
    Set<String> deletingNodes = new HashSet<>();
    Set<String> deletingProviderIds = new HashSet<>();
    Map<String, String> nodeClaimNames = new HashMap<>();
    Set<String> nodeNames = new HashSet<>();
    Set<String> nodeProviderIds = new HashSet<>();
    for (Node node : nodes) {
      String providerId = providerId(node);
      nodeNames.add(node.getMetadata().getName());
      if (providerId != null) {
        nodeProviderIds.add(providerId);
      }
      NodeClaim claim = providerId == null ? null : claimByProviderId.get(providerId);
      if (claim != null) {
        nodeClaimNames.put(node.getMetadata().getName(), claim.getMetadata().getName());
      }
      if (Metadata.deleting(node) || (providerId != null && markedForDeletion.contains(providerId)) || (claim != null && Metadata.deleting(claim))) {
        deletingNodes.add(node.getMetadata().getName());
        if (providerId != null) {
          deletingProviderIds.add(providerId);
        }
      }
    }

    List<Input> inputs = new ArrayList<>();
    Map<String, Pod> podObjects = new HashMap<>();
    Map<String, String> notReadyPools = new LinkedHashMap<>();
    for (NodePool pool : pools) {
      Optional<String> notReady = notReady(pool);
      if (notReady.isEmpty()) {
        inputs.add(new Input(pool, "NodePool " + pool.getMetadata().getName()));
      } else if (!Metadata.deleting(pool)) {
        notReadyPools.put(pool.getMetadata().getName(), notReady.get());
      }
    }
    for (Node node : nodes) {
      if (!deletingNodes.contains(node.getMetadata().getName())) {
        inputs.add(new Input(node, "Node " + node.getMetadata().getName()));
      }
    }
    Set<String> inFlight = new HashSet<>();
    for (NodeClaim claim : claims) {
      String providerId = providerId(claim);
      if (Metadata.deleting(claim) || (providerId != null && (markedForDeletion.contains(providerId) || deletingProviderIds.contains(providerId)))) {
        continue;
      }
      inputs.add(new Input(claim, "NodeClaim " + claim.getMetadata().getName()));
      String nodeName = claim.getStatus() == null ? null : claim.getStatus().getNodeName();
      boolean joined = (providerId != null && nodeProviderIds.contains(providerId)) || (nodeName != null && nodeNames.contains(nodeName));
      if (!joined) {
        inFlight.add(claim.getMetadata().getName());
        nodeClaimNames.put(claim.getMetadata().getName(), claim.getMetadata().getName());
      }
    }
    PodDisruptionBudgets budgets = null;
    Instant now = clock.instant();
    for (Pod pod : pods) {
      String nodeName = Pods.nodeName(pod);
      String origin = "Pod " + Pods.key(pod);
      if (nodeName == null) {
        if (Pods.failedToSchedule(pod)) {
          inputs.add(new Input(pod, origin));
          podObjects.put(Pods.key(pod), pod);
        } else if (Pods.controlledByDaemonSet(pod)) {
          inputs.add(new Input(pod, origin)); // a candidate for its DaemonSet's overhead only
        }
      } else if (deletingNodes.contains(nodeName)) {
        if (budgets == null) {
          budgets = PodDisruptionBudgets.of(informers.podDisruptionBudgets().getStore().list());
        }
        if (Pods.reschedulable(pod) && !Pods.doNotDisrupt(pod, now) && !budgets.blocksEviction(pod)) {
          inputs.add(new Input(asPending(pod), origin));
          podObjects.put(Pods.key(pod), pod);
        } else if (Pods.controlledByDaemonSet(pod)) {
          inputs.add(new Input(pod, origin)); // its node is left out; a candidate for its DaemonSet's overhead only
        }
      } else {
        inputs.add(new Input(pod, origin));
      }
    }
    informers.daemonSets().getStore().list().forEach(o -> inputs.add(new Input(o, "DaemonSet " + key(o))));
    informers.csiNodes().getStore().list().forEach(o -> inputs.add(new Input(o, "CSINode " + o.getMetadata().getName())));
    informers.persistentVolumes().getStore().list().forEach(o -> inputs.add(new Input(o, "PersistentVolume " + key(o))));
    informers.persistentVolumeClaims().getStore().list().forEach(o -> inputs.add(new Input(o, "PersistentVolumeClaim " + key(o))));
    informers.storageClasses().getStore().list().forEach(o -> inputs.add(new Input(o, "StorageClass " + key(o))));
    informers.namespaces().getStore().list().forEach(o -> inputs.add(new Input(o, "Namespace " + key(o))));
    informers.services().getStore().list().forEach(o -> inputs.add(new Input(o, "Service " + key(o))));
    informers.spreadControllers().forEach(o -> inputs.add(new Input(o, o.getKind() + " " + key(o), true)));
    informers.runtimeClasses().getStore().list().forEach(o -> inputs.add(new Input(o, "RuntimeClass " + o.getMetadata().getName())));

    Function<NodePool, List<InstanceType>> memoized = memoizedInstanceTypes();
    Map<String, Resources> usage = usage(nodes, claims, pools, memoized);

    List<StateSnapshot.InvalidObject> invalid = new ArrayList<>();
    ClusterSnapshot snapshot = build(inputs, usage, memoized, invalid);
    Map<String, NodePool> poolsByName = new LinkedHashMap<>();
    pools.forEach(p -> poolsByName.put(p.getMetadata().getName(), p));
    invalid.forEach(i -> {
      if (i.object() instanceof Pod pod) {
        podObjects.put(Pods.key(pod), pod);
      }
    });
    return new StateSnapshot(snapshot, podObjects, poolsByName, notReadyPools, nodeClaimNames, inFlight, invalid);
  }

  /** One object for the snapshot; {@code spreadOnly} for a controller that only gives pods their default spread selector. */
  private record Input(HasMetadata object, String origin, boolean spreadOnly) {
    Input(HasMetadata object, String origin) {
      this(object, origin, false);
    }
  }

  /** Builds the snapshot, leaving out (and reporting) each object the builder cannot convert. */
  private ClusterSnapshot build(
      List<Input> inputs, Map<String, Resources> usage, Function<NodePool, List<InstanceType>> types, List<StateSnapshot.InvalidObject> invalid) {
    List<Input> remaining = new ArrayList<>(inputs);
    while (true) {
      SnapshotBuilder builder = new SnapshotBuilder(types).defaultConstraints(defaultConstraints).nodePoolUsage(usage).allRuntimeClassesKnown();
      try {
        for (Input input : remaining) {
          if (input.spreadOnly()) {
            builder.addSpreadController(input.object(), input.origin());
          } else if (input.object() instanceof NodeClaim claim) {
            builder.addNodeClaim(claim, input.origin());
          } else {
            builder.add(input.object(), input.origin());
          }
        }
        return builder.build();
      } catch (SnapshotInputException e) {
        Input culprit = remaining.stream().filter(i -> i.origin().equals(e.origin())).findFirst().orElse(null);
        if (culprit == null || invalid.size() >= MAX_INVALID_OBJECTS) {
          throw e;
        }
        LOG.warn("leaving an invalid object out of provisioning: {}", e.getMessage());
        invalid.add(new StateSnapshot.InvalidObject(culprit.object(), culprit.origin(), e.getMessage()));
        remaining.remove(culprit);
      }
    }
  }

  // ---------------------------------------------------------------- disruption view

  /**
   * The input of one disruption decision, read from one listing of the informers: the provisioning
   * snapshot (whose scheduler input disruption simulates against, so both see the same cluster) and
   * every Node, managed or not, with its NodeClaim, bound pods, deletion mark and nomination, plus
   * every in-flight NodeClaim as an uninitialized node. Nodes the provisioning snapshot leaves out
   * (being deleted, marked for deletion) are converted the same way on their own, because disruption
   * budgets count them as disrupting; a Node that cannot be converted at all is left out.
   */
  public DisruptionView disruptionView() {
    Listing listing = listing();
    StateSnapshot snapshot = snapshot(listing);
    Map<String, ExistingNode> converted = new HashMap<>();
    snapshot.cluster().nodes().forEach(n -> converted.put(n.name(), n));
    ClusterSnapshot cluster = snapshot.cluster();
    Map<String, NodeClaim> claimByProviderId = new HashMap<>();
    Map<String, NodeClaim> claimByName = new HashMap<>();
    for (NodeClaim claim : listing.claims()) {
      claimByName.put(claim.getMetadata().getName(), claim);
      String providerId = providerId(claim);
      if (providerId != null) {
        claimByProviderId.put(providerId, claim);
      }
    }
    List<RuntimeClass> runtimeClasses = informers.runtimeClasses().getStore().list();
    Map<String, List<Pod>> podsByNode = new HashMap<>();
    for (Pod pod : listing.pods()) {
      String nodeName = Pods.nodeName(pod);
      if (nodeName != null) {
        podsByNode.computeIfAbsent(nodeName, n -> new ArrayList<>()).add(pod);
      }
    }
    List<DisruptionView.NodeView> views = new ArrayList<>();
    for (Node node : listing.nodes()) {
      String name = node.getMetadata().getName();
      String providerId = providerId(node);
      NodeClaim claim = providerId == null ? null : claimByProviderId.get(providerId);
      ClusterSnapshot source = converted.containsKey(name)
          ? cluster
          : convertLeftOut(node, claim, podsByNode.getOrDefault(name, List.of()), runtimeClasses);
      ExistingNode existing = source == null ? null : source.nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElse(null);
      if (existing == null) {
        continue;
      }
      List<BoundPod> pods = source.boundPods(name);
      boolean nominated = isNominated(name) || (claim != null && isNominated(claim.getMetadata().getName()));
      views.add(new DisruptionView.NodeView(
          existing, node, claim, pods, providerId != null && markedForDeletion.contains(providerId), nominated));
    }
    for (String name : snapshot.inFlight()) {
      ExistingNode existing = converted.get(name);
      NodeClaim claim = claimByName.get(name);
      if (existing != null && claim != null) {
        views.add(new DisruptionView.NodeView(existing, null, claim, List.of(), false, isNominated(name)));
      }
    }
    return new DisruptionView(snapshot, views, informers.podDisruptionBudgets().getStore().list());
  }

  /**
   * A Node the provisioning snapshot left out (being deleted or marked for deletion), converted by
   * the same builder as if it were live, alone in a snapshot; null when it cannot be converted.
   */
  private static ClusterSnapshot convertLeftOut(Node node, NodeClaim claim, List<Pod> pods, List<RuntimeClass> runtimeClasses) {
    String name = node.getMetadata().getName();
    Node live = Metadata.deleting(node) ? new NodeBuilder(node).editMetadata().withDeletionTimestamp(null).endMetadata().build() : node;
    SnapshotBuilder builder = new SnapshotBuilder(pool -> List.of());
    try {
      builder.add(live, "Node " + name);
      if (claim != null) {
        builder.addNodeClaim(claim, "NodeClaim " + claim.getMetadata().getName());
      }
      pods.forEach(pod -> builder.add(pod, "Pod " + Pods.key(pod)));
      runtimeClasses.forEach(runtimeClass -> builder.add(runtimeClass, "RuntimeClass " + runtimeClass.getMetadata().getName()));
      return builder.build();
    } catch (SnapshotInputException e) {
      LOG.warn("leaving an invalid node out of disruption: {}", e.getMessage());
      return null;
    }
  }

  // ---------------------------------------------------------------- NodePool usage

  /**
   * Per NodePool, what its nodes and NodeClaims count against its limits: capacity plus {@code
   * nodes}, including nodes being deleted (they still exist) and in-flight NodeClaims (launched:
   * their capacity; not yet: the largest capacity they may launch with), so that limits are not
   * overshot while capacity is on its way.
   */
  public Map<String, Resources> nodePoolUsage() {
    List<Node> nodes = informers.nodes().getStore().list();
    List<NodeClaim> claims = nodeClaims();
    List<NodePool> pools = informers.nodePools().getStore().list();
    return usage(nodes, claims, pools, memoizedInstanceTypes());
  }

  /**
   * The cloud provider's instance types, asked once per NodePool for one snapshot; a provider error
   * leaves the pool without instance types for this pass (logged) instead of failing the pass.
   */
  private Function<NodePool, List<InstanceType>> memoizedInstanceTypes() {
    Map<String, List<InstanceType>> typesByPool = new HashMap<>();
    return pool -> typesByPool.computeIfAbsent(pool.getMetadata().getName(), name -> {
      try {
        return instanceTypes.apply(pool);
      } catch (RuntimeException e) {
        LOG.error("listing the instance types of NodePool {} failed: {}", name, e.toString());
        return List.of();
      }
    });
  }

  /** {@link #nodePoolUsage()} of one pool ({@link Resources#EMPTY} when it has nothing). */
  public Resources nodePoolUsage(String nodePool) {
    return nodePoolUsage().getOrDefault(nodePool, Resources.EMPTY);
  }

  private Map<String, Resources> usage(
      List<Node> nodes, List<NodeClaim> claims, List<NodePool> pools, Function<NodePool, List<InstanceType>> types) {
    Resources oneNode = Resources.builder().milli(ResourceNames.index("nodes"), 1000).build();
    Map<String, Resources> usage = new HashMap<>();
    Set<String> providerIds = new HashSet<>();
    Set<String> nodeNames = new HashSet<>();
    for (Node node : nodes) {
      nodeNames.add(node.getMetadata().getName());
      String providerId = providerId(node);
      if (providerId != null) {
        providerIds.add(providerId);
      }
      String pool = Metadata.labels(node).get(Labels.NODE_POOL);
      if (pool != null) {
        usage.merge(pool, capacity(node).plus(oneNode), Resources::plus);
      }
    }
    Map<String, NodePool> poolsByName = new HashMap<>();
    pools.forEach(p -> poolsByName.put(p.getMetadata().getName(), p));
    for (NodeClaim claim : claims) {
      String providerId = providerId(claim);
      String nodeName = claim.getStatus() == null ? null : claim.getStatus().getNodeName();
      String poolName = Metadata.labels(claim).get(Labels.NODE_POOL);
      if (poolName == null || (providerId != null && providerIds.contains(providerId)) || (nodeName != null && nodeNames.contains(nodeName))) {
        continue;
      }
      NodePool pool = poolsByName.get(poolName);
      try {
        Resources capacity = NodeClaimConverter.capacity(claim, pool == null ? List.of() : types.apply(pool), "NodeClaim " + claim.getMetadata().getName());
        usage.merge(poolName, capacity.plus(oneNode), Resources::plus);
      } catch (SnapshotInputException e) {
        LOG.warn("not counting an invalid NodeClaim towards its NodePool's usage: {}", e.getMessage());
      }
    }
    return usage;
  }

  private static Resources capacity(Node node) {
    var status = node.getStatus();
    var list = status == null ? null : (status.getCapacity() != null && !status.getCapacity().isEmpty() ? status.getCapacity() : status.getAllocatable());
    if (list == null) {
      return Resources.EMPTY;
    }
    Resources.Builder builder = Resources.builder();
    list.forEach((name, quantity) -> {
      try {
        builder.milli(name, Quantity.parseMilli(quantity.toString()));
      } catch (IllegalArgumentException | ArithmeticException e) {
        LOG.warn("ignoring node {} capacity {}: {}", node.getMetadata().getName(), name, e.getMessage());
      }
    });
    return builder.build();
  }

  // ---------------------------------------------------------------- nominations and deletion marks

  /** Records that the pod is expected to land on this node or NodeClaim (name), for the nomination window. */
  public void nominate(String podKey, String nodeOrNodeClaimName) {
    nominations.nominate(podKey, nodeOrNodeClaimName);
  }

  /** The node or NodeClaim the pod was nominated to, while the nomination lasts. */
  public Optional<String> nominated(String podKey) {
    return nominations.forPod(podKey);
  }

  /** True while some pod is nominated to this node or NodeClaim (disruption skips such nodes). */
  public boolean isNominated(String nodeOrNodeClaimName) {
    return nominations.isNominated(nodeOrNodeClaimName);
  }

  /**
   * The pods (as the informer has them) whose latest nomination is to this NodeClaim, even past the
   * nomination window: upstream's {@code PodsMappedToNodeClaim}, the pods a failed launch tells why.
   */
  public List<Pod> podsNominatedTo(String nodeClaimName) {
    List<Pod> pods = new ArrayList<>();
    for (String key : nominations.podsNominatedTo(nodeClaimName)) {
      Pod pod = informers.pods().getStore().getByKey(key);
      if (pod != null) {
        pods.add(pod);
      }
    }
    return pods;
  }

  /** Forgets the pod's nomination: its latest scheduling simulation found no place for it (upstream does the same). */
  public void unschedulable(String podKey) {
    nominations.forgetPod(podKey);
  }

  /** Marks nodes (by provider ID) as about to be deleted: no pods are planned onto them any more. */
  public void markForDeletion(Collection<String> providerIds) {
    markedForDeletion.addAll(providerIds);
  }

  /** Undoes {@link #markForDeletion} (the disruption was abandoned). */
  public void unmarkForDeletion(Collection<String> providerIds) {
    markedForDeletion.removeAll(providerIds);
  }

  public boolean isMarkedForDeletion(String providerId) {
    return markedForDeletion.contains(providerId);
  }

  // ---------------------------------------------------------------- created NodeClaims

  /**
   * Records a NodeClaim this process just created (the create's response, with its resource
   * version), so that snapshots count it before the informer delivers it; dropped once the informer
   * has it or has read past its resource version (see the class comment).
   */
  public void nodeClaimCreated(NodeClaim claim) {
    if (claim.getMetadata() != null && claim.getMetadata().getName() != null
        && informers.nodeClaims().getStore().getByKey(claim.getMetadata().getName()) == null) {
      created.put(claim.getMetadata().getName(),
          new Created(claim, clock.instant(), resourceVersion(claim.getMetadata().getResourceVersion()), new AtomicBoolean()));
    }
  }

  /** The informer's NodeClaims plus the ones created here that it has not delivered yet. */
  private List<NodeClaim> nodeClaims() {
    // The informer's version is read before its store: the store then holds every event up to it.
    long informerVersion = created.isEmpty() ? -1 : resourceVersion(informers.nodeClaims().lastSyncResourceVersion());
    List<NodeClaim> claims = new ArrayList<>(informers.nodeClaims().getStore().list());
    if (!created.isEmpty()) {
      Instant now = clock.instant();
      Set<String> names = new HashSet<>();
      claims.forEach(c -> names.add(c.getMetadata().getName()));
      created.forEach((name, entry) -> {
        if (names.contains(name) || entry.readPast(informerVersion)) {
          created.remove(name, entry);
        } else if (entry.waitedOut(informerVersion, now)) {
          created.remove(name, entry);
          LOG.warn("NodeClaim {} was created {} ago and the NodeClaim informer has not delivered it (it read up to resource "
              + "version {}, the create returned {}); no longer counting it", name, Duration.between(entry.at(), now),
              informerVersion, entry.resourceVersion());
        } else {
          if (!now.isBefore(entry.at().plus(CREATED_GRACE)) && entry.lagLogged().compareAndSet(false, true)) {
            LOG.info("NodeClaim {} was created {} ago and the NodeClaim informer has not delivered it yet (it read up to resource "
                + "version {}, the create returned {}); still counting it", name, Duration.between(entry.at(), now),
                informerVersion, entry.resourceVersion());
          }
          claims.add(entry.claim());
        }
      });
    }
    return claims;
  }

  /** A resource version as an integer, or -1 when absent or not one (the API calls them opaque; etcd's are integers). */
  static long resourceVersion(String version) {
    try {
      long value = Long.parseLong(version);
      return value >= 0 ? value : -1;
    } catch (NumberFormatException e) { // null included
      return -1;
    }
  }

  // ---------------------------------------------------------------- pod acknowledgements

  /** Notes when a provisionable pod was first seen (the start of its scheduling-decision latency). */
  public void ackPod(String uid) {
    podAcks.putIfAbsent(uid, clock.instant());
  }

  /**
   * Marks that a scheduling decision was made for the pod; the first time, returns how long after
   * its acknowledgement (empty when it was never acknowledged or was decided before).
   */
  public Optional<Duration> podDecided(String uid) {
    Instant acked = podAcks.get(uid);
    if (acked == null || !podsDecided.add(uid)) {
      return Optional.empty();
    }
    return Optional.of(Duration.between(acked, clock.instant()));
  }

  private void forgetPod(Pod pod) {
    String uid = pod.getMetadata().getUid();
    if (uid != null) {
      podAcks.remove(uid);
      podsDecided.remove(uid);
    }
    nominations.forgetPod(Pods.key(pod));
  }

  // ---------------------------------------------------------------- prebindings

  /** Records that these pods should be bound to the NodeClaim's Node as soon as it registers. */
  public void prebind(String nodeClaimName, List<PodRef> pods) {
    if (!pods.isEmpty()) {
      prebindings.put(nodeClaimName, List.copyOf(pods));
    }
  }

  /** Every recorded prebinding, by NodeClaim name. */
  public Map<String, List<PodRef>> prebindings() {
    return Map.copyOf(prebindings);
  }

  /** The pods recorded for this NodeClaim (empty when none), without copying the other prebindings. */
  public List<PodRef> prebindings(String nodeClaimName) {
    return prebindings.getOrDefault(nodeClaimName, List.of());
  }

  /** Removes and returns the pods to bind to this NodeClaim's Node (empty when none). */
  public List<PodRef> takePrebindings(String nodeClaimName) {
    List<PodRef> pods = prebindings.remove(nodeClaimName);
    return pods == null ? List.of() : pods;
  }

  // ---------------------------------------------------------------- helpers

  /** A bound pod of a deleting node as a pod waiting for a new home. */
  private static Pod asPending(Pod pod) {
    return new PodBuilder(pod).editMetadata().withDeletionTimestamp(null).endMetadata().editSpec().withNodeName(null).endSpec().build();
  }

  /**
   * Why a NodePool is not used, or empty when its {@code Ready} condition is True. Upstream's
   * provisioner ({@code NewScheduler}) uses only NodePools whose {@code Ready} is True: one that is
   * False, Unknown or has no status yet (the {@code nodepool.validation} and {@code nodepool.readiness}
   * controllers set it within a reconcile of its creation) is left out of scheduling.
   */
  public static Optional<String> notReady(NodePool pool) {
    var conditions = pool.getStatus() == null ? null : pool.getStatus().getConditions();
    var ready = conditions == null ? Optional.<io.fabric8.kubernetes.api.model.Condition>empty() : Conditions.get(conditions, ConditionTypes.READY);
    if (ready.isEmpty()) {
      return Optional.of("not ready: no Ready condition yet");
    }
    if (Conditions.TRUE.equals(ready.get().getStatus())) {
      return Optional.empty();
    }
    var c = ready.get();
    String reason = c.getReason() == null || c.getReason().isEmpty() ? "" : ", " + c.getReason();
    String message = c.getMessage() == null || c.getMessage().isEmpty() ? "" : ": " + c.getMessage();
    return Optional.of("not ready (Ready=" + c.getStatus() + reason + message + ")");
  }

  private static String providerId(Node node) {
    String id = Metadata.providerId(node);
    return id.isEmpty() ? null : id;
  }

  private static String providerId(NodeClaim claim) {
    String id = Metadata.providerId(claim);
    return id.isEmpty() ? null : id;
  }

  /** {@code namespace/name} of a namespaced object, the name of a cluster-scoped one (for origins). */
  private static String key(HasMetadata object) {
    String namespace = object.getMetadata().getNamespace();
    return namespace == null || namespace.isEmpty() ? object.getMetadata().getName() : namespace + "/" + object.getMetadata().getName();
  }
}
