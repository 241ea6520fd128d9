package sh.karpenter.testkit.controlplane;

import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.client.KubernetesClient;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class KubeSchedulerIT {

  @Test
  void marksAPodThatFitsNoNodeUnschedulable(KubernetesClient client) {
    client.nodes().resource(KwokNodes.node("small", "2", "4Gi")).create();
    client.pods().resource(TestPods.pod("too-big", "too-big", "64")).create();

    Pod pod = client.pods().withName("too-big").waitUntilCondition(
        p -> TestPods.condition(p, "PodScheduled").filter(c -> "False".equals(c.getStatus())).isPresent(), 2, MINUTES);

    PodCondition scheduled = TestPods.condition(pod, "PodScheduled").orElseThrow();
    assertThat(scheduled.getReason()).isEqualTo("Unschedulable");
    assertThat(scheduled.getMessage()).contains("0/1 nodes are available");
    assertThat(pod.getSpec().getNodeName()).isNull();
  }
}
