package sh.karpenter.controller.nodepool;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;

class NodePoolCounterTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static Node node(String name, String pool, String providerId, String cpu) {
    return SERIALIZATION.unmarshal("""
        apiVersion: v1
        kind: Node
        metadata: {name: %s, labels: {karpenter.sh/nodepool: %s}}
        spec: {providerID: '%s'}
        status: {capacity: {cpu: '%s', memory: 4Gi, pods: '110'}, allocatable: {cpu: '1', memory: 1Gi}}
        """.formatted(name, pool, providerId, cpu), Node.class);
  }

  private static NodeClaim nodeClaim(String name, String pool, String providerId) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata: {name: %s, labels: {karpenter.sh/nodepool: %s}}
        spec: {}
        status: {providerID: '%s', capacity: {cpu: '8', memory: 16Gi, nvidia.com/gpu: '1'}}
        """.formatted(name, pool, providerId), NodeClaim.class);
  }

  @Test
  void sumsNodeCapacityAndLaunchedNodeClaimsWithoutNodes() {
    List<Node> nodes = List.of(node("a", "default", "kwok://a", "2"), node("b", "default", "kwok://b", "4"), node("c", "other", "kwok://c", "16"));
    List<NodeClaim> nodeClaims = List.of(
        nodeClaim("a", "default", "kwok://a"),   // has its Node: counted once
        nodeClaim("d", "default", "kwok://d"),   // launched, Node not registered yet
        nodeClaim("e", "default", ""));          // not launched: no capacity yet

    NodePoolCounter.Usage usage = NodePoolCounter.usage("default", nodes, nodeClaims);

    assertThat(usage.nodes()).isEqualTo(3);
    assertThat(usage.asStatus())
        .containsEntry("cpu", new Quantity("14"))
        .containsEntry("memory", new Quantity("24Gi"))
        .containsEntry("pods", new Quantity("220"))
        .containsEntry("nvidia.com/gpu", new Quantity("1"))
        .containsEntry("ephemeral-storage", new Quantity("0"))
        .containsEntry("nodes", new Quantity("3"));
  }

  @Test
  void anEmptyPoolReportsZeroes() {
    NodePoolCounter.Usage usage = NodePoolCounter.usage("default", List.of(), List.of());

    assertThat(usage.nodes()).isZero();
    assertThat(usage.asStatus()).containsOnlyKeys("cpu", "memory", "pods", "ephemeral-storage", "nodes");
  }
}
