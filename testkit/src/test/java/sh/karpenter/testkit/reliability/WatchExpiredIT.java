package sh.karpenter.testkit.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.testkit.reliability.FaultScenario.TIMEOUT;
import static sh.karpenter.testkit.reliability.FaultScenario.until;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;

/**
 * A controller whose watches drop and, when they come back, find their resourceVersion too old: the
 * API server answers {@code 410 Gone} and the informers must re-list, missing nothing that changed
 * while they were away (RELIABILITY.md#control-plane-faults).
 *
 * <p>While the controller's {@link FaultProxy} is cut, the test (through its own client) deletes the
 * pod the controller had cached on the one node, creates four pods that each need a node of their own,
 * compacts etcd to its current revision and restarts kube-apiserver. Compaction alone does not make
 * the API server answer 410: its watch cache still holds the recent events and serves a watch from
 * them. The restart rebuilds the watch cache from a list of the compacted etcd, so every watch from a
 * resourceVersion before it is "too old" ({@code {"type":"ERROR",...,"reason":"Expired","code":410}});
 * the proxy counts those answers ({@link FaultProxy#gone}), which shows the re-watch was refused.
 *
 * <p>Leader election is off for this one controller: the cut lasts longer than the renew deadline
 * (10 s), and a controller that lost its Lease would exit and start afresh with a full list, which is
 * not the path under test.
 */
@ControlPlaneTest
class WatchExpiredIT {
  private static final Duration DOWNTIME = Duration.ofSeconds(3);

  @Test
  void aWatchThatFailsWith410GoneReListsAndLosesNothing(KubernetesClient client, ControlPlane controlPlane) throws InterruptedException {
    String namespace = client.getNamespace();
    // Closed in reverse order, whatever happens: the controller, then the monitor, then the cloud.
    try (FaultScenario scenario = new FaultScenario(client, controlPlane.client());
        Invariants invariants = Invariants.watch(controlPlane.client(), namespace);
        ControllerProcess controller = ControllerProcess.start(client.getConfiguration(), scenario.cloud,
            ControllerProcess.options(namespace).withLeaderElection(false, "karpenter-leader-election", namespace))) {
      scenario.pool("{consolidateAfter: Never}");
      provisionAfterTheWatchesExpire(client, controlPlane, scenario, invariants, controller);
    }
  }

  private static void provisionAfterTheWatchesExpire(KubernetesClient client, ControlPlane controlPlane, FaultScenario scenario,
      Invariants invariants, ControllerProcess controller) {
    String namespace = client.getNamespace();
    scenario.deployment("old", 1, "1", false);
    // Settled only once the Deployment's pod exists: a namespace without pods is settled at once.
    scenario.awaitRunning("old", 1);
    invariants.awaitSettled(TIMEOUT, List.of(namespace));
    List<NodeClaim> claims = scenario.nodeClaims();
    assertThat(claims).as("one NodeClaim for the old pod before the cut").hasSize(1);
    String oldNode = claims.get(0).getStatus().getNodeName();

    controller.proxy.partition(true);
    // Changes the controller cannot see: the pod it had cached on oldNode goes away, and four pods of
    // the same shape, each needing a node of its own, arrive. kube-scheduler (not behind the proxy)
    // puts one of them on oldNode, now free; three stay pending.
    client.apps().deployments().withName("old").delete();
    until(() -> client.pods().withLabel("app", "old").list().getItems().isEmpty());
    scenario.deployment("burst", 4, "1", true);
    until(() -> {
      List<Pod> pods = scenario.pods("burst");
      return pods.size() == 4 && pods.stream().filter(p -> oldNode.equals(p.getSpec().getNodeName())).count() == 1;
    });
    long revision = controlPlane.compactEtcd();
    controlPlane.restart("kube-apiserver", DOWNTIME);
    long goneBefore = controller.proxy.gone();
    controller.proxy.partition(false);

    until(() -> controller.proxy.gone() > goneBefore);
    System.out.printf("etcd compacted at revision %d; 410 Gone answers relayed to the controller: %d%n", revision, controller.proxy.gone());
    invariants.awaitSettled(TIMEOUT, List.of(namespace));
    assertThat(revision).isPositive();
    assertThat(scenario.pods("burst")).hasSize(4);
    assertThat(invariants.nodeClaimsSeen()).as("the old node reused by one pod, one new NodeClaim for each of the other three").isEqualTo(4);
    assertThat(scenario.nodeClaims()).hasSize(4);
    assertThat(scenario.emptyNodes()).isEmpty();
  }
}
