package sh.karpenter.testkit.termination;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.node.termination.EvictionQueue;
import sh.karpenter.controller.node.termination.NodeTermination;
import sh.karpenter.controller.nodeclaim.lifecycle.NodeClaimLifecycle;
import sh.karpenter.controller.objects.Metadata;
import sh.karpenter.controller.runtime.Controller;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.ReconcileObserver;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.runtime.EventHandlers;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;
import sh.karpenter.testkit.controlplane.KwokNodes;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * Node termination driven directly on the control plane: shared informers, the testing cloud
 * provider, the NodeClaim lifecycle (to launch, register and finally finalize a NodeClaim), and
 * {@link NodeTermination} with a running {@link EvictionQueue}, all on one clock the test chooses
 * (a {@code TestingClock} it steps, or the system clock). KWOK turns Nodes Ready, runs the pods bound
 * to them and completes their deletion.
 */
final class TerminationRig implements AutoCloseable {
  final KubernetesClient client;
  final Clock clock;
  final Informers informers;
  final TestingCloudProvider cloudProvider = new TestingCloudProvider(FakeInstanceTypes.instanceTypes(4));
  final TestingEventRecorder events;
  final Metrics metrics = new Metrics(new CollectorRegistry());
  final NodeClaimLifecycle lifecycle;
  final EvictionQueue evictionQueue;
  final NodeTermination termination;

  TerminationRig(KubernetesClient client, Clock clock) {
    this.client = client;
    this.clock = clock;
    this.informers = SyncedInformers.start(new Informers(client));
    this.events = new TestingEventRecorder(clock);
    this.lifecycle = new NodeClaimLifecycle(client, informers, cloudProvider, clock, events, metrics, claimName -> List.of());
    this.evictionQueue = new EvictionQueue(client, informers, clock, events, metrics, ReconcileObserver.NOOP);
    this.termination = new NodeTermination(client, informers, cloudProvider, evictionQueue, clock, events, metrics);
    evictionQueue.controller().start();
  }

  /**
   * Launches NodeClaim {@code nodeClaim} of NodePool {@code default} through the lifecycle and
   * registers a KWOK Node {@code node} for it (8 CPUs, 16Gi), waiting until the Node is Ready and in
   * the cache with its finalizer.
   *
   * @param terminationGracePeriod the NodeClaim's {@code spec.terminationGracePeriod}, or null
   */
  void registeredNode(String nodeClaim, String node, String terminationGracePeriod) {
    registeredNode(nodeClaim, node, terminationGracePeriod, true);
  }

  /**
   * Like {@link #registeredNode(String, String, String)}; a Node KWOK does not manage ({@code
   * kwokManaged} false) has no kubelet standing in for it: it never turns Ready and runs no pods.
   */
  void registeredNode(String nodeClaim, String node, String terminationGracePeriod, boolean kwokManaged) {
    client.resources(NodeClaim.class).resource(client.getKubernetesSerialization().unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata:
          name: %s
          labels: {karpenter.sh/nodepool: default}
        spec:
          nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, name: default}
          requirements:
          - {key: node.kubernetes.io/instance-type, operator: In, values: [fake-it-1]}
          - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
          resources:
            requests: {cpu: '1'}
        %s""".formatted(nodeClaim, terminationGracePeriod == null ? "" : "  terminationGracePeriod: " + terminationGracePeriod + "\n"),
        NodeClaim.class)).create();
    lifecycle.reconcile(nodeClaim);
    String providerId = Metadata.providerId(client.resources(NodeClaim.class).withName(nodeClaim).get());
    Node created = TestObjects.kwokNode(node, "8", "16Gi", providerId, List.of(TestObjects.unregisteredTaint()));
    if (!kwokManaged) {
      created.getMetadata().getAnnotations().remove(KwokNodes.ANNOTATION);
    }
    client.nodes().resource(created).create();
    await().atMost(1, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      lifecycle.reconcile(nodeClaim);
      NodeClaim stored = client.resources(NodeClaim.class).withName(nodeClaim).get();
      return Conditions.isTrue(stored.getStatus().getConditions(), ConditionTypes.REGISTERED);
    });
    await().atMost(1, MINUTES).until(() -> {
      var cached = informers.nodes().getStore().getByKey(node);
      return cached != null && cached.getMetadata().getFinalizers().contains("karpenter.sh/termination")
          && cached.getSpec().getTaints().stream().noneMatch(t -> t.getKey().equals("karpenter.sh/unregistered"))
          && (!kwokManaged || cached.getStatus().getConditions().stream().anyMatch(c -> c.getType().equals("Ready") && c.getStatus().equals("True")));
    });
  }

  /** A pause pod labelled {@code app=<app>}, bound to {@code node} without the scheduler, deleted without grace. */
  Pod boundPod(String name, String app, String node) {
    Pod pod = TestObjects.pausePod(name, app);
    pod.getSpec().setNodeName(node);
    return client.pods().resource(pod).create();
  }

  /** A DaemonSet of pause pods labelled {@code app=<name>} on {@code node} only, with the priority class (or null). */
  DaemonSet daemonSet(String name, String node, String priorityClass) {
    return client.apps().daemonSets().resource(new DaemonSetBuilder()
            .withNewMetadata().withName(name).endMetadata()
            .withNewSpec()
              .withNewSelector().addToMatchLabels("app", name).endSelector()
              .withNewTemplate()
                .withNewMetadata().addToLabels("app", name).endMetadata()
                .withNewSpec()
                  .withNodeSelector(Map.of("kubernetes.io/hostname", node))
                  .withPriorityClassName(priorityClass)
                  .withTerminationGracePeriodSeconds(0L)
                  .addNewContainer().withName("main").withImage(TestObjects.PAUSE_IMAGE).endContainer()
                .endSpec()
              .endTemplate()
            .endSpec()
            .build())
        .create();
  }

  /** Waits until {@code count} pods of the test namespace run, in the cache too. */
  void awaitRunning(int count) {
    await().atMost(2, MINUTES).pollInterval(500, MILLISECONDS).until(() ->
        client.pods().list().getItems().stream().filter(TestObjects::running).count() == count
            && informers.pods().getStore().list().stream()
                .filter(p -> p.getMetadata().getNamespace().equals(client.getNamespace())).filter(TestObjects::running).count() == count);
  }

  /**
   * Reconciles the Node's termination and the NodeClaim's lifecycle, as their controllers would on
   * events and requeues, running {@code betweenPasses} after each pass, until both are gone.
   */
  void terminate(String nodeClaim, String node, Runnable betweenPasses) {
    await().atMost(3, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      termination.reconcile(node);
      lifecycle.reconcile(nodeClaim);
      betweenPasses.run();
      return client.nodes().withName(node).get() == null && client.resources(NodeClaim.class).withName(nodeClaim).get() == null;
    });
  }

  /**
   * Runs a fresh set of the controllers a Karpenter process would (NodeClaim lifecycle, node
   * termination, eviction queue; new instances, so nothing carries over in memory from an earlier
   * set), fed by the informers' events about {@code nodeClaim} and {@code node} and asked once to
   * look at both, as an informer's first list would. Closing them stops the "process".
   */
  AutoCloseable startControllers(String nodeClaim, String node) {
    EvictionQueue queue = new EvictionQueue(client, informers, clock, events, metrics, ReconcileObserver.NOOP);
    Controller<String> terminations = new Controller<>(NodeTermination.NAME,
        new NodeTermination(client, informers, cloudProvider, queue, clock, events, metrics), 4, clock, ReconcileObserver.NOOP);
    Controller<String> lifecycles = new Controller<>(NodeClaimLifecycle.NAME,
        new NodeClaimLifecycle(client, informers, cloudProvider, clock, events, metrics, claimName -> List.of()), 4, clock, ReconcileObserver.NOOP);
    AtomicBoolean running = new AtomicBoolean(true);
    informers.nodes().addEventHandler(EventHandlers.onChange(n -> {
      if (running.get() && n.getMetadata().getName().equals(node)) {
        terminations.enqueue(node);
      }
    }));
    informers.nodeClaims().addEventHandler(EventHandlers.onChange(c -> {
      if (running.get() && c.getMetadata().getName().equals(nodeClaim)) {
        lifecycles.enqueue(nodeClaim);
      }
    }));
    queue.controller().start();
    terminations.start();
    lifecycles.start();
    terminations.enqueue(node);
    lifecycles.enqueue(nodeClaim);
    return () -> {
      running.set(false);
      lifecycles.close();
      terminations.close();
      queue.controller().close();
    };
  }

  @Override
  public void close() {
    evictionQueue.controller().close();
    informers.close();
  }
}
