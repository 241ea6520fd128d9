package sh.karpenter.benchmarks;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.metrics.NodeMetrics;

/**
 * One run of the {@code metrics.node} loop ({@link NodeMetrics#update}, every 5 s in the controller)
 * over a cluster of {@code pods} bound pods, 50 to a node, unchanged between runs (as most pods are
 * between two runs 5 s apart). Time per run.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 3, time = 3)
@Measurement(iterations = 5, time = 3)
@Fork(value = 1, jvmArgsAppend = "-Xmx2g")
public class NodeMetricsBenchmark {

  @Param({"5000", "50000"})
  public int pods;

  private List<Node> nodes;
  private List<Pod> boundPods;
  private NodeMetrics nodeMetrics;

  @Setup(Level.Trial)
  public void setUp() {
    int nodeCount = Math.max(1, pods / 50);
    Map<String, Quantity> capacity = Map.of("cpu", new Quantity("64"), "memory", new Quantity("256Gi"), "pods", new Quantity("110"));
    nodes = new ArrayList<>();
    for (int i = 0; i < nodeCount; i++) {
      nodes.add(new NodeBuilder()
          .withNewMetadata().withName("node-" + i).withCreationTimestamp("2026-11-26T00:00:00Z")
            .withLabels(Map.of("karpenter.sh/nodepool", "default", "node.kubernetes.io/instance-type", "m5.16xlarge")).endMetadata()
          .withNewSpec().withProviderID("aws:///us-west-2a/i-" + i).endSpec()
          .withNewStatus().withCapacity(capacity).withAllocatable(capacity).endStatus()
          .build());
    }
    boundPods = new ArrayList<>();
    for (int i = 0; i < pods; i++) {
      boundPods.add(new PodBuilder()
          .withNewMetadata().withNamespace("default").withName("pod-" + i).withUid("uid-" + i).withResourceVersion("1").endMetadata()
          .withNewSpec().withNodeName("node-" + (i % nodeCount)).addNewContainer().withName("app").withNewResources()
            .withRequests(Map.of("cpu", new Quantity("250m"), "memory", new Quantity("256Mi")))
            .withLimits(Map.of("cpu", new Quantity("500m"), "memory", new Quantity("512Mi"))).endResources().endContainer().endSpec()
          .withNewStatus().withPhase("Running").endStatus()
          .build());
    }
    nodeMetrics = new NodeMetrics(new Metrics(new CollectorRegistry()), Clock.systemUTC());
  }

  @Benchmark
  public NodeMetrics update() {
    nodeMetrics.update(nodes, boundPods, List.of());
    return nodeMetrics;
  }
}
