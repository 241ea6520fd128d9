package sh.karpenter.controller.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.prometheus.client.CollectorRegistry;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;

/** The {@code metrics.node} loop's body over lists of Nodes, Pods and NodeClaims. */
class NodeMetricsTest {
  private static final Instant NOW = Instant.parse("2026-01-01T01:00:00Z");

  private final Metrics metrics = new Metrics(new CollectorRegistry());
  private final NodeMetrics nodeMetrics = new NodeMetrics(metrics, Clock.fixed(NOW, ZoneOffset.UTC));

  private static Node node(String name, String providerId) {
    return new NodeBuilder()
        .withNewMetadata().withName(name).withCreationTimestamp("2026-01-01T00:00:00Z")
        .withLabels(Map.of("karpenter.sh/nodepool", "default", "topology.kubernetes.io/zone", "zone-a",
            "node.kubernetes.io/instance-type", "m5.large", "karpenter.sh/capacity-type", "spot"))
        .endMetadata()
        .withNewSpec().withProviderID(providerId).endSpec()
        .withNewStatus().withPhase("Running")
        .withCapacity(Map.of("cpu", new Quantity("2"), "memory", new Quantity("8Gi"), "pods", new Quantity("110")))
        .withAllocatable(Map.of("cpu", new Quantity("1930m"), "memory", new Quantity("7Gi"), "pods", new Quantity("110")))
        .endStatus()
        .build();
  }

  private static Container container(String cpuRequest, String cpuLimit) {
    Map<String, Quantity> limits = new HashMap<>();
    if (cpuLimit != null) limits.put("cpu", new Quantity(cpuLimit));
    return new ContainerBuilder().withName("c").withNewResources()
        .withRequests(Map.of("cpu", new Quantity(cpuRequest))).withLimits(limits).endResources().build();
  }

  private static Pod pod(String name, String nodeName, String phase, boolean daemon, Container container, Container init) {
    PodBuilder b = new PodBuilder().withNewMetadata().withNamespace("default").withName(name).endMetadata();
    if (daemon) {
      b.editMetadata().addNewOwnerReference().withApiVersion("apps/v1").withKind("DaemonSet").withName("ds").withController(true)
          .endOwnerReference().endMetadata();
    }
    b.withNewSpec().withNodeName(nodeName).withContainers(container).endSpec().withNewStatus().withPhase(phase).endStatus();
    if (init != null) {
      b.editSpec().withInitContainers(init).endSpec();
    }
    return b.build();
  }

  private static NodeClaim claim(String providerId) {
    NodeClaim claim = new NodeClaim();
    NodeClaimStatus status = new NodeClaimStatus();
    status.setProviderID(providerId);
    claim.setStatus(status);
    return claim;
  }

  private static Map<String, String> labels(String node, String resourceType) {
    Map<String, String> labels = new HashMap<>(Map.of("node_name", node, "nodepool", "default", "zone", "zone-a",
        "instance_type", "m5.large", "capacity_type", "spot", "phase", "Running", "managed", "true"));
    for (String unset : List.of("region", "arch", "os", "windows_build")) labels.put(unset, "");
    if (resourceType != null) labels.put("resource_type", resourceType);
    return labels;
  }

  @Test
  void exportsPerNodeRequestsLimitsDaemonsOverheadAndLifetime() {
    List<Pod> pods = List.of(
        pod("app", "n1", "Running", false, container("500m", "1"), container("700m", null)),
        pod("ds", "n1", "Running", true, container("100m", "200m"), null),
        pod("done", "n1", "Succeeded", false, container("4", null), null),
        pod("elsewhere", "n2", "Running", false, container("1", null), null));
    nodeMetrics.update(List.of(node("n1", "aws:///a/i-1")), pods, List.of(claim("aws:///a/i-1")));
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    // The init container's 700m is the peak; the terminal pod and the pod on another node do not count.
    assertThat(scraped.value("karpenter_nodes_total_pod_requests", labels("n1", "cpu"))).contains(0.8);
    assertThat(scraped.value("karpenter_nodes_total_pod_requests", labels("n1", "pods"))).contains(2.0);
    assertThat(scraped.value("karpenter_nodes_total_pod_limits", labels("n1", "cpu"))).contains(1.2);
    assertThat(scraped.value("karpenter_nodes_total_daemon_requests", labels("n1", "cpu"))).contains(0.1);
    assertThat(scraped.value("karpenter_nodes_total_daemon_limits", labels("n1", "cpu"))).contains(0.2);
    assertThat(scraped.value("karpenter_nodes_allocatable", labels("n1", "memory"))).contains(7.0 * 1024 * 1024 * 1024);
    assertThat(scraped.value("karpenter_nodes_system_overhead", labels("n1", "cpu"))).contains(0.07);
    assertThat(scraped.value("karpenter_nodes_current_lifetime_seconds", labels("n1", null))).contains(3600.0);
    assertThat(scraped.value("karpenter_cluster_utilization_percent", Map.of("resource_type", "cpu")))
        .hasValueSatisfying(v -> assertThat(v).isCloseTo(100 * 0.8 / 1.93, org.assertj.core.data.Offset.offset(1e-9)));
    assertThat(scraped.samples("karpenter_nodes_allocatable")).allSatisfy(s ->
        assertThat(s.labels()).containsEntry("region", "").containsEntry("windows_build", "").containsEntry("arch", ""));
  }

  /** {@code pod} with this UID and resourceVersion, as the API server stamps them. */
  private static Pod stamped(Pod pod, String uid, String resourceVersion) {
    return new PodBuilder(pod).editMetadata().withUid(uid).withResourceVersion(resourceVersion).endMetadata().build();
  }

  @Test
  void aPodsRequestsAreReadAgainWhenItsResourceVersionChanges() {
    List<Node> nodes = List.of(node("n1", "aws:///a/i-1"));
    List<NodeClaim> claims = List.of(claim("aws:///a/i-1"));
    nodeMetrics.update(nodes, List.of(stamped(pod("app", "n1", "Running", false, container("500m", null), null), "u1", "1")), claims);
    // the same version with other resources: the remembered ones count (a stored object does not change without a new version)
    nodeMetrics.update(nodes, List.of(stamped(pod("app", "n1", "Running", false, container("3", null), null), "u1", "1")), claims);
    assertThat(ScrapedText.parse(metrics.scrape()).value("karpenter_nodes_total_pod_requests", labels("n1", "cpu"))).contains(0.5);
    // a resized pod has a new version: read again
    nodeMetrics.update(nodes, List.of(stamped(pod("app", "n1", "Running", false, container("750m", null), null), "u1", "2")), claims);
    assertThat(ScrapedText.parse(metrics.scrape()).value("karpenter_nodes_total_pod_requests", labels("n1", "cpu"))).contains(0.75);
  }

  @Test
  void aNodeWithoutANodeClaimIsUnmanaged() {
    nodeMetrics.update(List.of(node("n1", "aws:///a/i-1")), List.of(), List.of(claim("aws:///a/i-2")));
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    Map<String, String> labels = labels("n1", null);
    labels.put("managed", "false");
    assertThat(scraped.value("karpenter_nodes_current_lifetime_seconds", labels)).contains(3600.0);
  }

  @Test
  void eachRunReplacesTheSeriesSoAGoneNodeLosesThem() {
    Pod app = pod("app", "n1", "Running", false, container("500m", null), null);
    nodeMetrics.update(List.of(node("n1", "p1"), node("n2", "p2")), List.of(app), List.of());
    nodeMetrics.update(List.of(node("n2", "p2")), List.of(app), List.of());
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    for (String family : List.of("karpenter_nodes_allocatable", "karpenter_nodes_total_pod_requests",
        "karpenter_nodes_system_overhead", "karpenter_nodes_current_lifetime_seconds")) {
      assertThat(scraped.samples(family)).as(family).allSatisfy(s -> assertThat(s.labels()).containsEntry("node_name", "n2"));
    }
    assertThat(scraped.samples("karpenter_nodes_current_lifetime_seconds")).hasSize(1);
    assertThat(scraped.value("karpenter_cluster_utilization_percent", Map.of("resource_type", "cpu"))).contains(0.0);

    nodeMetrics.update(List.of(), List.of(), List.of());
    scraped = ScrapedText.parse(metrics.scrape());
    assertThat(scraped.samples("karpenter_nodes_allocatable")).isEmpty();
    assertThat(scraped.samples("karpenter_cluster_utilization_percent")).isEmpty();
  }

  @Test
  void aPodWithAnInvalidRequestIsLeftOut() {
    Pod bad = pod("bad", "n1", "Running", false, container("2", "1"), null);
    Pod good = pod("good", "n1", "Running", false, container("250m", null), null);
    nodeMetrics.update(List.of(node("n1", "p1")), List.of(bad, good), List.of(claim("p1")));
    ScrapedText scraped = ScrapedText.parse(metrics.scrape());

    assertThat(scraped.value("karpenter_nodes_total_pod_requests", labels("n1", "cpu"))).contains(0.25);
  }

  @Test
  void noopMetricsRecordNothing() {
    new NodeMetrics(Metrics.noop(), Clock.systemUTC()).update(List.of(node("n1", "p1")), List.of(), List.of());
  }
}
