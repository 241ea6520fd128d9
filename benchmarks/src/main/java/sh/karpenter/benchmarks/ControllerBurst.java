package sh.karpenter.benchmarks;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.Operator;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.runtime.ControllerClient;
import sh.karpenter.controller.runtime.KubernetesEventRecorder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * The controller benchmark of the controller issue: a burst of pending pods on the real control
 * plane (etcd, kube-apiserver, kube-scheduler, KWOK), with the operator in this JVM on the KWOK
 * provider and the bundled AWS catalogue. Reports the time from the burst's first pod to the most
 * NodeClaims (the last created while their count rose; consolidation deletes some during a large
 * burst) and to every pod Running, the pods evicted, the NodeClaims created per second, the controller's
 * requests to kube-apiserver per second by verb (its {@code karpenter_kube_client_requests_total}),
 * and the heap in use at that point (after a GC; it includes the benchmark's own client, which is
 * small).
 *
 * <p>Every 30 s it prints where the pods are (pending, bound, Running) and the NodeClaims and Nodes
 * (Ready), to show where time goes.
 *
 * <p>Usage: {@code ControllerBurst [pods [timeout-minutes]]} (default 1000, 15). Uses the control plane of
 * {@code $KARPENTER_CP_DIR} when one runs there, else starts its own.
 */
public final class ControllerBurst {
  private ControllerBurst() {}

  public static void main(String[] args) throws Exception {
    int pods = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    int timeoutMinutes = args.length > 1 ? Integer.parseInt(args[1]) : 15;
    KubernetesClient client = ControlPlane.shared().client();
    String namespace = "burst-" + Long.toHexString(System.nanoTime());
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
    createNodePool(client, "burst", "");

    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    Options options = Options.defaults().withPorts(-1, -1).withLeaderElection(false, "unused", namespace);
    CollectorRegistry registry = new CollectorRegistry();
    Metrics metrics = new Metrics(registry);
    // the controller's own client, as `karpenter controller` builds it (default QPS 200, burst 300), counting its requests
    try (KubernetesClient controllerClient = ControllerClient.builder(client.getConfiguration(), 200, 300, metrics.apiRequests()).build();
        KwokCloudProvider provider = new KwokCloudProvider(controllerClient, catalog, Clock.systemUTC());
        Operator operator = new Operator(controllerClient, provider, options, Clock.systemUTC(), metrics,
            new KubernetesEventRecorder(controllerClient, Clock.systemUTC()));
        ExecutorService creators = Executors.newFixedThreadPool(16)) {
      operator.start();
      while (!operator.ready()) {
        Thread.sleep(50);
      }
      Random random = new Random(42);
      String[] cpu = {"100m", "250m", "500m", "1", "2"};
      String[] memory = {"128Mi", "512Mi", "1Gi", "2Gi", "4Gi"};
      java.util.concurrent.atomic.AtomicInteger failedCreates = new java.util.concurrent.atomic.AtomicInteger();
      ApiLoad before = ApiLoad.read(registry);
      long start = System.nanoTime();
      for (int i = 0; i < pods; i++) {
        Pod pod = TestObjects.pausePod("burst-" + i, "burst", cpu[random.nextInt(cpu.length)], memory[random.nextInt(memory.length)]);
        creators.submit(() -> {
          try {
            client.pods().inNamespace(namespace).resource(pod).create();
          } catch (RuntimeException e) {
            failedCreates.incrementAndGet(); // an overloaded API server times some out: counted, not retried
          }
        });
      }
      creators.shutdown();
      int lastClaims = 0;
      long lastClaimChange = start;
      long firstClaim = 0;
      long allCreated = 0;
      long running;
      long nextProgress = start + Duration.ofSeconds(30).toNanos();
      while (true) {
        int claims = operator.informers().nodeClaims().getStore().list().size();
        // the count only while it rises: consolidation during the burst deletes NodeClaims too
        if (claims > lastClaims) {
          lastClaims = claims;
          lastClaimChange = System.nanoTime();
          if (firstClaim == 0) {
            firstClaim = lastClaimChange;
          }
        }
        List<Pod> all = operator.informers().pods().getStore().list().stream()
            .filter(p -> namespace.equals(p.getMetadata().getNamespace())).toList();
        // every create answered; pods that failed to be created (or were evicted and are gone) are not waited for
        boolean created = creators.isTerminated();
        if (allCreated == 0 && created) {
          allCreated = System.nanoTime();
        }
        long runningNow = all.stream().filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase())).count();
        if (created && runningNow == all.size()) {
          running = System.nanoTime();
          break;
        }
        if (System.nanoTime() >= nextProgress) {
          nextProgress += Duration.ofSeconds(30).toNanos();
          progress(operator, all, start, claims);
        }
        if (Duration.ofNanos(System.nanoTime() - start).toMinutes() >= timeoutMinutes) {
          throw new IllegalStateException("timed out: " + runningNow + "/" + pods + " running, " + claims + " NodeClaims");
        }
        Thread.sleep(100);
      }
      ApiLoad after = ApiLoad.read(registry);
      System.gc();
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      // Only the burst NodePool's nodes: a shared control plane may hold others.
      List<Node> nodes = operator.informers().nodes().getStore().list().stream()
          .filter(n -> "burst".equals(n.getMetadata().getLabels().get(Labels.NODE_POOL))).toList();
      System.out.printf("pods=%d (%d not created: the API server failed the request; %d left at the end) most nodeclaims=%d nodes=%d%n",
          pods, failedCreates.get(), operator.informers().pods().getStore().list().stream()
              .filter(p -> namespace.equals(p.getMetadata().getNamespace())).count(), lastClaims, nodes.size());
      System.out.printf("burst to all pods created:       %.2f s (every create answered)%n", (allCreated - start) / 1e9);
      System.out.printf("burst to first NodeClaim:        %.2f s%n", (firstClaim - start) / 1e9);
      System.out.printf("burst to most NodeClaims:        %.2f s%n", (lastClaimChange - start) / 1e9);
      System.out.printf("burst to all pods Running:       %.2f s%n", (running - start) / 1e9);
      System.out.printf("NodeClaims created per second:   %.1f (first to last NodeClaim)%n",
          lastClaims / Math.max(1e-9, (lastClaimChange - firstClaim) / 1e9));
      System.out.printf("pods evicted:                    %s (eviction requests, 429s included; evicted bare pods are gone)%n",
          after.byVerbAndResource().getOrDefault("create pods/eviction", 0.0) - before.byVerbAndResource().getOrDefault("create pods/eviction", 0.0));
      System.out.printf("API requests, burst to Running:  %.0f, %s%n", after.total() - before.total(),
          after.ratesSince(before, (running - start) / 1e9));
      System.out.printf("most frequent requests:          %s%n", after.topSince(before, 8));
      System.out.printf("heap in use after GC:            %d MiB%n", heap >> 20);
      double[] requested = new double[2];
      double[] allocatable = new double[2];
      for (Pod pod : operator.informers().pods().getStore().list()) {
        if (namespace.equals(pod.getMetadata().getNamespace())) {
          var requests = pod.getSpec().getContainers().get(0).getResources().getRequests();
          requested[0] += requests.get("cpu").getNumericalAmount().doubleValue();
          requested[1] += requests.get("memory").getNumericalAmount().doubleValue();
        }
      }
      for (Node node : nodes) {
        allocatable[0] += node.getStatus().getAllocatable().get("cpu").getNumericalAmount().doubleValue();
        allocatable[1] += node.getStatus().getAllocatable().get("memory").getNumericalAmount().doubleValue();
      }
      System.out.printf("reserved utilisation:            cpu %.2f, memory %.2f (upstream's thresholds: > 0.53, > 0.65)%n",
          requested[0] / allocatable[0], requested[1] / allocatable[1]);
    } finally {
      client.namespaces().withName(namespace).delete();
      client.resources(NodePool.class).withName("burst").delete();
    }
  }

  private static void progress(Operator operator, List<Pod> pods, long start, int claims) {
    long bound = pods.stream().filter(p -> p.getSpec().getNodeName() != null).count();
    long runningNow = pods.stream().filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase())).count();
    List<Node> nodes = operator.informers().nodes().getStore().list().stream()
        .filter(n -> "burst".equals(n.getMetadata().getLabels().get(Labels.NODE_POOL))).toList();
    long ready = nodes.stream().filter(n -> n.getStatus() != null && n.getStatus().getConditions() != null
        && n.getStatus().getConditions().stream().anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()))).count();
    System.out.printf("  %4.0f s: pods %d (%d bound, %d Running), NodeClaims %d, Nodes %d (%d Ready), load %s%n",
        (System.nanoTime() - start) / 1e9, pods.size(), bound, runningNow, claims, nodes.size(), ready, loadAverage());
  }

  /** The 1-minute load average of this machine (other builds share it). */
  static String loadAverage() {
    try {
      return java.nio.file.Files.readString(java.nio.file.Path.of("/proc/loadavg")).split(" ")[0];
    } catch (java.io.IOException e) {
      return "?";
    }
  }

  /**
   * Creates (or updates) the KWOKNodeClass {@code default} and the NodePool {@code name} of c/m/r
   * on-demand linux types on it, with this {@code spec.disruption} (flow-style YAML, "" for the default)
   * and these further requirements (flow-style YAML each).
   */
  static void createNodePool(KubernetesClient client, String name, String disruption, String... requirements) {
    client.resource(TestObjects.yaml(client, KWOKNodeClass.class, """
        apiVersion: karpenter.kwok.sh/v1alpha1
        kind: KWOKNodeClass
        metadata: {name: %s}
        """.formatted(TestObjects.DEFAULT_NODE_CLASS))).createOr(r -> r.update());
    client.resource(TestObjects.yaml(client, NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata:
          name: %s
        spec:
          %s
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              expireAfter: Never
              requirements:
                - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
                - {key: kubernetes.io/os, operator: In, values: [linux]}
                - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
        """.formatted(name, disruption.isEmpty() ? "" : "disruption: " + disruption)
        + java.util.Arrays.stream(requirements).map(r -> "        - " + r + "\n").collect(java.util.stream.Collectors.joining())))
        .createOr(r -> r.update());
  }
}
