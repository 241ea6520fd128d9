package sh.karpenter.controller.metrics;

import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import io.prometheus.client.Counter;
import io.prometheus.client.Gauge;
import io.prometheus.client.Histogram;
import io.prometheus.client.exporter.common.TextFormat;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Enumeration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Karpenter's metrics under upstream's {@code karpenter_*} names
 * (docs/behaviour/observability.md#metrics). Callers record through these methods; the exposition
 * lives behind them and {@link #scrape()} renders it in the Prometheus text format 0.0.4.
 *
 * <p><b>Why the Prometheus simpleclient collectors and not the Micrometer API.</b> The metric names
 * and label sets are a contract with upstream's dashboards and alerts, so they must come out
 * byte-for-byte. The simpleclient {@link Counter}, {@link Gauge} and {@link Histogram} (brought in
 * by {@code micrometer-registry-prometheus-simpleclient}) take the exported name, the label names
 * and the buckets verbatim: {@code karpenter_nodeclaims_created_total} stays that name (the
 * renaming in docs/design/dependencies.md#metric-names does not happen), a histogram has exactly
 * the given buckets, and a deleted NodePool's gauge series can be removed by label values. Through
 * Micrometer every timer and distribution summary would also export a {@code *_max} gauge family
 * that upstream does not have, each gauge would need a strongly held state object, and names would
 * pass through a naming convention. The only adjustment needed is in {@link #scrape()}:
 * simpleclient adds OpenMetrics {@code *_created} timestamp samples, which the 0.0.4 text would
 * turn into extra {@code
 * <name>_created} gauge families; they are dropped.
 *
 * <p>Label values are never null ({@code null} becomes {@code ""}). {@link #noop()} holds no
 * collectors at all and records nothing.
 */
public class Metrics {
  private static final Logger LOG = LoggerFactory.getLogger(Metrics.class);

  /** The content type of {@link #scrape()}: {@code text/plain; version=0.0.4; charset=utf-8}. */
  public static final String CONTENT_TYPE = TextFormat.CONTENT_TYPE_004;

  /**
   * Upstream's {@code metrics.DurationBuckets()}: controller-runtime's buckets (0.005 s .. 60 s)
   * plus larger ones for singleton controllers without a timeout.
   */
  static final double[] DURATION_BUCKETS = {
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0,
    1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5, 6, 7, 8, 9, 10, 15, 20, 25, 30, 40, 50, 60, 120,
    150, 300, 450, 600
  };

  /** operatorpkg's status-condition histogram buckets: 0.5 × 2^k for k = 0..14 (0.5 s .. 8192 s). */
  static final double CONDITION_BUCKET_START = 0.5;

  static final int CONDITION_BUCKET_COUNT = 15;

  /** The object kinds whose status-condition families exist from the start, as upstream registers them. */
  static final List<String> CONDITION_KINDS = List.of("nodeclaim", "nodepool", "node");

  static final String NODEPOOL = "nodepool";
  static final String REASON = "reason";
  static final String CAPACITY_TYPE = "capacity_type";
  static final String MIN_VALUES_RELAXED = "min_values_relaxed";
  static final String RESOURCE_TYPE = "resource_type";
  static final String CONTROLLER = "controller";
  static final String CONSOLIDATION_POLICY = "consolidation_policy";
  static final String TERMINATION_MODE = "termination_mode";
  /** The label names of {@link DisruptionLabels}, in upstream's order. */
  static final String[] DISRUPTION_LABELS = {REASON, NODEPOOL, CAPACITY_TYPE, CONSOLIDATION_POLICY, TERMINATION_MODE};

  private final CollectorRegistry registry; // null for noop()
  private final DisruptionMetrics disruption;
  private final Counter nodeClaimsCreated;
  private final Counter nodeClaimsTerminated;
  private final Counter nodeClaimsDisrupted;
  private final Counter nodesCreated;
  private final Counter nodesTerminated;
  private final Histogram schedulingDuration;
  private final Histogram podSchedulingDecision;
  private final Gauge schedulerQueueDepth;
  private final Gauge unschedulablePods;
  private final Gauge ignoredPods;
  private final Gauge nodePoolUsage;
  private final Gauge nodePoolLimit;
  private final Gauge clusterStateSynced;
  private final Gauge clusterStateNodeCount;
  private final Histogram cloudProviderDuration;
  private final Counter cloudProviderErrors;
  private final Map<String, ConditionFamilies> conditions;
  private final ControllerRuntimeMetrics controllerRuntime;
  private final RepairMetrics repair;
  private final CostMetrics cost;
  private final ApiRequestMetrics apiRequests;

  /** The status-condition families of one object kind. */
  private record ConditionFamilies(Counter transitions, Histogram transitionSeconds) {}

  /** Registers every Karpenter metric family in {@code registry}. */
  public Metrics(CollectorRegistry registry) {
    this.registry = Objects.requireNonNull(registry, "registry");
    nodeClaimsCreated =
        counter(
            "karpenter_nodeclaims_created_total",
            "Number of nodeclaims created in total by Karpenter. Labeled by reason the nodeclaim was"
                + " created, the owning nodepool, and if min values was relaxed for this nodeclaim.",
            REASON,
            NODEPOOL,
            MIN_VALUES_RELAXED);
    nodeClaimsTerminated =
        counter(
            "karpenter_nodeclaims_terminated_total",
            "Number of nodeclaims terminated in total by Karpenter. Labeled by the owning nodepool"
                + " and capacity type.",
            NODEPOOL,
            CAPACITY_TYPE);
    nodeClaimsDisrupted =
        counter(
            "karpenter_nodeclaims_disrupted_total",
            "Number of nodeclaims disrupted in total by Karpenter. Labeled by reason the nodeclaim"
                + " was disrupted, the owning nodepool, the capacity type, the consolidation policy, and the"
                + " termination mode.",
            DISRUPTION_LABELS);
    nodesCreated =
        counter(
            "karpenter_nodes_created_total",
            "Number of nodes created in total by Karpenter. Labeled by owning nodepool.",
            NODEPOOL);
    nodesTerminated =
        counter(
            "karpenter_nodes_terminated_total",
            "Number of nodes terminated in total by Karpenter. Labeled by owning nodepool.",
            NODEPOOL);
    schedulingDuration =
        Histogram.build()
            .name("karpenter_scheduler_scheduling_duration_seconds")
            .help("Duration of scheduling simulations used for deprovisioning and provisioning in seconds.")
            .labelNames(CONTROLLER)
            .buckets(DURATION_BUCKETS)
            .register(registry);
    podSchedulingDecision =
        Histogram.build()
            .name("karpenter_pods_scheduling_decision_duration_seconds")
            .help("The time it takes for Karpenter to first try to schedule a pod after it's been seen.")
            .buckets(DURATION_BUCKETS)
            .register(registry);
    schedulerQueueDepth =
        gauge(
            "karpenter_scheduler_queue_depth",
            "The number of pods currently waiting to be scheduled.",
            CONTROLLER);
    unschedulablePods =
        gauge("karpenter_scheduler_unschedulable_pods_count", "The number of unschedulable Pods.", CONTROLLER);
    ignoredPods =
        gauge("karpenter_scheduler_ignored_pods_count", "Number of pods ignored during scheduling by Karpenter");
    nodePoolUsage =
        gauge(
            "karpenter_nodepools_usage",
            "The amount of resources that have been provisioned for a nodepool. Labeled by nodepool"
                + " name and resource type.",
            NODEPOOL,
            RESOURCE_TYPE);
    nodePoolLimit =
        gauge(
            "karpenter_nodepools_limit",
            "Limits specified on the nodepool that restrict the quantity of resources provisioned."
                + " Labeled by nodepool name and resource type.",
            NODEPOOL,
            RESOURCE_TYPE);
    clusterStateSynced =
        gauge(
            "karpenter_cluster_state_synced",
            "Returns 1 if cluster state is synced and 0 otherwise. Synced checks that nodeclaims and"
                + " nodes that are stored in the APIServer have the same representation as Karpenter's"
                + " cluster state");
    clusterStateNodeCount =
        gauge("karpenter_cluster_state_node_count", "Current count of nodes in cluster state");
    cloudProviderDuration =
        Histogram.build()
            .name("karpenter_cloudprovider_duration_seconds")
            .help("Duration of cloud provider method calls. Labeled by the controller, method name and provider.")
            .labelNames(CONTROLLER, "method", "provider")
            .buckets(DURATION_BUCKETS)
            .register(registry);
    cloudProviderErrors =
        counter(
            "karpenter_cloudprovider_errors_total",
            "Total number of errors returned from CloudProvider calls.",
            CONTROLLER,
            "method",
            "provider",
            "error",
            NODEPOOL);
    conditions = new ConcurrentHashMap<>();
    for (String kind : CONDITION_KINDS) {
      conditions.put(kind, registerConditionFamilies(kind));
    }
    controllerRuntime = new ControllerRuntimeMetrics(registry);
    disruption = new DisruptionMetrics(registry);
    repair = new RepairMetrics(registry);
    cost = new CostMetrics(registry);
    apiRequests = new ApiRequestMetrics(registry);
  }

  private Metrics() {
    registry = null;
    nodeClaimsCreated = null;
    nodeClaimsTerminated = null;
    nodeClaimsDisrupted = null;
    nodesCreated = null;
    nodesTerminated = null;
    schedulingDuration = null;
    podSchedulingDecision = null;
    schedulerQueueDepth = null;
    unschedulablePods = null;
    ignoredPods = null;
    nodePoolUsage = null;
    nodePoolLimit = null;
    clusterStateSynced = null;
    clusterStateNodeCount = null;
    cloudProviderDuration = null;
    cloudProviderErrors = null;
    conditions = null;
    controllerRuntime = ControllerRuntimeMetrics.noop();
    disruption = new DisruptionMetrics(null);
    repair = new RepairMetrics(null);
    cost = new CostMetrics(null);
    apiRequests = new ApiRequestMetrics(null);
  }

  /**
   * The registry every family is in, for a cloud provider's own families (scraped with the rest);
   * empty for {@link #noop()}.
   */
  public java.util.Optional<CollectorRegistry> registry() {
    return java.util.Optional.ofNullable(registry);
  }

  /** Upstream's {@code metrics.DurationBuckets()}, for a cloud provider's duration histograms. */
  public static double[] durationBuckets() {
    return DURATION_BUCKETS.clone();
  }

  /** A registry-free instance for tests that do not look at metrics. */
  public static Metrics noop() {
    return new Metrics();
  }

  /**
   * The controller-runtime families ({@code controller_runtime_reconcile_*}, {@code
   * workqueue_depth}) in the same registry, so one {@link #scrape()} serves both.
   */
  public ControllerRuntimeMetrics controllerRuntime() {
    return controllerRuntime;
  }

  /** Node repair's family ({@code karpenter_nodeclaims_unhealthy_disrupted_total}). */
  public RepairMetrics repair() {
    return repair;
  }

  /** The project-only NodePool cost-gap families ({@code karpenter_nodepools_cost_*}). */
  public CostMetrics cost() {
    return cost;
  }

  /**
   * The project-only API load family ({@code karpenter_kube_client_requests_total}); give it to
   * {@code ControllerClient.builder} so that the controller's client feeds it.
   */
  public ApiRequestMetrics apiRequests() {
    return apiRequests;
  }

  /** The disruption and termination families (decisions, budgets, evictions, drains). */
  public DisruptionMetrics disruption() {
    return disruption;
  }

  /** {@code karpenter_nodeclaims_created_total{nodepool, reason, min_values_relaxed}}; reason is e.g. {@code provisioning}. */
  public void nodeClaimCreated(String nodePool, String reason, boolean minValuesRelaxed) {
    if (registry == null) return;
    nodeClaimsCreated.labels(v(reason), v(nodePool), Boolean.toString(minValuesRelaxed)).inc();
  }

  /** {@code karpenter_nodeclaims_terminated_total{nodepool, capacity_type}}. */
  public void nodeClaimTerminated(String nodePool, String capacityType) {
    if (registry == null) return;
    nodeClaimsTerminated.labels(v(nodePool), v(capacityType)).inc();
  }

  /**
   * {@code karpenter_nodeclaims_disrupted_total{reason, nodepool, capacity_type, consolidation_policy,
   * termination_mode}}; reason e.g. {@code insufficient_capacity}, {@code registration_timeout}.
   */
  public void nodeClaimDisrupted(DisruptionLabels labels) {
    if (registry == null) return;
    nodeClaimsDisrupted.labels(labels.values()).inc();
  }

  /** {@code karpenter_nodes_created_total{nodepool}}. */
  public void nodeCreated(String nodePool) {
    if (registry == null) return;
    nodesCreated.labels(v(nodePool)).inc();
  }

  /** {@code karpenter_nodes_terminated_total{nodepool}}. */
  public void nodeTerminated(String nodePool) {
    if (registry == null) return;
    nodesTerminated.labels(v(nodePool)).inc();
  }

  /**
   * {@code operator_<kind>_status_condition_transitions_total{type, status, reason}} and
   * {@code operator_<kind>_status_condition_transition_seconds} (time spent in the previous status).
   *
   * @param kind {@code nodeclaim}, {@code nodepool} or {@code node}
   * @param sincePrevious time in the previous status, or null when unknown
   */
  public void conditionTransition(String kind, String type, String status, String reason, Duration sincePrevious) {
    if (registry == null) return;
    ConditionFamilies families = conditionFamilies(kind);
    if (families == null) return;
    families.transitions().labels(v(type), v(status), v(reason)).inc();
    if (sincePrevious != null) {
      families.transitionSeconds().labels(v(type), v(status), v(reason)).observe(seconds(sincePrevious));
    }
  }

  /** {@code karpenter_scheduler_scheduling_duration_seconds{controller}}: one scheduling simulation. */
  public void schedulingDuration(String controller, Duration duration) {
    if (registry == null || duration == null) return;
    schedulingDuration.labels(v(controller)).observe(seconds(duration));
  }

  /** {@code karpenter_pods_scheduling_decision_duration_seconds}: from a pod seen pending to its decision. */
  public void podSchedulingDecision(Duration duration) {
    if (registry == null || duration == null) return;
    podSchedulingDecision.observe(seconds(duration));
  }

  /** {@code karpenter_scheduler_queue_depth{controller}}: pods in the current pass. */
  public void schedulerQueueDepth(String controller, int pods) {
    if (registry == null) return;
    schedulerQueueDepth.labels(v(controller)).set(pods);
  }

  /** {@code karpenter_scheduler_unschedulable_pods_count{controller}}. */
  public void unschedulablePods(String controller, int pods) {
    if (registry == null) return;
    unschedulablePods.labels(v(controller)).set(pods);
  }

  /** {@code karpenter_scheduler_ignored_pods_count}: pods Karpenter refuses to consider. */
  public void ignoredPods(int pods) {
    if (registry == null) return;
    ignoredPods.set(pods);
  }

  /** {@code karpenter_nodepools_usage{nodepool, resource_type}}. */
  public void nodePoolUsage(String nodePool, String resourceType, double value) {
    if (registry == null) return;
    nodePoolUsage.labels(v(nodePool), v(resourceType)).set(value);
  }

  /** {@code karpenter_nodepools_limit{nodepool, resource_type}}. */
  public void nodePoolLimit(String nodePool, String resourceType, double value) {
    if (registry == null) return;
    nodePoolLimit.labels(v(nodePool), v(resourceType)).set(value);
  }

  /** Drops every gauge series of a deleted NodePool. */
  public void nodePoolDeleted(String nodePool) {
    if (registry == null) return;
    removeSeries(nodePoolUsage, NODEPOOL, v(nodePool));
    removeSeries(nodePoolLimit, NODEPOOL, v(nodePool));
    cost.nodePoolGone(nodePool);
  }

  /** {@code karpenter_cluster_state_synced} (1 or 0) and {@code karpenter_cluster_state_node_count}. */
  public void clusterState(boolean synced, int nodeCount) {
    if (registry == null) return;
    clusterStateSynced.set(synced ? 1 : 0);
    clusterStateNodeCount.set(nodeCount);
  }

  /**
   * {@code karpenter_cloudprovider_duration_seconds{controller, method, provider}}: one call of a
   * CloudProvider method (upstream method names: {@code Create}, {@code Delete}, {@code Get}, ...).
   */
  public void cloudProviderCall(String controller, String method, String provider, Duration took) {
    if (registry == null || took == null) return;
    cloudProviderDuration.labels(v(controller), v(method), v(provider)).observe(seconds(took));
  }

  /**
   * {@code karpenter_cloudprovider_errors_total{controller, method, provider, error, nodepool}}; error
   * is e.g. {@code InsufficientCapacityError} or {@code unknown}; nodepool is that of the NodeClaim or
   * NodePool the call was about, or "".
   */
  public void cloudProviderError(String controller, String method, String provider, String error, String nodePool) {
    if (registry == null) return;
    cloudProviderErrors.labels(v(controller), v(method), v(provider), v(error), v(nodePool)).inc();
  }

  /**
   * Every registered family in the Prometheus text exposition format 0.0.4 ({@link
   * #CONTENT_TYPE}); "" for {@link #noop()}.
   */
  public String scrape() {
    if (registry == null) return "";
    StringWriter out = new StringWriter();
    try {
      TextFormat.write004(out, withoutCreatedSamples(registry.metricFamilySamples()));
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a StringWriter does not throw
    }
    return out.toString();
  }

  private ConditionFamilies conditionFamilies(String kind) {
    String name = kind == null ? "" : kind.strip().toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    if (!name.matches(".*[a-z0-9].*")) {
      LOG.warn("ignoring a status condition transition of object kind '{}'", kind);
      return null;
    }
    return conditions.computeIfAbsent(name, this::registerConditionFamilies);
  }

  private ConditionFamilies registerConditionFamilies(String kind) {
    String prefix = "operator_" + kind + "_status_condition_";
    Counter transitions =
        counter(
            prefix + "transitions_total",
            "The count of transitions of a " + kind + ", type and status. Labeled by the type, reason, and status.",
            "type",
            "status",
            "reason");
    Histogram transitionSeconds =
        Histogram.build()
            .name(prefix + "transition_seconds")
            .help("The amount of time a condition was in a given state before transitioning. e.g. Alarm := P99(Updated=False) > 5 minutes")
            .labelNames("type", "status", "reason")
            .exponentialBuckets(CONDITION_BUCKET_START, 2, CONDITION_BUCKET_COUNT)
            .register(registry);
    return new ConditionFamilies(transitions, transitionSeconds);
  }

  private Counter counter(String name, String help, String... labelNames) {
    return Counter.build().name(name).help(help).labelNames(labelNames).register(registry);
  }

  private Gauge gauge(String name, String help, String... labelNames) {
    return Gauge.build().name(name).help(help).labelNames(labelNames).register(registry);
  }

  /** Removes every child of {@code gauge} whose {@code label} has {@code value}. */
  private static void removeSeries(Gauge gauge, String label, String value) {
    for (Collector.MetricFamilySamples family : gauge.collect()) {
      for (Collector.MetricFamilySamples.Sample sample : family.samples) {
        int index = sample.labelNames.indexOf(label);
        if (index >= 0 && value.equals(sample.labelValues.get(index))) {
          gauge.remove(sample.labelValues.toArray(String[]::new));
        }
      }
    }
  }

  /**
   * The families without the OpenMetrics {@code <name>_created} samples simpleclient attaches to
   * counters and histograms; the 0.0.4 writer would export them as extra gauge families.
   */
  static Enumeration<Collector.MetricFamilySamples> withoutCreatedSamples(
      Enumeration<Collector.MetricFamilySamples> families) {
    List<Collector.MetricFamilySamples> result = new ArrayList<>();
    while (families.hasMoreElements()) {
      Collector.MetricFamilySamples family = families.nextElement();
      if (family.type == Collector.Type.COUNTER
          || family.type == Collector.Type.HISTOGRAM
          || family.type == Collector.Type.SUMMARY) {
        String created = family.name + "_created";
        List<Collector.MetricFamilySamples.Sample> samples = new ArrayList<>(family.samples.size());
        for (Collector.MetricFamilySamples.Sample sample : family.samples) {
          if (!sample.name.equals(created)) samples.add(sample);
        }
        family = new Collector.MetricFamilySamples(family.name, family.unit, family.type, family.help, samples);
      }
      result.add(family);
    }
    return Collections.enumeration(result);
  }

  static String v(String labelValue) {
    return labelValue == null ? "" : labelValue;
  }

  static double seconds(Duration duration) {
    return duration.isNegative() ? 0 : duration.getSeconds() + duration.getNano() / 1e9;
  }
}
