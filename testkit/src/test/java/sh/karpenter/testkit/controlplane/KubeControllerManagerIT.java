package sh.karpenter.testkit.controlplane;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class KubeControllerManagerIT {

  @Test
  void createsTheReplicaSetAndPodsOfADeployment(KubernetesClient client) {
    Pod template = TestPods.pod("unused", "web", "100m");
    Deployment deployment = new DeploymentBuilder()
        .withNewMetadata().withName("web").endMetadata()
        .withNewSpec()
          .withReplicas(3)
          .withNewSelector().addToMatchLabels("app", "web").endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", "web").endMetadata().withSpec(template.getSpec()).endTemplate()
        .endSpec()
        .build();
    client.apps().deployments().resource(deployment).create();

    List<Pod> pods = await().atMost(Duration.ofMinutes(2))
        .until(() -> client.pods().withLabel("app", "web").list().getItems(), items -> items.size() == 3);

    assertThat(pods).allSatisfy(pod -> assertThat(pod.getMetadata().getOwnerReferences())
        .singleElement()
        .satisfies(owner -> assertThat(owner.getKind()).isEqualTo("ReplicaSet")));
  }
}
