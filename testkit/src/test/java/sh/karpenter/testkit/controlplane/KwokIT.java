package sh.karpenter.testkit.controlplane;

import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class KwokIT {

  @Test
  void turnsAnAnnotatedNodeReadyAndRunsThePodsScheduledToIt(KubernetesClient client) {
    client.nodes().resource(KwokNodes.node("worker", "4", "8Gi")).create();

    Node node = client.nodes().withName("worker").waitUntilCondition(TestPods::isReady, 2, MINUTES);
    assertThat(node.getStatus().getNodeInfo().getKubeletVersion()).isNotEmpty();

    client.pods().resource(TestPods.pod("app", "app", "1")).create();
    Pod pod = client.pods().withName("app").waitUntilCondition(TestPods::isRunningAndReady, 2, MINUTES);

    assertThat(pod.getSpec().getNodeName()).isEqualTo("worker");
    assertThat(pod.getStatus().getPodIP()).startsWith("10.244.");
  }
}
