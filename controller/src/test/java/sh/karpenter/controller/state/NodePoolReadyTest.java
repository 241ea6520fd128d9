package sh.karpenter.controller.state;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodePool;

/** Which NodePools provisioning uses: only those whose Ready condition is True (upstream's NewScheduler). */
class NodePoolReadyTest {
  private static final KubernetesSerialization YAML = new KubernetesSerialization();

  private static NodePool pool(String status) {
    return YAML.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: general}
        spec: {template: {spec: {nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}, requirements: []}}}
        """ + status, NodePool.class);
  }

  @Test
  void readyTrueIsUsed() {
    assertThat(ClusterState.notReady(pool("status: {conditions: [{type: Ready, status: \"True\", reason: Ready}]}"))).isEmpty();
  }

  @Test
  void aPoolWithoutStatusOrReadyConditionIsNotUsed() {
    assertThat(ClusterState.notReady(pool(""))).contains("not ready: no Ready condition yet");
    assertThat(ClusterState.notReady(pool("status: {conditions: [{type: ValidationSucceeded, status: \"True\", reason: V}]}")))
        .contains("not ready: no Ready condition yet");
  }

  @Test
  void readyUnknownOrFalseIsNotUsedAndSaysWhy() {
    assertThat(ClusterState.notReady(pool("status: {conditions: [{type: Ready, status: Unknown, reason: AwaitingReconciliation}]}")))
        .contains("not ready (Ready=Unknown, AwaitingReconciliation)");
    assertThat(ClusterState.notReady(pool(
            "status: {conditions: [{type: Ready, status: \"False\", reason: NodeClassNotFound, message: NodeClass not found on cluster}]}")))
        .contains("not ready (Ready=False, NodeClassNotFound: NodeClass not found on cluster)");
  }
}
