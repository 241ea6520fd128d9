package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static sh.karpenter.controller.snapshot.TestManifests.ORIGIN;

import io.fabric8.kubernetes.api.model.Node;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.taints.Taint;

class NodeConverterTest {

  private static Node node(String yaml) {
    return TestManifests.yaml(Node.class, "apiVersion: v1\nkind: Node\n" + yaml);
  }

  @Test
  void labelsTaintsAllocatableAndNodePoolAreKept() {
    Node node = node("""
        metadata:
          name: ip-10-0-0-1
          labels: {karpenter.sh/nodepool: default, karpenter.sh/initialized: "true", topology.kubernetes.io/zone: zone-a}
        spec:
          taints: [{key: dedicated, value: gpu, effect: NoSchedule}, {key: karpenter.sh/disrupted, effect: NoSchedule}]
        status:
          capacity: {cpu: "4", memory: 16Gi, pods: "110"}
          allocatable: {cpu: 3920m, memory: 15Gi, pods: "110"}
        """);

    ExistingNode existing = NodeConverter.convert(node, List.of(), ORIGIN);

    assertThat(existing.name()).isEqualTo("ip-10-0-0-1");
    assertThat(existing.labels()).containsEntry("topology.kubernetes.io/zone", "zone-a");
    assertThat(existing.taints()).containsExactly(
        new Taint("dedicated", "gpu", Taint.Effect.NoSchedule), new Taint("karpenter.sh/disrupted", null, Taint.Effect.NoSchedule));
    assertThat(existing.allocatable().toQuantities()).isEqualTo(Map.of("cpu", "3920m", "memory", "15Gi", "pods", "110"));
    assertThat(existing.nodePoolName()).isEqualTo("default");
    assertThat(existing.initialized()).isTrue();
    assertThat(NodeConverter.capacity(node, ORIGIN).toQuantities()).isEqualTo(Map.of("cpu", "4", "memory", "16Gi", "pods", "110"));
  }

  @Test
  void allocatableFallsBackToCapacity() {
    Node node = node("metadata: {name: n}\nstatus: {capacity: {cpu: \"2\"}}\n");

    assertThat(NodeConverter.convert(node, List.of(), ORIGIN).allocatable().toQuantities()).isEqualTo(Map.of("cpu", "2"));
    assertThat(NodeConverter.convert(node("metadata: {name: n}\n"), List.of(), ORIGIN).allocatable().isZero()).isTrue();
  }

  /** When a node is ready for pods: Karpenter's nodes once initialized, others unless NotReady. */
  @ParameterizedTest(name = "nodepool={0} initialized={1} Ready={2} -> {3}")
  @CsvSource({
    "default, true, , true",
    "default, , True, false",
    ", , , true",
    ", , True, true",
    ", , False, false",
  })
  void initialized(String nodePool, String initializedLabel, String readyCondition, boolean initialized) {
    Node node = node("metadata: {name: n}\n");
    node.getMetadata().setLabels(new java.util.HashMap<>());
    if (nodePool != null) {
      node.getMetadata().getLabels().put("karpenter.sh/nodepool", nodePool);
    }
    if (initializedLabel != null) {
      node.getMetadata().getLabels().put("karpenter.sh/initialized", initializedLabel);
    }
    if (readyCondition != null) {
      node.setStatus(new io.fabric8.kubernetes.api.model.NodeStatusBuilder().addNewCondition().withType("Ready").withStatus(readyCondition).endCondition().build());
    }

    assertThat(NodeConverter.convert(node, List.of(), ORIGIN).initialized()).isEqualTo(initialized);
  }

  @Test
  void invalidTaintsAndQuantitiesNameTheirField() {
    assertThatThrownBy(() -> NodeConverter.convert(node("metadata: {name: n}\nspec: {taints: [{key: k, effect: Sometimes}]}\n"), List.of(), ORIGIN))
        .hasMessageStartingWith(ORIGIN + ": spec.taints[0].effect: ");
    assertThatThrownBy(() -> NodeConverter.convert(node("metadata: {name: n}\nstatus: {allocatable: {memory: lots}}\n"), List.of(), ORIGIN))
        .hasMessageStartingWith(ORIGIN + ": status.allocatable.memory: invalid quantity \"lots\"");
  }

  /** kube-scheduler's NodeUnschedulable filter: a cordoned node carries the taint tolerating pods get past. */
  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', value = {
    "cordoned, not tainted yet           | {name: n}                                          | {unschedulable: true}",
    "cordoned and tainted                | {name: n}                                          | {unschedulable: true, taints: [{key: node.kubernetes.io/unschedulable, effect: NoSchedule}]}",
    "cordoned registering Karpenter node | {name: n, labels: {karpenter.sh/nodepool: default}} | {unschedulable: true}",
  })
  void aCordonedNodeCarriesTheUnschedulableTaintOnce(String description, String metadata, String spec) {
    Node node = node("metadata: " + metadata + "\nspec: " + spec + "\n");

    assertThat(NodeConverter.convert(node, List.of(), ORIGIN).taints())
        .containsExactly(Taint.of("node.kubernetes.io/unschedulable", Taint.Effect.NoSchedule));
  }

  @Test
  void anUncordonedNodeGetsNoUnschedulableTaint() {
    assertThat(NodeConverter.convert(node("metadata: {name: n}\nspec: {unschedulable: false}\n"), List.of(), ORIGIN).taints()).isEmpty();
  }
}
