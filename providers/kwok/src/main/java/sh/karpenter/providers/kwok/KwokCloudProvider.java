package sh.karpenter.providers.kwok;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.net.HttpURLConnection;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.random.RandomGenerator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.cloudprovider.CreateException;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClaimNotFoundException;
import sh.karpenter.core.cloudprovider.NodeClassNotReadyException;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.cloudprovider.RepairPolicy;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.instancetype.Offering;
import sh.karpenter.core.taints.Taint;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.providers.kwok.OfferingSelection.Selection;

/**
 * The KWOK cloud provider (upstream kwok/cloudprovider): an "instance" is a Node object that KWOK,
 * standing in for the kubelet, turns Ready and runs pods on. Create picks the cheapest Offering the
 * NodeClaim allows and creates the Node in the background once the KWOKNodeClass's {@code
 * nodeRegistrationDelay} has passed, as a kubelet registers some time after the instance launched;
 * Get, List and Delete work on the Nodes carrying the {@link #PROVIDER_LABEL} marker, plus the
 * instances whose Node is still to come.
 *
 * <p>The instance types come from an {@link InstanceTypeCatalog}: the CLI passes the bundled AWS
 * catalogue so that {@code karpenter plan} and the controller agree; {@link InstanceTypeCatalog#kwok()}
 * or upstream's {@code instance_types.json} ({@link #fromFile}) are the alternatives. Tests inject
 * capacity shortages and launch failures through {@link #failures()}.
 *
 * <p>Thread-safe. Owns one daemon thread that creates the Nodes; {@link #close()} stops it.
 */
public final class KwokCloudProvider implements CloudProvider, AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(KwokCloudProvider.class);

  public static final String NAME = "kwok";
  /** Provider IDs are {@code kwok://<node name>}. */
  public static final String PROVIDER_ID_PREFIX = "kwok://";
  /** Marks the Nodes this provider created, so that Get and List see only those. */
  public static final String PROVIDER_LABEL = "karpenter.kwok.sh/provider";
  public static final String PROVIDER_LABEL_VALUE = "kwok";
  /** The NodeClass kind this provider supports. */
  public static final NodeClassRef NODE_CLASS = new NodeClassRef(KWOKNodeClass.GROUP, KWOKNodeClass.KIND, "");
  /** {@code karpenter.sh/unregistered:NoExecute}: every new Node carries it until Karpenter registers it. */
  public static final Taint UNREGISTERED_TAINT = Taint.of(TaintKeys.UNREGISTERED, Taint.Effect.NoExecute);
  /** Upstream KWOK's: a node Ready=False or Ready=Unknown for 10 minutes is repaired. */
  public static final List<RepairPolicy> REPAIR_POLICIES =
      List.of(
          new RepairPolicy("Ready", "False", Duration.ofMinutes(10)),
          new RepairPolicy("Ready", "Unknown", Duration.ofMinutes(10)));

  /** How often delayed Node creations are checked against the clock. */
  private static final Duration POLL_INTERVAL = Duration.ofMillis(100);
  /** First retry delay after a failed Node creation; doubles up to {@link #MAX_RETRY_DELAY}. */
  private static final Duration FIRST_RETRY_DELAY = Duration.ofMillis(500);
  private static final Duration MAX_RETRY_DELAY = Duration.ofSeconds(30);

  private final KubernetesClient client;
  private final InstanceTypeCatalog catalog;
  private final Clock clock;
  private final RandomGenerator random;
  private final List<RepairPolicy> repairPolicies;
  private final KwokFailures failures = new KwokFailures();
  /** Launched instances whose Node is not created yet, by provider ID. */
  private final Map<String, PendingNode> pending = new ConcurrentHashMap<>();
  private final ScheduledExecutorService executor;
  private ScheduledFuture<?> poller;

  public KwokCloudProvider(KubernetesClient client, InstanceTypeCatalog catalog, Clock clock) {
    this(client, catalog, clock, new Random());
  }

  /** With a given source of randomness (tie-breaks between equal prices, node name suffixes); thread-safe if shared. */
  public KwokCloudProvider(KubernetesClient client, InstanceTypeCatalog catalog, Clock clock, Random random) {
    this(client, catalog, clock, random, REPAIR_POLICIES);
  }

  /**
   * With given repair policies instead of {@link #REPAIR_POLICIES} (tests use short tolerations).
   *
   * @throws IllegalArgumentException when {@code repairPolicies} is empty
   */
  public KwokCloudProvider(KubernetesClient client, InstanceTypeCatalog catalog, Clock clock, Random random, List<RepairPolicy> repairPolicies) {
    if (repairPolicies == null || repairPolicies.isEmpty()) {
      throw new IllegalArgumentException("the KWOK provider needs at least one repair policy");
    }
    this.repairPolicies = List.copyOf(repairPolicies);
    this.client = Objects.requireNonNull(client, "client");
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.clock = Objects.requireNonNull(clock, "clock");
    this.random = Objects.requireNonNull(random, "random");
    this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
      Thread thread = new Thread(r, "kwok-node-launcher");
      thread.setDaemon(true);
      return thread;
    });
  }

  /**
   * A provider offering the instance types of a JSON file: upstream KWOK's {@code instance_types.json}
   * format (an array), or the AWS data format ({@link InstanceTypeCatalog#fromFile(Path)}).
   *
   * @throws IOException when the file cannot be read
   * @throws IllegalArgumentException when it is in neither format, naming the entry at fault
   */
  public static KwokCloudProvider fromFile(KubernetesClient client, Path instanceTypesFile, Clock clock) throws IOException {
    return new KwokCloudProvider(client, InstanceTypeCatalog.fromFile(instanceTypesFile), clock);
  }

  /** The failures injected into this provider; tests change them at will. */
  public KwokFailures failures() {
    return failures;
  }

  /** The catalogue the instance types come from. */
  public InstanceTypeCatalog catalog() {
    return catalog;
  }

  @Override
  public String name() {
    return NAME;
  }

  /**
   * The catalogue's instance types, the same for every NodePool; blocked Offerings are reported
   * unavailable only when {@link KwokFailures#reportBlockedUnavailable(boolean)} asks for it.
   */
  @Override
  public List<InstanceType> instanceTypes(String nodePoolName, NodeClassRef nodeClassRef) {
    if (!failures.reportBlockedUnavailable() || !failures.anyBlocked()) {
      return catalog.instanceTypes();
    }
    List<InstanceType> types = new ArrayList<>(catalog.instanceTypes().size());
    for (InstanceType type : catalog.instanceTypes()) {
      List<Offering> offerings = new ArrayList<>(type.offerings().size());
      boolean changed = false;
      for (Offering o : type.offerings()) {
        if (o.available() && failures.isBlocked(type.name(), o.zone(), o.capacityType())) {
          offerings.add(new Offering(o.requirements(), o.price(), false, o.reservationCapacity()));
          changed = true;
        } else {
          offerings.add(o);
        }
      }
      types.add(changed ? type.withOfferings(offerings) : type);
    }
    return types;
  }

  /**
   * Picks the cheapest Offering the request allows (at random among equal prices) and launches it:
   * the Node appears after the KWOKNodeClass's {@code nodeRegistrationDelay}. Never waits for it.
   *
   * @throws NodeClassNotReadyException when the request's KWOKNodeClass does not exist or is not Ready
   * @throws InsufficientCapacityException when no compatible, fitting, available Offering is left
   * @throws CreateException for injected failures and when the KWOKNodeClass cannot be read
   */
  @Override
  public Instance create(LaunchRequest request) {
    CreateException injected = failures.takeCreateFailure();
    if (injected != null) {
      throw injected;
    }
    Duration delay = registrationDelay(request.nodeClassRef());
    Selection selection = OfferingSelection.select(catalog.instanceTypes(), request, failures, random);
    String nodeName = ProviderNodes.nodeName(request.nodeClaimName(), random);
    Map<String, String> labels = ProviderNodes.labels(nodeName, selection, request);
    Node node = ProviderNodes.node(nodeName, labels, ProviderNodes.taints(request), selection);
    Instance instance = ProviderNodes.instance(nodeName, labels, selection);
    boolean skip = failures.skipNodeCreation();
    PendingNode launch = new PendingNode(node, instance, clock.instant().plus(delay), skip);
    pending.put(instance.providerId(), launch);
    LOG.info(
        "launched {} ({} {} {} ${}/h) for NodeClaim {}{}",
        instance.providerId(), selection.instanceType().name(), instance.zone(), instance.capacityType(),
        selection.offering().price(), request.nodeClaimName(),
        skip ? "; its Node will never be created (skipNodeCreation)" : delay.isZero() ? "" : "; Node in " + delay);
    if (!skip) {
      if (delay.isZero() || delay.isNegative()) {
        executor.execute(() -> launch(launch));
      } else {
        ensurePolling();
      }
    }
    return instance;
  }

  /** The KWOKNodeClass's registration delay; zero when the request names no NodeClass. */
  private Duration registrationDelay(NodeClassRef ref) {
    if (ref == null || ref.name().isEmpty()) {
      return Duration.ZERO;
    }
    if (!ref.kind().isEmpty() && !NODE_CLASS.sameKind(ref)) {
      throw new NodeClassNotReadyException(
          "nodeClassRef " + ref.group() + "/" + ref.kind() + " " + ref.name() + " is not a " + KWOKNodeClass.GROUP + "/"
              + KWOKNodeClass.KIND);
    }
    KWOKNodeClass nodeClass;
    try {
      nodeClass = client.resources(KWOKNodeClass.class).withName(ref.name()).get();
    } catch (KubernetesClientException e) {
      throw new CreateException("NodeClassLookupFailed", "reading KWOKNodeClass " + ref.name() + ": " + e.getMessage(), e);
    }
    if (nodeClass == null) {
      throw new NodeClassNotReadyException("KWOKNodeClass " + ref.name() + " not found");
    }
    if (nodeClass.getStatus() != null && nodeClass.getStatus().getConditions() != null) {
      for (Condition c : nodeClass.getStatus().getConditions()) {
        if ("Ready".equals(c.getType()) && !"True".equals(c.getStatus())) {
          throw new NodeClassNotReadyException(
              "KWOKNodeClass " + ref.name() + " is not ready: " + c.getReason() + " " + Objects.toString(c.getMessage(), ""));
        }
      }
    }
    if (nodeClass.getSpec() == null || nodeClass.getSpec().getNodeRegistrationDelay() == null) {
      return Duration.ZERO;
    }
    return nodeClass.getSpec().getNodeRegistrationDelay().duration();
  }

  private synchronized void ensurePolling() {
    if (poller == null && !executor.isShutdown()) {
      long millis = POLL_INTERVAL.toMillis();
      poller = executor.scheduleWithFixedDelay(this::launchDue, millis, millis, TimeUnit.MILLISECONDS);
    }
  }

  /** Creates the Nodes whose time has come on the injected clock. */
  private void launchDue() {
    Instant now = clock.instant();
    for (PendingNode launch : pending.values()) {
      if (!launch.skip && !launch.due.isAfter(now)) {
        launch(launch);
      }
    }
  }

  /** Creates the pending Node unless it was deleted meanwhile; on failure retries later. */
  private void launch(PendingNode launch) {
    synchronized (launch) {
      if (launch.cancelled || launch.created) {
        return;
      }
      try {
        client.nodes().resource(launch.node).create();
        launch.created = true;
      } catch (KubernetesClientException e) {
        if (e.getCode() == HttpURLConnection.HTTP_CONFLICT) {
          launch.created = true; // created by an earlier attempt whose answer was lost
        } else {
          launch.retryDelay = launch.retryDelay == null ? FIRST_RETRY_DELAY : min(launch.retryDelay.multipliedBy(2), MAX_RETRY_DELAY);
          launch.due = clock.instant().plus(launch.retryDelay);
          LOG.warn("creating Node {} failed, retrying in {}: {}", launch.node.getMetadata().getName(), launch.retryDelay, e.getMessage());
          ensurePolling();
          return;
        }
      } catch (RuntimeException e) {
        LOG.error("creating Node {} failed; giving up", launch.node.getMetadata().getName(), e);
        return;
      }
    }
    pending.remove(launch.instance.providerId(), launch);
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  /**
   * Deletes the instance's Node (or cancels a Node still to come).
   *
   * @throws NodeClaimNotFoundException once the Node is gone
   */
  @Override
  public void delete(String providerId) {
    PendingNode launch = pending.get(providerId);
    if (launch != null) {
      synchronized (launch) {
        if (!launch.created) {
          launch.cancelled = true;
          pending.remove(providerId, launch);
          return;
        }
      }
    }
    String name = nodeName(providerId);
    if (name == null) {
      throw new NodeClaimNotFoundException("instance " + providerId + " not found: not a " + PROVIDER_ID_PREFIX + " provider ID");
    }
    Node node = client.nodes().withName(name).get();
    if (node == null || !isOurs(node) || terminated(node)) {
      throw new NodeClaimNotFoundException("instance " + providerId + " not found");
    }
    if (client.nodes().withName(name).delete().isEmpty()) {
      throw new NodeClaimNotFoundException("instance " + providerId + " not found");
    }
  }

  @Override
  public Optional<Instance> get(String providerId) {
    PendingNode launch = pending.get(providerId);
    if (launch != null && !launch.cancelled) {
      return Optional.of(launch.instance);
    }
    String name = nodeName(providerId);
    if (name == null) {
      return Optional.empty();
    }
    Node node = client.nodes().withName(name).get();
    return node == null || !isOurs(node) || terminated(node) ? Optional.empty() : Optional.of(ProviderNodes.instance(node));
  }

  /**
   * A KWOK instance is its Node, so a Node with a deletion timestamp is a terminated instance (as
   * upstream's kwok provider answers): Karpenter's own termination finalizer keeps the Node object
   * until it sees the instance gone, so waiting for the object to vanish would wait forever.
   */
  private static boolean terminated(Node node) {
    return node.getMetadata().getDeletionTimestamp() != null;
  }

  @Override
  public List<Instance> list() {
    // Pending launches first, then Nodes: a launch leaves `pending` only after its Node exists, so an
    // instance whose Node appears between the two reads is still seen (in the reverse order it was missed).
    List<Instance> launching = new ArrayList<>();
    for (PendingNode launch : pending.values()) {
      if (!launch.cancelled) {
        launching.add(launch.instance);
      }
    }
    Map<String, Instance> instances = new LinkedHashMap<>();
    for (Node node : client.nodes().withLabel(PROVIDER_LABEL, PROVIDER_LABEL_VALUE).list().getItems()) {
      if (terminated(node)) {
        continue;
      }
      Instance instance = ProviderNodes.instance(node);
      instances.put(instance.providerId(), instance);
    }
    launching.forEach(instance -> instances.putIfAbsent(instance.providerId(), instance));
    return List.copyOf(instances.values());
  }

  /** Always "": KWOK nodes do not drift from their KWOKNodeClass. */
  @Override
  public String driftReason(String providerId, NodeClassRef nodeClassRef) {
    return "";
  }

  @Override
  public List<RepairPolicy> repairPolicies() {
    return repairPolicies;
  }

  @Override
  public List<NodeClassRef> supportedNodeClasses() {
    return List.of(NODE_CLASS);
  }

  /** How many launched instances still wait for their Node (delayed, retrying, or skipped). */
  public int pendingNodes() {
    return (int) pending.values().stream().filter(p -> !p.cancelled && !p.created).count();
  }

  /** Stops the Node-creation thread; Nodes still pending are not created. */
  @Override
  public void close() {
    executor.shutdownNow();
  }

  private static boolean isOurs(Node node) {
    return node.getMetadata().getLabels() != null
        && PROVIDER_LABEL_VALUE.equals(node.getMetadata().getLabels().get(PROVIDER_LABEL));
  }

  /** The node name of a {@code kwok://} provider ID, or null for another provider's. */
  private static String nodeName(String providerId) {
    if (providerId == null || !providerId.startsWith(PROVIDER_ID_PREFIX) || providerId.length() == PROVIDER_ID_PREFIX.length()) {
      return null;
    }
    return providerId.substring(PROVIDER_ID_PREFIX.length());
  }

  /** A launched instance whose Node is still to be created. Fields are guarded by the object's lock. */
  private static final class PendingNode {
    final Node node;
    final Instance instance;
    final boolean skip;
    volatile Instant due;
    volatile boolean cancelled;
    volatile boolean created;
    Duration retryDelay;

    PendingNode(Node node, Instance instance, Instant due, boolean skip) {
      this.node = node;
      this.instance = instance;
      this.due = due;
      this.skip = skip;
    }
  }
}
