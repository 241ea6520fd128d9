package sh.karpenter.benchmarks;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.Collector;
import io.prometheus.client.CollectorRegistry;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.ControllerClient;
import sh.karpenter.controller.runtime.KubernetesEventRecorder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * Churn on the real control plane (etcd, kube-apiserver, kube-controller-manager, kube-scheduler,
 * KWOK), with the operator in this JVM on the KWOK provider: Deployments of pause pods scaled up and
 * down at random for a while, with consolidation on ({@code WhenEmptyOrUnderutilized}, {@code
 * consolidateAfter: 0s}, a budget of 10% of the nodes). Every minute it prints the voluntary
 * disruption decisions of that minute, the controller's requests to kube-apiserver per second by verb
 * (its {@code karpenter_kube_client_requests_total}), the NodeClaims, Nodes and pending pods, and the
 * heap in use after a GC. Every 2 s it checks the NodePool's budget from the informer caches (the
 * Nodes of the pool being disrupted or deleted never more than 10% of its Nodes, rounded up, as
 * upstream rounds). At the end the scaling stops and it waits for the cluster to settle and checks:
 * every Deployment's pods Running, every NodeClaim with a Node and every Node of the pool with a
 * NodeClaim, nothing being deleted.
 *
 * <p>Usage: {@code ControllerChurn [minutes] [deployments] [max-replicas]} (default 10, 20, 40).
 * Uses the control plane of {@code $KARPENTER_CP_DIR} when one runs there, else starts its own.
 */
public final class ControllerChurn {
  private static final String POOL = "churn";
  private static final double BUDGET = 0.10;

  private ControllerChurn() {}

  public static void main(String[] args) throws Exception {
    int minutes = args.length > 0 ? Integer.parseInt(args[0]) : 10;
    int deployments = args.length > 1 ? Integer.parseInt(args[1]) : 20;
    int maxReplicas = args.length > 2 ? Integer.parseInt(args[2]) : 40;
    KubernetesClient client = ControlPlane.shared().client();
    String namespace = "churn-" + Long.toHexString(System.nanoTime());
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
    ControllerBurst.createNodePool(client, POOL, "{consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s, budgets: [{nodes: \"10%\"}]}",
        "{key: karpenter.k8s.aws/instance-size, operator: In, values: [large, xlarge, 2xlarge, 4xlarge]}");

    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    Options options = Options.defaults().withPorts(-1, -1).withLeaderElection(false, "unused", namespace);
    CollectorRegistry registry = new CollectorRegistry();
    Metrics metrics = new Metrics(registry);
    Random random = new Random(42);
    String[] cpu = {"100m", "250m", "500m", "1"};
    String[] memory = {"128Mi", "512Mi", "1Gi", "2Gi"};
    int[] replicas = new int[deployments];
    try (KubernetesClient controllerClient = ControllerClient.builder(client.getConfiguration(), 200, 300, metrics.apiRequests()).build();
        KwokCloudProvider provider = new KwokCloudProvider(controllerClient, catalog, Clock.systemUTC());
        Operator operator = new Operator(controllerClient, provider, options, Clock.systemUTC(), metrics,
            new KubernetesEventRecorder(controllerClient, Clock.systemUTC()))) {
      operator.start();
      while (!operator.ready()) {
        Thread.sleep(50);
      }
      for (int d = 0; d < deployments; d++) {
        replicas[d] = random.nextInt(maxReplicas + 1);
        client.apps().deployments().inNamespace(namespace)
            .resource(deployment("app-" + d, replicas[d], cpu[d % cpu.length], memory[(d / cpu.length) % memory.length])).create();
      }
      System.out.printf("churn: %d minutes, %d Deployments of 0..%d replicas, one rescaled every second%n", minutes, deployments, maxReplicas);
      System.out.println("minute  load  decisions  NodeClaims  Nodes  pending  heap-after-GC  API requests/s (by verb)");
      ApiLoad startLoad = ApiLoad.read(registry);
      long start = System.nanoTime();
      long end = start + Duration.ofMinutes(minutes).toNanos();
      long nextMinute = start + Duration.ofMinutes(1).toNanos();
      long nextCheck = start;
      ApiLoad lastLoad = ApiLoad.read(registry);
      double lastDecisions = sum(registry, "karpenter_voluntary_disruption_decisions_total");
      int minute = 0;
      int budgetChecks = 0;
      int budgetViolations = 0;
      int maxDisrupting = 0;
      long maxHeap = 0;
      while (System.nanoTime() < end) {
        int d = random.nextInt(deployments);
        replicas[d] = random.nextInt(maxReplicas + 1);
        int target = replicas[d];
        client.apps().deployments().inNamespace(namespace).withName("app-" + d).scale(target);
        long now = System.nanoTime();
        if (now >= nextCheck) {
          nextCheck = now + Duration.ofSeconds(2).toNanos();
          List<Node> nodes = poolNodes(operator);
          int disrupting = (int) nodes.stream().filter(ControllerChurn::disruptingOrDeleting).count();
          maxDisrupting = Math.max(maxDisrupting, disrupting);
          budgetChecks++;
          if (disrupting > Math.max(1, (int) Math.ceil(BUDGET * nodes.size()))) {
            budgetViolations++;
            System.out.printf("budget exceeded: %d of %d Nodes disrupting or deleting%n", disrupting, nodes.size());
          }
        }
        if (now >= nextMinute) {
          nextMinute += Duration.ofMinutes(1).toNanos();
          minute++;
          ApiLoad load = ApiLoad.read(registry);
          double decisions = sum(registry, "karpenter_voluntary_disruption_decisions_total");
          System.gc();
          long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
          maxHeap = Math.max(maxHeap, heap);
          System.out.printf("%6d  %4s  %9.0f  %10d  %5d  %7d  %9d MiB  %s%n", minute, ControllerBurst.loadAverage(), decisions - lastDecisions,
              operator.informers().nodeClaims().getStore().list().size(), poolNodes(operator).size(), pending(operator, namespace),
              heap >> 20, load.ratesSince(lastLoad, 60));
          lastLoad = load;
          lastDecisions = decisions;
        }
        Thread.sleep(1000);
      }

      System.out.printf("budget: %d checks, %d over 10%% of the pool's Nodes, at most %d disrupting or deleting at once%n",
          budgetChecks, budgetViolations, maxDisrupting);
      long settleStart = System.nanoTime();
      int expected = java.util.Arrays.stream(replicas).sum();
      String state = "";
      boolean settled = false;
      while (Duration.ofNanos(System.nanoTime() - settleStart).toMinutes() < 10) {
        List<Pod> pods = operator.informers().pods().getStore().list().stream()
            .filter(p -> namespace.equals(p.getMetadata().getNamespace()) && p.getMetadata().getDeletionTimestamp() == null).toList();
        long running = pods.stream().filter(TestObjects::running).count();
        List<NodeClaim> claims = operator.informers().nodeClaims().getStore().list();
        List<Node> nodes = poolNodes(operator);
        Set<String> nodeProviderIds = new HashSet<>();
        nodes.forEach(n -> nodeProviderIds.add(n.getSpec().getProviderID()));
        Set<String> claimProviderIds = new HashSet<>();
        claims.forEach(c -> claimProviderIds.add(c.getStatus() == null ? null : c.getStatus().getProviderID()));
        long claimsWithoutNode = claims.stream()
            .filter(c -> c.getStatus() == null || !nodeProviderIds.contains(c.getStatus().getProviderID())).count();
        long nodesWithoutClaim = nodes.stream().filter(n -> !claimProviderIds.contains(n.getSpec().getProviderID())).count();
        long deleting = claims.stream().filter(c -> c.getMetadata().getDeletionTimestamp() != null).count()
            + nodes.stream().filter(n -> n.getMetadata().getDeletionTimestamp() != null).count();
        state = String.format("pods %d/%d Running (%d expected), NodeClaims %d (%d without a Node), Nodes %d (%d without a NodeClaim), %d deleting",
            running, pods.size(), expected, claims.size(), claimsWithoutNode, nodes.size(), nodesWithoutClaim, deleting);
        if (running == expected && pods.size() == expected && claimsWithoutNode == 0 && nodesWithoutClaim == 0 && deleting == 0) {
          settled = true;
          break;
        }
        Thread.sleep(1000);
      }
      System.out.printf("settled after the churn: %s in %.0f s: %s%n", settled ? "yes" : "NO", (System.nanoTime() - settleStart) / 1e9, state);
      System.out.printf("heap after GC: at most %d MiB over the run%n", maxHeap >> 20);
      ApiLoad endLoad = ApiLoad.read(registry);
      System.out.printf("decisions in total: %.0f; API requests in total: %.0f; most frequent: %s%n",
          sum(registry, "karpenter_voluntary_disruption_decisions_total"), endLoad.total() - startLoad.total(), endLoad.topSince(startLoad, 8));
      if (!settled) {
        System.exit(1);
      }
    } finally {
      client.namespaces().withName(namespace).delete();
      client.resources(NodePool.class).withName(POOL).delete();
    }
  }

  private static Deployment deployment(String app, int replicas, String cpu, String memory) {
    Pod pod = TestObjects.pausePod("template", app, cpu, memory);
    return new DeploymentBuilder()
        .withNewMetadata().withName(app).endMetadata()
        .withNewSpec()
          .withReplicas(replicas)
          .withNewSelector().addToMatchLabels("app", app).endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", app).endMetadata().withSpec(pod.getSpec()).endTemplate()
        .endSpec()
        .build();
  }

  private static List<Node> poolNodes(Operator operator) {
    return operator.informers().nodes().getStore().list().stream()
        .filter(n -> n.getMetadata().getLabels() != null && POOL.equals(n.getMetadata().getLabels().get(Labels.NODE_POOL))).toList();
  }

  private static boolean disruptingOrDeleting(Node node) {
    return node.getMetadata().getDeletionTimestamp() != null
        || (node.getSpec().getTaints() != null && node.getSpec().getTaints().stream().anyMatch(t -> TaintKeys.DISRUPTED.equals(t.getKey())));
  }

  private static long pending(Operator operator, String namespace) {
    return operator.informers().pods().getStore().list().stream()
        .filter(p -> namespace.equals(p.getMetadata().getNamespace()) && p.getSpec().getNodeName() == null).count();
  }

  /** The sum of every sample of a counter family (its {@code _total} samples). */
  private static double sum(CollectorRegistry registry, String total) {
    double sum = 0;
    for (Collector.MetricFamilySamples samples : Collections.list(registry.metricFamilySamples())) {
      for (Collector.MetricFamilySamples.Sample sample : samples.samples) {
        if (sample.name.equals(total)) {
          sum += sample.value;
        }
      }
    }
    return sum;
  }
}
