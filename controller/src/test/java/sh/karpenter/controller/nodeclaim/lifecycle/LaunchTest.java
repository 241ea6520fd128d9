package sh.karpenter.controller.nodeclaim.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.runtime.writes.StatusConditions;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.InsufficientCapacityException;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.resources.Resources;

class LaunchTest {

  private static final Instance INSTANCE = new Instance(
      "kwok://default-abc12",
      "c-4x-amd64-linux",
      "test-zone-a",
      "spot",
      Map.of("kubernetes.io/arch", "amd64", "team", "provider", "example.com/tier", "provider"),
      Map.of("example.com/launched-by", "kwok"),
      Resources.of(Map.of("cpu", "4", "memory", "16Gi", "pods", "110")),
      Resources.of(Map.of("cpu", "3900m", "memory", "15Gi", "pods", "110")),
      "ami-123");

  private static NodeClaim nodeClaim() {
    NodeClaim nodeClaim = Manifests.nodeClaim("""
        metadata:
          name: default-abc12
          labels: {karpenter.sh/nodepool: default, team: user}
          annotations: {karpenter.sh/nodepool-hash: '123'}
        spec:
          requirements:
          - {key: example.com/tier, operator: In, values: [gold]}
          - {key: example.com/many, operator: In, values: [a, b]}
          - {key: topology.kubernetes.io/zone, operator: In, values: [test-zone-b]}
        """);
    nodeClaim.setStatus(new NodeClaimStatus());
    return nodeClaim;
  }

  @Test
  void userLabelsWinOverRequirementLabelsWhichWinOverTheProvider() {
    NodeClaim nodeClaim = nodeClaim();

    Launch.populate(nodeClaim, INSTANCE);

    assertThat(nodeClaim.getMetadata().getLabels())
        .containsEntry("team", "user")
        .containsEntry("example.com/tier", "gold")
        .containsEntry("kubernetes.io/arch", "amd64")
        .containsEntry("karpenter.sh/nodepool", "default")
        .containsEntry("node.kubernetes.io/instance-type", "c-4x-amd64-linux")
        .containsEntry("karpenter.sh/capacity-type", "spot")
        // Well-known keys come from the provider, which resolved them; multi-valued requirements give no label.
        .containsEntry("topology.kubernetes.io/zone", "test-zone-a")
        .doesNotContainKey("example.com/many");
  }

  @Test
  void copiesAnnotationsProviderIdImageAndResources() {
    NodeClaim nodeClaim = nodeClaim();

    Launch.populate(nodeClaim, INSTANCE);

    assertThat(nodeClaim.getMetadata().getAnnotations())
        .containsEntry("karpenter.sh/nodepool-hash", "123")
        .containsEntry("example.com/launched-by", "kwok");
    assertThat(nodeClaim.getStatus().getProviderID()).isEqualTo("kwok://default-abc12");
    assertThat(nodeClaim.getStatus().getImageID()).isEqualTo("ami-123");
    assertThat(nodeClaim.getStatus().getCapacity())
        .containsEntry("cpu", new Quantity("4"))
        .containsEntry("memory", new Quantity("16Gi"))
        .containsEntry("pods", new Quantity("110"));
    assertThat(nodeClaim.getStatus().getAllocatable()).containsEntry("cpu", new Quantity("3900m"));
  }

  @Test
  void anInstanceWithoutImageLeavesImageIdUnset() {
    NodeClaim nodeClaim = nodeClaim();
    Instance noImage = new Instance("kwok://x", "", "", "", Map.of(), Map.of(), Resources.EMPTY, Resources.EMPTY, "");

    Launch.populate(nodeClaim, noImage);

    assertThat(nodeClaim.getStatus().getImageID()).isNull();
    assertThat(nodeClaim.getMetadata().getLabels()).doesNotContainKey("node.kubernetes.io/instance-type");
  }

  private static Pod pod(String name, String extraSpec, String extraMetadata, String phase) {
    return Manifests.pod("""
        metadata:
          name: %s
          namespace: apps
          uid: uid-%s
        %s
        spec:
          containers: [{name: main, image: pause}]
        %s
        status: {phase: %s}
        """.formatted(name, name, extraMetadata.isEmpty() ? "" : "  " + extraMetadata, extraSpec.isEmpty() ? "" : "  " + extraSpec, phase));
  }

  @Test
  void insufficientCapacityIsToldToTheNominatedPodsStillWaitingForANode() {
    List<Pod> nominated = List.of(
        pod("waiting", "", "", "Pending"),
        pod("bound", "nodeName: node-1", "", "Pending"),
        pod("done", "", "", "Succeeded"),
        pod("failed", "", "", "Failed"),
        pod("terminating", "", "deletionTimestamp: \"2030-01-01T00:00:00Z\"", "Pending"));
    TestingClock clock = new TestingClock();
    TestingEventRecorder events = new TestingEventRecorder(clock);
    List<String> asked = new ArrayList<>();
    Launch launch = new Launch(null, null, null, events, Metrics.noop(), name -> {
      asked.add(name);
      return nominated;
    }, clock);

    launch.tellNominatedPods(nodeClaim(), new InsufficientCapacityException("all offerings of fake-it-1 are out of capacity"));

    assertThat(asked).containsExactly("default-abc12");
    assertThat(events.events()).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo("Pod");
      assertThat(e.namespace()).isEqualTo("apps");
      assertThat(e.name()).isEqualTo("waiting");
      assertThat(e.type()).isEqualTo("Warning");
      assertThat(e.reason()).isEqualTo("InsufficientCapacityError");
      assertThat(e.message()).isEqualTo(
          "NodeClaim default-abc12 nominated for this pod failed to launch: all offerings of fake-it-1 are out of capacity");
    });
  }

  @Test
  void podEventsAreLimitedToFivePerSecondInBurstsOfTen() {
    List<Pod> nominated = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      nominated.add(pod("p-" + i, "", "", "Pending"));
    }
    TestingClock clock = new TestingClock();
    TestingEventRecorder events = new TestingEventRecorder(clock);
    Launch launch = new Launch(null, null, null, events, Metrics.noop(), name -> nominated, clock);

    launch.tellNominatedPods(nodeClaim(), new InsufficientCapacityException("none"));
    assertThat(events.events()).hasSize(10);

    clock.step(Duration.ofSeconds(1));
    launch.tellNominatedPods(nodeClaim(), new InsufficientCapacityException("still none"));
    assertThat(events.events()).hasSize(15);
  }

  @Test
  void aLongErrorIsCutInThePodEvent() {
    TestingClock clock = new TestingClock();
    TestingEventRecorder events = new TestingEventRecorder(clock);
    Launch launch = new Launch(null, null, null, events, Metrics.noop(), name -> List.of(pod("waiting", "", "", "Pending")), clock);

    launch.tellNominatedPods(nodeClaim(), new InsufficientCapacityException("x".repeat(5000)));

    assertThat(events.events().getFirst().message()).hasSize(StatusConditions.MAX_MESSAGE + 3).endsWith("...");
  }
}
