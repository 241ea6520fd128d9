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
import sh.karpenter.controller.runtime.KubernetesEventRecorder;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * The controller benchmark of the controller issue: a burst of pending pods on the real control
 * plane (etcd, kube-apiserver, kube-scheduler, KWOK), with the operator in this JVM on the KWOK
 * provider and the bundled AWS catalogue. Reports the time from the burst's first pod to the last
 * NodeClaim created and to every pod Running, and the heap in use at that point (after a GC; it
 * includes the benchmark's own client, which is small).
 *
 * <p>Usage: {@code ControllerBurst [pods]} (default 1000). Uses the control plane of
 * {@code $KARPENTER_CP_DIR} when one runs there, else starts its own.
 */
public final class ControllerBurst {
  private ControllerBurst() {}

  public static void main(String[] args) throws Exception {
    int pods = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
    KubernetesClient client = ControlPlane.shared().client();
    String namespace = "burst-" + Long.toHexString(System.nanoTime());
    client.namespaces().resource(new NamespaceBuilder().withNewMetadata().withName(namespace).endMetadata().build()).create();
    client.resource(TestObjects.yaml(client, KWOKNodeClass.class, """
        apiVersion: karpenter.kwok.sh/v1alpha1
        kind: KWOKNodeClass
        metadata: {name: %s}
        """.formatted(TestObjects.DEFAULT_NODE_CLASS))).createOr(r -> r.update());
    client.resource(TestObjects.yaml(client, NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata:
          name: burst
        spec:
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              expireAfter: Never
              requirements:
                - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
                - {key: kubernetes.io/os, operator: In, values: [linux]}
                - {key: karpenter.k8s.aws/instance-category, operator: In, values: [c, m, r]}
        """)).createOr(r -> r.update());

    InstanceTypeCatalog catalog = InstanceTypeCatalog.aws();
    Options options = Options.defaults().withPorts(-1, -1).withLeaderElection(false, "unused", namespace);
    try (KwokCloudProvider provider = new KwokCloudProvider(client, catalog, Clock.systemUTC());
        Operator operator = new Operator(client, provider, options, Clock.systemUTC(), new Metrics(new CollectorRegistry()),
            new KubernetesEventRecorder(client, Clock.systemUTC()));
        ExecutorService creators = Executors.newFixedThreadPool(16)) {
      operator.start();
      while (!operator.ready()) {
        Thread.sleep(50);
      }
      Random random = new Random(42);
      String[] cpu = {"100m", "250m", "500m", "1", "2"};
      String[] memory = {"128Mi", "512Mi", "1Gi", "2Gi", "4Gi"};
      long start = System.nanoTime();
      for (int i = 0; i < pods; i++) {
        Pod pod = TestObjects.pausePod("burst-" + i, "burst", cpu[random.nextInt(cpu.length)], memory[random.nextInt(memory.length)]);
        creators.submit(() -> client.pods().inNamespace(namespace).resource(pod).create());
      }
      creators.shutdown();
      int lastClaims = 0;
      long lastClaimChange = start;
      long firstClaim = 0;
      long allCreated = 0;
      long running;
      while (true) {
        int claims = operator.informers().nodeClaims().getStore().list().size();
        if (claims != lastClaims) {
          lastClaims = claims;
          lastClaimChange = System.nanoTime();
          if (firstClaim == 0) {
            firstClaim = lastClaimChange;
          }
        }
        List<Pod> all = operator.informers().pods().getStore().list().stream()
            .filter(p -> namespace.equals(p.getMetadata().getNamespace())).toList();
        if (allCreated == 0 && all.size() == pods) {
          allCreated = System.nanoTime();
        }
        long runningNow = all.stream().filter(p -> p.getStatus() != null && "Running".equals(p.getStatus().getPhase())).count();
        if (all.size() == pods && runningNow == pods) {
          running = System.nanoTime();
          break;
        }
        if (Duration.ofNanos(System.nanoTime() - start).toMinutes() >= 15) {
          throw new IllegalStateException("timed out: " + runningNow + "/" + pods + " running, " + claims + " NodeClaims");
        }
        Thread.sleep(100);
      }
      System.gc();
      long heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
      // Only the burst NodePool's nodes: a shared control plane may hold others.
      List<Node> nodes = operator.informers().nodes().getStore().list().stream()
          .filter(n -> "burst".equals(n.getMetadata().getLabels().get(Labels.NODE_POOL))).toList();
      System.out.printf("pods=%d nodeclaims=%d nodes=%d%n", pods, lastClaims, nodes.size());
      System.out.printf("burst to all pods created:       %.2f s%n", (allCreated - start) / 1e9);
      System.out.printf("burst to first NodeClaim:        %.2f s%n", (firstClaim - start) / 1e9);
      System.out.printf("burst to last NodeClaim created: %.2f s%n", (lastClaimChange - start) / 1e9);
      System.out.printf("burst to all pods Running:       %.2f s%n", (running - start) / 1e9);
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
}
