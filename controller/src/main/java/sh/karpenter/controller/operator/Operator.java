package sh.karpenter.controller.operator;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.cloudprovider.MeteredCloudProvider;
import sh.karpenter.controller.disruption.DisruptionController;
import sh.karpenter.controller.disruption.NodePoolCosts;
import sh.karpenter.controller.disruption.KubernetesDisruptionActions;
import sh.karpenter.controller.disruption.OrchestrationQueue;
import sh.karpenter.controller.health.HealthServer;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.metrics.NodeMetrics;
import sh.karpenter.controller.node.termination.EvictionQueue;
import sh.karpenter.controller.node.termination.NodeTermination;
import sh.karpenter.controller.nodeclaim.disruption.NodeClaimDisruption;
import sh.karpenter.controller.nodeclaim.expiration.Expiration;
import sh.karpenter.controller.nodeclaim.garbagecollection.GarbageCollection;
import sh.karpenter.controller.nodeclaim.lifecycle.NodeClaimLifecycle;
import sh.karpenter.controller.nodeclaim.podevents.PodEvents;
import sh.karpenter.controller.nodepool.NodePoolCounter;
import sh.karpenter.controller.nodepool.NodePoolReadiness;
import sh.karpenter.controller.nodepool.NodePoolRegistrationHealth;
import sh.karpenter.controller.nodepool.NodePoolValidation;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.provisioning.Batcher;
import sh.karpenter.controller.provisioning.NodeTrigger;
import sh.karpenter.controller.provisioning.PodTrigger;
import sh.karpenter.controller.provisioning.Prebinder;
import sh.karpenter.controller.provisioning.Provisioner;
import sh.karpenter.controller.runtime.Controller;
import sh.karpenter.controller.runtime.EventHandlers;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.KubernetesEventRecorder;
import sh.karpenter.controller.runtime.LeaderElection;
import sh.karpenter.controller.runtime.NodeClaims;
import sh.karpenter.controller.runtime.ReconcileObserver;
import sh.karpenter.controller.runtime.Reconciler;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.controller.runtime.SingletonLoop;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.controller.state.nodepoolhealth.NodePoolHealth;
import sh.karpenter.core.cloudprovider.CloudProvider;
import sh.karpenter.core.wellknown.Labels;

/**
 * Wires Karpenter together (upstream pkg/controllers/controllers.go): the shared informers and
 * cluster state, the provisioner and its triggers, the NodeClaim lifecycle, the NodePool status
 * controllers and the Node finalizer, behind leader election, with {@code /metrics}, {@code
 * /healthz} and {@code /readyz}.
 *
 * <p>Every replica runs the informers, so caches are warm when leadership arrives; the loops and
 * reconcilers run only on the leader. A replica that loses leadership stops its loops and {@link
 * #awaitTermination()} returns, so the process can exit and restart clean, as upstream does.
 *
 * <p>A cloud provider adds its own informers, controllers and loops through {@link OperatorExtension}s
 * given to the constructor; they start and stop with core's.
 */
public final class Operator implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(Operator.class);
  /** How often {@code karpenter_cluster_state_synced} and {@code _node_count} are refreshed. */
  private static final Duration STATE_METRICS_PERIOD = Duration.ofSeconds(5);

  private final KubernetesClient client;
  private final Options options;
  private final Metrics metrics;
  private final Informers informers;
  private final ClusterState state;
  private final EventRecorder events;
  private final Provisioner provisioner;
  private final NodePoolCosts nodePoolCosts;
  private final List<Controller<String>> controllers = new ArrayList<>();
  private final List<SingletonLoop> loops = new ArrayList<>();
  private final LeaderElection leaderElection;
  private final HealthServer healthServer;
  private final CountDownLatch terminated = new CountDownLatch(1);
  private volatile boolean leadershipLost;
  private volatile Runnable onLeadershipLost = () -> { };
  private volatile boolean closed;

  /** An operator with its own metrics registry (the default Prometheus registry). */
  public Operator(KubernetesClient client, CloudProvider cloudProvider, Options options, Clock clock) {
    this(client, cloudProvider, options, clock, new Metrics(io.prometheus.client.CollectorRegistry.defaultRegistry),
        new KubernetesEventRecorder(client, clock));
  }

  public Operator(
      KubernetesClient client, CloudProvider cloudProvider, Options options, Clock clock, Metrics metrics, EventRecorder events) {
    this(client, cloudProvider, options, clock, metrics, events, List.of());
  }

  /**
   * An operator with a cloud provider's own controllers: each extension registers its informers,
   * controllers and loops here, after core's (KWOK has none).
   */
  public Operator(KubernetesClient client, CloudProvider cloudProvider, Options options, Clock clock, Metrics metrics,
      EventRecorder events, List<OperatorExtension> extensions) {
    this.client = client;
    this.options = options;
    this.metrics = metrics;
    this.events = events;
    this.informers = new Informers(client);
    int cpus = Math.max(1, (options.cpuRequests() + 999) / 1000);
    var observer = metrics.controllerRuntime();
    MeteredCloudProvider metered = new MeteredCloudProvider(cloudProvider, metrics, clock,
        providerId -> NodeClaims.forProviderId(informers, providerId).stream().findFirst().map(NodeClaims::nodePool).orElse(""));

    this.state = new ClusterState(informers, clock, ClusterState.instanceTypesOf(metered.forController(Provisioner.NAME)), options);
    Batcher batcher = new Batcher(clock, options);
    PodTrigger podTrigger = new PodTrigger(batcher, state);
    NodeTrigger nodeTrigger = new NodeTrigger(batcher);
    podTrigger.register(informers);
    nodeTrigger.register(informers);
    this.provisioner = new Provisioner(client, state, batcher, events, metrics, clock, options);
    loops.add(new SingletonLoop(Provisioner.NAME, provisioner::reconcile, clock, observer));
    loops.add(new SingletonLoop("provisioner.trigger.pod", podTrigger::resync, clock, observer));
    loops.add(new SingletonLoop("provisioner.trigger.node", nodeTrigger::resync, clock, observer));
    KubernetesDisruptionActions disruptionActions = new KubernetesDisruptionActions(client, informers, metrics, clock);
    OrchestrationQueue disruptionQueue = new OrchestrationQueue(disruptionActions, state, events, metrics, clock);
    this.nodePoolCosts = NodePoolCosts.background(metrics, clock);
    loops.add(new SingletonLoop(DisruptionController.NAME,
        new DisruptionController(state, disruptionQueue, disruptionActions, events, metrics, clock, options, metered.repairPolicies(),
            nodePoolCosts)::reconcile, clock, observer));
    loops.add(new SingletonLoop(OrchestrationQueue.NAME, disruptionQueue::reconcile, clock, observer));
    NodeMetrics nodeMetrics = new NodeMetrics(metrics, clock);
    loops.add(new SingletonLoop(NodeMetrics.NAME, () -> {
      nodeMetrics.update(informers.nodes().getStore().list(), informers.pods().getStore().list(),
          informers.nodeClaims().getStore().list());
      return Result.requeueAfter(NodeMetrics.PERIOD);
    }, clock, observer));
    loops.add(new SingletonLoop("state.metrics", () -> {
      metrics.clusterState(state.synced(), informers.nodes().getStore().list().size());
      return Result.requeueAfter(STATE_METRICS_PERIOD);
    }, clock, observer));

    // The lifecycle records launch outcomes in it; as a controller it resets them when a pool or its NodeClass changes.
    NodePoolRegistrationHealth nodePoolRegistrationHealth = new NodePoolRegistrationHealth(
        client, informers, metered.forController(NodePoolRegistrationHealth.NAME), clock, metrics, new NodePoolHealth());
    Controller<String> lifecycle = controller(NodeClaimLifecycle.NAME,
        new NodeClaimLifecycle(client, informers, metered.forController(NodeClaimLifecycle.NAME), clock, events, metrics, state::podsNominatedTo,
            nodePoolRegistrationHealth),
        Controller.linearScaleReconciles(cpus, 100, 5000), clock, observer);
    EvictionQueue evictionQueue = new EvictionQueue(client, informers, clock, events, metrics, observer);
    controllers.add(evictionQueue.controller());
    Controller<String> termination = controller(NodeTermination.NAME,
        new NodeTermination(client, informers, metered.forController(NodeTermination.NAME), evictionQueue, clock, events, metrics),
        Controller.linearScaleReconciles(cpus, 100, 1000), clock, observer);
    informers.pods().addEventHandler(EventHandlers.onChange((io.fabric8.kubernetes.api.model.Pod pod) ->
        NodeTermination.terminatingNodeOf(informers, pod).ifPresent(termination::enqueue)));
    Controller<String> counter = controller(NodePoolCounter.NAME, new NodePoolCounter(client, informers, clock, metrics), 10, clock, observer);
    Controller<String> validation =
        controller(NodePoolValidation.NAME, new NodePoolValidation(client, informers, clock, events, metrics), 10, clock, observer);
    Controller<String> readiness = controller(NodePoolReadiness.NAME, new NodePoolReadiness(client, informers, clock, metrics), 10, clock, observer);
    Controller<String> registrationHealth =
        controller(NodePoolRegistrationHealth.NAME, nodePoolRegistrationHealth, 10, clock, observer);
    Controller<String> nodeClaimDisruption = controller(NodeClaimDisruption.NAME,
        new NodeClaimDisruption(client, informers, metered.forController(NodeClaimDisruption.NAME), clock, metrics),
        Controller.linearScaleReconciles(cpus, 10, 1000), clock, observer);
    Controller<String> expiration = controller(Expiration.NAME,
        new Expiration(client, informers, metered.forController(Expiration.NAME), clock, events, metrics),
        Controller.linearScaleReconciles(cpus, 10, 1000), clock, observer);
    PodEvents podEvents = new PodEvents(client, informers, metered.forController(PodEvents.NAME), clock);
    Controller<String> podEventsController =
        controller(PodEvents.NAME, podEvents, Controller.linearScaleReconciles(cpus, 10, 1000), clock, observer);
    informers.pods().addEventHandler(podEvents.handler(podEventsController::enqueue));
    GarbageCollection garbageCollection =
        new GarbageCollection(client, informers, metered.forController(GarbageCollection.NAME), clock, metrics,
            options.garbageCollectionPeriod());
    loops.add(new SingletonLoop(GarbageCollection.NAME, garbageCollection::reconcile, clock, observer));
    informers.nodePools().addEventHandler(NodeClaimDisruption.nodePoolHandler(informers, nodeClaimDisruption::enqueue));

    // One handler per kind: a Node's NodeClaims are looked up once for every controller keyed by NodeClaim.
    List<Controller<String>> byNodeClaim = new ArrayList<>(List.of(lifecycle, nodeClaimDisruption));
    if (options.prebind()) {
      byNodeClaim.add(controller(Prebinder.NAME, new Prebinder(client, informers, state, clock),
          Controller.linearScaleReconciles(cpus, 10, 100), clock, observer));
    }
    informers.nodeClaims().addEventHandler(EventHandlers.onChange((NodeClaim claim) -> {
      String name = claim.getMetadata().getName();
      byNodeClaim.forEach(c -> c.enqueue(name));
      expiration.enqueue(name);
      enqueueNodePool(counter, claim);
    }));
    informers.nodes().addEventHandler(EventHandlers.onChange((Node node) -> {
      for (NodeClaim claim : NodeClaims.forProviderId(informers, providerId(node))) {
        byNodeClaim.forEach(c -> c.enqueue(claim.getMetadata().getName()));
      }
      if (node.getMetadata().getDeletionTimestamp() != null) {
        termination.enqueue(node.getMetadata().getName());
      }
      enqueueNodePool(counter, node);
    }));
    informers.nodePools().addEventHandler(EventHandlers.onChange((NodePool pool) -> {
      String name = pool.getMetadata().getName();
      counter.enqueue(name);
      validation.enqueue(name);
      readiness.enqueue(name);
      registrationHealth.enqueue(name);
    }));

    registerExtensions(extensions, clock, observer, (group, kind, name) -> {
      for (NodeClaim claim : informers.nodeClaims().getStore().list()) {
        NodeClassReference ref = claim.getSpec() == null ? null : claim.getSpec().getNodeClassRef();
        if (ref != null && ref.refersTo(group, kind, name)) {
          nodeClaimDisruption.enqueue(claim.getMetadata().getName());
        }
      }
      for (NodePool pool : informers.nodePools().getStore().list()) {
        NodeClassReference ref = NodePoolReadiness.nodeClassRef(pool);
        if (ref != null && ref.refersTo(group, kind, name)) {
          readiness.enqueue(pool.getMetadata().getName());
          registrationHealth.enqueue(pool.getMetadata().getName());
        }
      }
    });

    this.leaderElection = options.leaderElection()
        ? new LeaderElection(client, LeaderElection.Config.defaults(options.leaderElectionNamespace()).withName(options.leaderElectionName()))
        : LeaderElection.disabled();
    leaderElection.onStartedLeading(this::startLoops).onStoppedLeading(this::leadershipLost);
    this.healthServer = options.metricsPort() == HealthServer.DISABLED && options.healthProbePort() == HealthServer.DISABLED
        ? null
        : new HealthServer(options.metricsPort(), options.healthProbePort(), metrics, this::ready);
  }

  private Controller<String> controller(String name, Reconciler<String> reconciler, int workers, Clock clock, ReconcileObserver observer) {
    Controller<String> controller = new Controller<>(name, reconciler, workers, clock, observer);
    controllers.add(controller);
    return controller;
  }

  /** What the Operator does when an extension reports a NodeClass change. */
  @FunctionalInterface
  private interface NodeClassChanges {
    void changed(String group, String kind, String name);
  }

  private void registerExtensions(List<OperatorExtension> extensions, Clock clock, ReconcileObserver observer, NodeClassChanges nodeClassChanges) {
    OperatorContext context = new OperatorContext() {
      @Override public KubernetesClient client() { return client; }
      @Override public Informers informers() { return informers; }
      @Override public Clock clock() { return clock; }
      @Override public EventRecorder events() { return events; }
      @Override public Metrics metrics() { return metrics; }
      @Override public Options options() { return options; }

      @Override
      public <T extends HasMetadata> SharedIndexInformer<T> informer(SharedIndexInformer<T> informer) {
        return informers.register(informer);
      }

      @Override
      public Controller<String> controller(String name, Reconciler<String> reconciler, int workers) {
        return Operator.this.controller(name, reconciler, workers, clock, observer);
      }

      @Override
      public void nodeClassChanged(String group, String kind, String name) {
        nodeClassChanges.changed(group, kind, name);
      }

      @Override
      public SingletonLoop loop(String name, Callable<Result> body) {
        SingletonLoop loop = new SingletonLoop(name, body, clock, observer);
        loops.add(loop);
        return loop;
      }
    };
    extensions.forEach(extension -> extension.register(context));
  }

  private static String providerId(Node node) {
    return node.getSpec() == null ? null : node.getSpec().getProviderID();
  }

  private void enqueueNodePool(Controller<String> counter, HasMetadata object) {
    var labels = object.getMetadata().getLabels();
    String pool = labels == null ? null : labels.get(Labels.NODE_POOL);
    if (pool != null) {
      counter.enqueue(pool);
    }
  }

  /** Starts informers, the health server and leader election; loops start once this replica leads. */
  public void start() {
    informers.start();
    if (healthServer != null) {
      healthServer.start();
    }
    leaderElection.start();
    LOG.info("started: leader election {}, identity {}", options.leaderElection() ? "on" : "off", leaderElection.identity());
  }

  private synchronized void startLoops() {
    if (closed) {
      return;
    }
    LOG.info("became leader; starting {} controllers and {} loops", controllers.size(), loops.size());
    controllers.forEach(Controller::start);
    loops.forEach(SingletonLoop::start);
  }

  private void leadershipLost() {
    LOG.error("lost leadership; stopping");
    leadershipLost = true;
    onLeadershipLost.run();
    close();
  }

  /**
   * Runs {@code action} as soon as leadership is lost, before {@link #close()} waits for in-flight
   * work. {@code karpenter controller} ends its process there, as upstream's does: reconciles blocked
   * on a partitioned API server would otherwise resume once it heals and act beside the new leader
   * (RELIABILITY.md, "A deposed leader keeps acting").
   */
  public void onLeadershipLost(Runnable action) {
    onLeadershipLost = action;
  }

  /** Ready once the informer caches are synced. */
  public boolean ready() {
    return informers.hasSynced();
  }

  public boolean isLeader() {
    return leaderElection.isLeader();
  }

  /** True when the operator stopped because another replica took over. */
  public boolean leadershipWasLost() {
    return leadershipLost;
  }

  public ClusterState state() {
    return state;
  }

  public Informers informers() {
    return informers;
  }

  public Provisioner provisioner() {
    return provisioner;
  }

  public Metrics metrics() {
    return metrics;
  }

  /** The bound metrics port (useful when the options asked for 0), or -1 when disabled. */
  public int metricsPort() {
    return healthServer == null ? -1 : healthServer.metricsPort();
  }

  public int healthProbePort() {
    return healthServer == null ? -1 : healthServer.healthProbePort();
  }

  /** Blocks until {@link #close()} ran or leadership was lost. */
  public void awaitTermination() throws InterruptedException {
    terminated.await();
  }

  public boolean awaitTermination(Duration timeout) throws InterruptedException {
    return terminated.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Stops loops and controllers (waiting for in-flight work), then leader election, informers and the servers. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    loops.forEach(SingletonLoop::close);
    nodePoolCosts.close();
    controllers.forEach(Controller::close);
    leaderElection.close();
    informers.close();
    if (healthServer != null) {
      healthServer.close();
    }
    if (events instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        LOG.warn("closing the event recorder: {}", e.toString());
      }
    }
    terminated.countDown();
    LOG.info("stopped");
  }
}
