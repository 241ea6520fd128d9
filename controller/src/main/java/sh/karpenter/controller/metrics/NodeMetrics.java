package sh.karpenter.controller.metrics;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Gauge;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.objects.Pods;
import sh.karpenter.controller.snapshot.PodResources;
import sh.karpenter.controller.snapshot.SnapshotInputException;
import sh.karpenter.core.resources.ResourceNames;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.wellknown.Labels;

/**
 * Upstream's {@code metrics.node} controller: per-node gauges of allocatable, pod and DaemonSet pod
 * requests and limits, system overhead and lifetime, and the cluster's utilization of allocatable
 * resources by pod requests (docs/behaviour/observability.md#metrics). {@link #update} is the body of
 * the singleton loop {@value #NAME}, run every {@link #PERIOD}; each run replaces every series, so a
 * node that is gone loses its series.
 *
 * <p>Pods count on the node named by their {@code spec.nodeName} unless they are terminal
 * (Succeeded or Failed); their requests are the scheduler's effective requests ({@link
 * PodResources}), {@code pods: 1} included, as upstream's {@code resources.RequestsForPods}. A pod
 * owned by a DaemonSet also counts as a daemon. A node is {@code managed} when a NodeClaim has its
 * provider ID. CPU is exported in cores, every other resource in its base unit.
 */
public final class NodeMetrics {
  private static final Logger LOG = LoggerFactory.getLogger(NodeMetrics.class);

  /** The singleton loop's name, upstream's controller name. */
  public static final String NAME = "metrics.node";

  /** How often the loop refreshes the series (upstream requeues after 5 s). */
  public static final Duration PERIOD = Duration.ofSeconds(5);

  static final String NODE_NAME = "node_name";
  static final String PHASE = "phase";
  static final String MANAGED = "managed";

  /**
   * The well-known label keys and their metric label names as upstream's {@code
   * getWellKnownLabels} derives them (the part after the {@code /}, lower case, {@code -} → {@code
   * _}), in a fixed order.
   */
  static final Map<String, String> WELL_KNOWN_LABELS = wellKnownLabels();

  private final Clock clock;
  private final Gauge allocatable;
  private final Gauge podRequests;
  private final Gauge podLimits;
  private final Gauge daemonRequests;
  private final Gauge daemonLimits;
  private final Gauge systemOverhead;
  private final Gauge lifetime;
  private final Gauge clusterUtilization;
  private final List<Gauge> all;
  private final Map<Gauge, Set<List<String>>> published = new HashMap<>();
  /**
   * Each bound pod's requests and limits by UID, from the previous run: a pod's resources change only
   * with its resourceVersion, and converting every pod every {@link #PERIOD} cost about half a second
   * per 50,000 pods.
   */
  private Map<String, PodTotals> podTotals = new HashMap<>();

  /** A pod's requests and limits as of {@code resourceVersion}. */
  private record PodTotals(String resourceVersion, Resources requests, Resources limits) {}

  /** Registers the families in the registry of {@code metrics}; records nothing for {@link Metrics#noop()}. */
  public NodeMetrics(Metrics metrics, Clock clock) {
    this(metrics.registry().orElse(null), clock);
  }

  private NodeMetrics(CollectorRegistry registry, Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    String[] node = nodeLabelNames(false);
    String[] nodeResource = nodeLabelNames(true);
    allocatable = gauge(registry, "karpenter_nodes_allocatable", "Node allocatable are the resources allocatable by nodes.", nodeResource);
    podRequests = gauge(registry, "karpenter_nodes_total_pod_requests",
        "Node total pod requests are the resources requested by pods bound to nodes, including the DaemonSet pods.", nodeResource);
    podLimits = gauge(registry, "karpenter_nodes_total_pod_limits",
        "Node total pod limits are the resources specified by pod limits, including the DaemonSet pods.", nodeResource);
    daemonRequests = gauge(registry, "karpenter_nodes_total_daemon_requests",
        "Node total daemon requests are the resource requested by DaemonSet pods bound to nodes.", nodeResource);
    daemonLimits = gauge(registry, "karpenter_nodes_total_daemon_limits",
        "Node total daemon limits are the resources specified by DaemonSet pod limits.", nodeResource);
    systemOverhead = gauge(registry, "karpenter_nodes_system_overhead",
        "Node system daemon overhead are the resources reserved for system overhead, the difference between the node's"
            + " capacity and allocatable values are reported by the status.", nodeResource);
    lifetime = gauge(registry, "karpenter_nodes_current_lifetime_seconds", "Node age in seconds", node);
    clusterUtilization = gauge(registry, "karpenter_cluster_utilization_percent",
        "Utilization of allocatable resources by pod requests", Metrics.RESOURCE_TYPE);
    all = registry == null ? List.of()
        : List.of(allocatable, podRequests, podLimits, daemonRequests, daemonLimits, systemOverhead, lifetime, clusterUtilization);
  }

  /**
   * Replaces every series with the state of {@code nodes}, the {@code pods} bound to them and the
   * {@code nodeClaims} that make nodes managed. A pod or node with an invalid quantity is left out
   * (and logged at debug level); the API server does not admit such objects.
   */
  public synchronized void update(Collection<Node> nodes, Collection<Pod> pods, Collection<NodeClaim> nodeClaims) {
    if (all.isEmpty()) {
      return;
    }
    Set<String> providerIds = new HashSet<>();
    for (NodeClaim claim : nodeClaims) {
      if (claim.getStatus() != null && claim.getStatus().getProviderID() != null) {
        providerIds.add(claim.getStatus().getProviderID());
      }
    }
    Map<String, List<Pod>> podsByNode = new HashMap<>();
    for (Pod pod : pods) {
      String nodeName = Pods.nodeName(pod);
      if (nodeName != null && !Pods.terminal(pod)) {
        podsByNode.computeIfAbsent(nodeName, n -> new ArrayList<>()).add(pod);
      }
    }
    Map<String, PodTotals> previousTotals = podTotals;
    podTotals = new HashMap<>();
    Map<Gauge, Map<List<String>, Double>> series = new LinkedHashMap<>();
    all.forEach(g -> series.put(g, new HashMap<>()));
    Resources clusterAllocatable = Resources.EMPTY;
    Resources clusterRequests = Resources.EMPTY;
    Instant now = clock.instant();
    for (Node node : nodes) {
      if (node.getMetadata() == null || node.getMetadata().getName() == null) {
        continue;
      }
      String name = node.getMetadata().getName();
      String origin = "Node " + name;
      Resources nodeAllocatable;
      Resources capacity;
      try {
        nodeAllocatable = node.getStatus() == null ? Resources.EMPTY
            : PodResources.of(node.getStatus().getAllocatable(), origin, "status.allocatable");
        capacity = node.getStatus() == null ? Resources.EMPTY
            : PodResources.of(node.getStatus().getCapacity(), origin, "status.capacity");
      } catch (SnapshotInputException e) {
        LOG.debug("node metrics leave out node {}: {}", name, e.getMessage());
        continue;
      }
      Resources requests = Resources.EMPTY;
      Resources limits = Resources.EMPTY;
      Resources daemonSetRequests = Resources.EMPTY;
      Resources daemonSetLimits = Resources.EMPTY;
      for (Pod pod : podsByNode.getOrDefault(name, List.of())) {
        PodTotals totals = totals(pod, previousTotals);
        if (totals == null) {
          continue;
        }
        requests = requests.plus(totals.requests());
        limits = limits.plus(totals.limits());
        if (Pods.ownedByDaemonSet(pod)) {
          daemonSetRequests = daemonSetRequests.plus(totals.requests());
          daemonSetLimits = daemonSetLimits.plus(totals.limits());
        }
      }
      List<String> labels = nodeLabelValues(node, providerIds);
      put(series.get(systemOverhead), labels, capacity.minus(nodeAllocatable));
      put(series.get(podRequests), labels, requests);
      put(series.get(podLimits), labels, limits);
      put(series.get(daemonRequests), labels, daemonSetRequests);
      put(series.get(daemonLimits), labels, daemonSetLimits);
      put(series.get(allocatable), labels, nodeAllocatable);
      series.get(lifetime).put(List.copyOf(labels), lifetimeSeconds(node, now));
      clusterAllocatable = clusterAllocatable.plus(nodeAllocatable);
      clusterRequests = clusterRequests.plus(requests);
    }
    for (var entry : clusterAllocatable.toMilli().entrySet()) {
      double utilized = clusterRequests.milli(entry.getKey());
      series.get(clusterUtilization).put(List.of(resourceType(entry.getKey())), 100 * utilized / entry.getValue());
    }
    publish(series);
  }

  /**
   * The pod's requests and limits, from the previous run when its resourceVersion has not changed;
   * recorded for the next run. Null (and logged) when a quantity is invalid.
   */
  private PodTotals totals(Pod pod, Map<String, PodTotals> previous) {
    String uid = pod.getMetadata().getUid();
    String version = pod.getMetadata().getResourceVersion();
    PodTotals totals = uid == null ? null : previous.get(uid);
    if (totals == null || version == null || !version.equals(totals.resourceVersion())) {
      try {
        totals = new PodTotals(version, PodResources.requests(pod), PodResources.limits(pod));
      } catch (SnapshotInputException e) {
        LOG.debug("node metrics leave out pod {}: {}", Pods.key(pod), e.getMessage());
        return null;
      }
    }
    if (uid != null) {
      podTotals.put(uid, totals);
    }
    return totals;
  }

  /** Sets every series and removes the ones the previous run set that this one did not. */
  private void publish(Map<Gauge, Map<List<String>, Double>> series) {
    series.forEach((gauge, values) -> {
      values.forEach((labels, value) -> gauge.labels(labels.toArray(String[]::new)).set(value));
      for (List<String> stale : published.getOrDefault(gauge, Set.of())) {
        if (!values.containsKey(stale)) {
          gauge.remove(stale.toArray(String[]::new));
        }
      }
      published.put(gauge, new HashSet<>(values.keySet()));
    });
  }

  /** One series per non-zero resource: CPU in cores, the rest in base units (milli-values / 1000). */
  private static void put(Map<List<String>, Double> series, List<String> nodeLabels, Resources resources) {
    for (var entry : resources.toMilli().entrySet()) {
      List<String> labels = new ArrayList<>(nodeLabels);
      labels.add(resourceType(entry.getKey()));
      series.put(List.copyOf(labels), entry.getValue() / 1000.0);
    }
  }

  private static double lifetimeSeconds(Node node, Instant now) {
    String created = node.getMetadata().getCreationTimestamp();
    if (created == null || created.isEmpty()) {
      return 0;
    }
    try {
      return Duration.between(OffsetDateTime.parse(created).toInstant(), now).toMillis() / 1000.0;
    } catch (java.time.format.DateTimeParseException e) {
      return 0;
    }
  }

  /** Upstream's {@code resourceNameToString}: lower case, {@code -} → {@code _}. */
  static String resourceType(String resourceName) {
    return resourceName.toLowerCase(Locale.ROOT).replace('-', '_');
  }

  private static List<String> nodeLabelValues(Node node, Set<String> providerIds) {
    Map<String, String> nodeLabels = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
    List<String> values = new ArrayList<>();
    WELL_KNOWN_LABELS.keySet().forEach(key -> values.add(nodeLabels.getOrDefault(key, "")));
    values.add(node.getMetadata().getName());
    String phase = node.getStatus() == null ? null : node.getStatus().getPhase();
    values.add(phase == null ? "" : phase);
    String providerId = node.getSpec() == null ? null : node.getSpec().getProviderID();
    values.add(Boolean.toString(providerId != null && providerIds.contains(providerId)));
    return values;
  }

  private static String[] nodeLabelNames(boolean withResourceType) {
    List<String> names = new ArrayList<>(WELL_KNOWN_LABELS.values());
    names.add(NODE_NAME);
    names.add(PHASE);
    names.add(MANAGED);
    if (withResourceType) {
      names.add(Metrics.RESOURCE_TYPE);
    }
    return names.toArray(String[]::new);
  }

  private static Map<String, String> wellKnownLabels() {
    Map<String, String> labels = new LinkedHashMap<>();
    for (String key : new TreeSet<>(Labels.WELL_KNOWN)) {
      String[] parts = key.split("/");
      if (parts.length == 2) {
        labels.put(key, parts[1].toLowerCase(Locale.ROOT).replace('-', '_'));
      }
    }
    return java.util.Collections.unmodifiableMap(labels);
  }

  private static Gauge gauge(CollectorRegistry registry, String name, String help, String... labelNames) {
    Gauge gauge = Gauge.build().name(name).help(help).labelNames(labelNames).create();
    return registry == null ? gauge : gauge.register(registry);
  }
}
