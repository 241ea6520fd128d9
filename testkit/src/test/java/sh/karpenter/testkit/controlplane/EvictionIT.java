package sh.karpenter.testkit.controlplane;

import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.Objects;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

@ControlPlaneTest
class EvictionIT {

  @BeforeEach
  void runAPodOnAKwokNode(KubernetesClient client) {
    client.nodes().resource(KwokNodes.node("worker", "4", "8Gi")).create();
    client.pods().resource(TestPods.pod("guarded", "guarded", "1")).create();
    client.pods().withName("guarded").waitUntilCondition(TestPods::isRunningAndReady, 2, MINUTES);
  }

  @Test
  void refusesAnEvictionThatWouldViolateThePodDisruptionBudget(KubernetesClient client) {
    budget(client, 1);
    awaitDisruptionsAllowed(client, 0);

    // fabric8 answers false exactly when the Eviction API answers 429 Too Many Requests; without
    // retries, since it would otherwise back off and retry the 429 for about 20 seconds.
    try (KubernetesClient noRetries = new KubernetesClientBuilder()
        .withConfig(new ConfigBuilder(client.getConfiguration()).withRequestRetryBackoffLimit(0).build())
        .build()) {
      assertThat(noRetries.pods().inNamespace(client.getNamespace()).withName("guarded").evict()).isFalse();
    }
    assertThat(client.pods().withName("guarded").get()).isNotNull();
  }

  @Test
  void evictsWhenThePodDisruptionBudgetAllowsIt(KubernetesClient client) {
    budget(client, 0);
    awaitDisruptionsAllowed(client, 1);

    assertThat(client.pods().withName("guarded").evict()).isTrue();
    client.pods().withName("guarded").waitUntilCondition(Objects::isNull, 2, MINUTES);
  }

  /** A budget on the bare pod: minAvailable, since maxUnavailable needs a controller's scale. */
  private static void budget(KubernetesClient client, int minAvailable) {
    PodDisruptionBudget budget = new PodDisruptionBudgetBuilder()
        .withNewMetadata().withName("guarded").endMetadata()
        .withNewSpec()
          .withMinAvailable(new IntOrString(minAvailable))
          .withNewSelector().addToMatchLabels("app", "guarded").endSelector()
        .endSpec()
        .build();
    client.policy().v1().podDisruptionBudget().resource(budget).create();
  }

  /** The disruption controller (kube-controller-manager) has counted the pod into the budget. */
  private static void awaitDisruptionsAllowed(KubernetesClient client, int allowed) {
    client.policy().v1().podDisruptionBudget().withName("guarded").waitUntilCondition(
        pdb -> pdb.getStatus() != null
            && Objects.equals(pdb.getStatus().getObservedGeneration(), pdb.getMetadata().getGeneration())
            && pdb.getStatus().getCurrentHealthy() == 1
            && pdb.getStatus().getDisruptionsAllowed() == allowed,
        2, MINUTES);
  }
}
