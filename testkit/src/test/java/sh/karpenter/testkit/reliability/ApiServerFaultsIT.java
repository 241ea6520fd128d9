package sh.karpenter.testkit.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.testkit.reliability.FaultScenario.TIMEOUT;
import static sh.karpenter.testkit.reliability.FaultScenario.until;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;

/**
 * Faults of the API side while the controller works (RELIABILITY.md#control-plane-faults): kube-apiserver
 * or etcd killed and restarted in the middle of a provisioning burst and of a consolidation (every watch
 * drops and is re-established), and a throttled and slow API server. The invariant monitor watches throughout; the run must settle with nothing
 * leaked, nothing launched twice and every pod Running.
 */
@ControlPlaneTest
class ApiServerFaultsIT {
  private static final Duration DOWNTIME = Duration.ofSeconds(3);
  /** Longer than the renew deadline (10 s): a leader that could not renew has stopped by then. */
  private static final Duration EXIT_WAIT = Duration.ofSeconds(15);

  private final List<AutoCloseable> running = new ArrayList<>();
  private Invariants invariants;
  private FaultScenario scenario;

  private <T extends AutoCloseable> T track(T closeable) {
    running.add(closeable);
    return closeable;
  }

  private void begin(KubernetesClient client, ControlPlane controlPlane) {
    scenario = track(new FaultScenario(client, controlPlane.client()));
    invariants = track(Invariants.watch(controlPlane.client(), client.getNamespace()));
  }

  private ControllerProcess controller(KubernetesClient client) {
    return track(ControllerProcess.start(client.getConfiguration(), scenario.cloud, ControllerProcess.options(client.getNamespace())));
  }

  /**
   * What the kubelet does for a Karpenter pod whose process exited: a controller that lost its Lease
   * while the API server was away stops (as upstream's does) and a fresh one is started in its place.
   */
  private void restartIfItExited(KubernetesClient client, ControllerProcess controller) throws InterruptedException {
    if (controller.operator.awaitTermination(EXIT_WAIT)) {
      controller(client);
    }
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closeable : running.reversed()) {
      closeable.close();
    }
    running.clear();
  }

  /** kube-apiserver or etcd (every watch drops either way) killed and restarted while six pods are being provisioned. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"kube-apiserver", "etcd"})
  void restartsDuringAProvisioningBurst(String component, KubernetesClient client, ControlPlane controlPlane) throws InterruptedException {
    begin(client, controlPlane);
    scenario.pool("{consolidateAfter: Never}");
    ControllerProcess controller = controller(client);
    scenario.deployment("burst", 6, "1", true);
    until(() -> !scenario.nodeClaims().isEmpty());

    controlPlane.restart(component, DOWNTIME);
    restartIfItExited(client, controller);

    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(scenario.pods("burst")).hasSize(6);
    assertThat(invariants.nodeClaimsSeen()).as("one NodeClaim per pod, none twice").isEqualTo(6);
    assertThat(scenario.emptyNodes()).isEmpty();
  }

  /** kube-apiserver or etcd killed and restarted after consolidation tainted its candidate, before the replacement is up. */
  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"kube-apiserver", "etcd"})
  void restartsDuringAConsolidation(String component, KubernetesClient client, ControlPlane controlPlane) throws InterruptedException {
    begin(client, controlPlane);
    scenario.consolidationPool();
    ControllerProcess controller = controller(client);
    String candidate = scenario.oneLargeNode();
    scenario.shrink();
    until(() -> FaultScenario.tainted(client.nodes().withName(candidate).get()));

    controlPlane.restart(component, DOWNTIME);
    restartIfItExited(client, controller);

    until(() -> scenario.emptyNodes().isEmpty() && client.nodes().withName(candidate).get() == null);
    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(scenario.pods("web")).hasSize(1);
    assertThat(client.nodes().list().getItems()).hasSize(1);
  }

  @Test
  void aThrottledSlowApiServerStillGetsEveryPodPlacedOnce(KubernetesClient client, ControlPlane controlPlane) {
    begin(client, controlPlane);
    scenario.pool("{consolidateAfter: Never}");
    ControllerProcess controller = controller(client);
    // Every 4th request answered 429 (Retry-After: 1), every request 150 ms late.
    controller.proxy.throttle(4).delay(Duration.ofMillis(150));
    scenario.deployment("burst", 5, "1", true);

    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(controller.proxy.throttled()).isPositive();
    assertThat(invariants.nodeClaimsSeen()).isEqualTo(5);
    assertThat(scenario.emptyNodes()).isEmpty();
  }

  @Test
  void aNodeClaimCreateWhoseAnswerIsLostMakesOneNodeClaim(KubernetesClient client, ControlPlane controlPlane) {
    begin(client, controlPlane);
    scenario.pool("{consolidateAfter: Never}");
    ControllerProcess controller = controller(client);
    // The API server creates the NodeClaim, the controller's connection drops before the answer: the
    // client retries the POST. The drop waits until the NodeClaim has been launched, and so labelled
    // with its instance's type and zone: the retry must still recognise it (requiring equal labels
    // made a second NodeClaim on a loaded CI machine).
    controller.proxy.loseAnswers("/nodeclaims", 1, () -> scenario.nodeClaims().stream()
        .anyMatch(c -> c.getStatus() != null && Conditions.isTrue(c.getStatus().getConditions(), ConditionTypes.LAUNCHED)));
    scenario.deployment("lost", 1, "1", true);

    // The provisioning pass is over once it nominated the pod: to the NodeClaim it ended up with.
    until(() -> controller.events.events().stream().anyMatch(e -> "Nominated".equals(e.reason())));
    assertThat(controller.proxy.answersDroppedWhenReady()).as("the answer was dropped after the launch").isEqualTo(1);
    assertThat(controller.proxy.postsToLosePath()).as("the lost create was retried").isGreaterThanOrEqualTo(2);
    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(invariants.nodeClaimsSeen()).isEqualTo(1);
    String nominated = controller.events.events().stream().filter(e -> "Nominated".equals(e.reason())).findFirst().orElseThrow().message();
    assertThat(nominated).isEqualTo("Pod should schedule on: nodeclaim/" + scenario.nodeClaims().getFirst().getMetadata().getName());
  }
}
