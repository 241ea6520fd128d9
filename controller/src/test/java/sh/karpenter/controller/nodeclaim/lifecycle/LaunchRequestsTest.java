package sh.karpenter.controller.nodeclaim.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import sh.karpenter.core.cloudprovider.LaunchRequest;
import sh.karpenter.core.cloudprovider.NodeClassRef;
import sh.karpenter.core.taints.Taint;

class LaunchRequestsTest {

  @Test
  void carriesEverythingTheProviderLaunchesFrom() {
    LaunchRequest request = LaunchRequests.from(Manifests.nodeClaim("""
        metadata:
          name: default-abc12
          labels: {karpenter.sh/nodepool: default, team: a}
        spec:
          nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
          requirements:
          - {key: node.kubernetes.io/instance-type, operator: In, values: [c-1x, c-2x, c-4x], minValues: 2}
          - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
          - {key: example.com/gen, operator: Gt, values: ['3']}
          resources:
            requests: {cpu: 1500m, memory: 2Gi, pods: '3', example.com/gpu: '1'}
          taints: [{key: dedicated, value: gpu, effect: NoSchedule}]
          startupTaints: [{key: example.com/agent, effect: NoExecute}]
        """));

    assertThat(request.nodeClaimName()).isEqualTo("default-abc12");
    assertThat(request.nodePoolName()).isEqualTo("default");
    assertThat(request.nodeClassRef()).isEqualTo(new NodeClassRef("karpenter.kwok.sh", "KWOKNodeClass", "default"));
    var instanceType = request.requirements().get("node.kubernetes.io/instance-type");
    assertThat(instanceType.values()).containsExactly("c-1x", "c-2x", "c-4x");
    assertThat(instanceType.minValues()).isEqualTo(2);
    assertThat(request.requirements().get("karpenter.sh/capacity-type").values()).containsExactly("on-demand");
    assertThat(request.requirements().get("example.com/gen").gte()).isEqualTo(4);
    assertThat(request.requests().cpuMilli()).isEqualTo(1500);
    assertThat(request.requests().memoryMilli()).isEqualTo(2L * 1024 * 1024 * 1024 * 1000);
    assertThat(request.requests().milli("example.com/gpu")).isEqualTo(1000);
    assertThat(request.labels()).containsEntry("team", "a");
    assertThat(request.taints()).containsExactly(new Taint("dedicated", "gpu", Taint.Effect.NoSchedule));
    assertThat(request.startupTaints()).containsExactly(Taint.of("example.com/agent", Taint.Effect.NoExecute));
  }

  @Test
  void aNodeClaimWithoutRequirementsOrRequestsAsksForAnything() {
    LaunchRequest request = LaunchRequests.from(Manifests.nodeClaim("metadata: {name: bare}\nspec: {}\n"));

    assertThat(request.nodePoolName()).isEmpty();
    assertThat(request.requirements().isEmpty()).isTrue();
    assertThat(request.requests().isZero()).isTrue();
    assertThat(request.taints()).isEmpty();
  }

  @Test
  void namesTheFieldThatCannotBeLaunched() {
    assertThatThrownBy(() -> LaunchRequests.from(Manifests.nodeClaim("""
        metadata: {name: bad}
        spec:
          requirements: [{key: a, operator: In, values: [x]}, {key: b, operator: Sometimes, values: [y]}]
        """)))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("spec.requirements[1]")
        .hasMessageContaining("Sometimes");
    assertThatThrownBy(() -> LaunchRequests.from(Manifests.nodeClaim("""
        metadata: {name: bad}
        spec:
          taints: [{key: a, effect: Sometimes}]
        """)))
        .hasMessageContaining("spec.taints[0]");
  }
}
