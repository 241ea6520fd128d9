package sh.karpenter.testkit.reliability;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.testkit.reliability.FaultScenario.TIMEOUT;
import static sh.karpenter.testkit.reliability.FaultScenario.until;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.wellknown.Annotations;
import sh.karpenter.testkit.controlplane.ControlPlane;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * {@code kill -9} of the controller at each step of a NodeClaim's life, then a fresh controller
 * (RELIABILITY.md#control-plane-faults): the fresh one waits out the dead leader's Lease, picks up
 * where the cluster's objects stand, and the invariant monitor sees no PodDisruptionBudget,
 * do-not-disrupt or budget violation, no leak and no second launch for the same pods.
 */
@ControlPlaneTest
class ControllerKillIT {
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

  private ControllerProcess controller(KubernetesClient client, int holdLaunchesFrom) {
    return track(ControllerProcess.start(client.getConfiguration(), scenario.cloud, ControllerProcess.options(client.getNamespace()),
        holdLaunchesFrom));
  }

  @AfterEach
  void stop() throws Exception {
    for (AutoCloseable closeable : running.reversed()) {
      closeable.close();
    }
    running.clear();
  }

  @Test
  void killedAfterCreatingNodeClaimsBeforeLaunchingThem(KubernetesClient client, ControlPlane controlPlane) throws Exception {
    begin(client, controlPlane);
    scenario.pool("{consolidateAfter: Never}");
    ControllerProcess first = controller(client, 1);
    scenario.deployment("burst", 3, "1", true);

    assertThat(first.gate.awaitHeld(TIMEOUT)).isTrue();
    until(() -> scenario.nodeClaims().size() == 3);
    first.kill();
    assertThat(scenario.cloud.list()).as("nothing reached the cloud").isEmpty();

    controller(client, Integer.MAX_VALUE);
    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(invariants.nodeClaimsSeen()).as("the fresh controller launched the dead one's NodeClaims, made none of its own").isEqualTo(3);
    assertThat(scenario.emptyNodes()).isEmpty();
  }

  @Test
  void killedAfterLaunchBeforeRegistration(KubernetesClient client, ControlPlane controlPlane) {
    begin(client, controlPlane);
    // The cloud's Nodes come up 8 s after launch: time to kill the controller in between.
    scenario.pool("{consolidateAfter: Never}", "8s");
    ControllerProcess first = controller(client, Integer.MAX_VALUE);
    scenario.deployment("burst", 3, "1", true);

    until(() -> {
      List<NodeClaim> claims = scenario.nodeClaims();
      return claims.size() == 3 && claims.stream().allMatch(c -> c.getStatus() != null
          && Conditions.isTrue(c.getStatus().getConditions(), ConditionTypes.LAUNCHED));
    });
    first.kill();
    assertThat(scenario.nodeClaims()).noneMatch(c -> Conditions.isTrue(c.getStatus().getConditions(), ConditionTypes.REGISTERED));

    controller(client, Integer.MAX_VALUE);
    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(invariants.nodeClaimsSeen()).isEqualTo(3);
    assertThat(scenario.cloud.list()).hasSize(3);
    assertThat(scenario.emptyNodes()).isEmpty();
  }

  /**
   * The cloud made the instances, and the controller is killed before any NodeClaim records them. The
   * fresh controller launches the NodeClaims again (as upstream, a launch does not look for an
   * earlier instance of its NodeClaim); the first instances are leaked until garbage collection has
   * seen them unreferenced on two passes a period apart and terminates them. The period is 15 s here
   * instead of upstream's 2 minutes, to fit the suite's budget.
   */
  @Test
  void killedAfterTheCloudLaunchedBeforeTheNodeClaimsRecordedIt(KubernetesClient client, ControlPlane controlPlane) throws Exception {
    begin(client, controlPlane);
    scenario.pool("{consolidateAfter: Never}");
    ControllerProcess first = controller(client, Integer.MAX_VALUE);
    first.gate.holdAnswersFrom(1);
    scenario.deployment("burst", 3, "1", true);

    assertThat(first.gate.awaitHeld(TIMEOUT)).isTrue();
    until(() -> scenario.cloud.list().size() == 3);
    first.kill();
    List<String> orphans = scenario.cloud.list().stream().map(Instance::providerId).toList();
    assertThat(scenario.nodeClaims()).hasSize(3).allSatisfy(c -> assertThat(c.getStatus() == null ? null : c.getStatus().getProviderID())
        .as("no NodeClaim recorded its instance").isNullOrEmpty());

    track(ControllerProcess.start(client.getConfiguration(), scenario.cloud,
        ControllerProcess.options(client.getNamespace()).withGarbageCollectionPeriod(Duration.ofSeconds(15))));
    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(invariants.nodeClaimsSeen()).as("the fresh controller launched the dead one's NodeClaims, made none of its own").isEqualTo(3);
    assertThat(scenario.cloud.list()).as("the orphaned instances were terminated, one per NodeClaim is left").hasSize(3)
        .extracting(Instance::providerId).doesNotContainAnyElementsOf(orphans);
    assertThat(scenario.emptyNodes()).isEmpty();
  }

  @Test
  void killedAfterCreatingAConsolidationReplacementBeforeDeletingTheCandidate(KubernetesClient client, ControlPlane controlPlane)
      throws Exception {
    begin(client, controlPlane);
    scenario.consolidationPool();
    ControllerProcess first = controller(client, Integer.MAX_VALUE);
    String candidate = scenario.oneLargeNode();

    first.gate.holdNextLaunches();
    scenario.shrink();
    assertThat(first.gate.awaitHeld(TIMEOUT)).isTrue();
    until(() -> FaultScenario.tainted(client.nodes().withName(candidate).get()));
    first.kill();

    controller(client, Integer.MAX_VALUE);
    // The fresh controller launches the orphaned replacement, untaints the candidate, and consolidation
    // converges again: one node, cheaper than the candidate, no empty node left over.
    until(() -> scenario.emptyNodes().isEmpty() && client.nodes().withName(candidate).get() == null);
    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(scenario.pods("web")).hasSize(1);
    assertThat(client.nodes().list().getItems()).hasSize(1);
  }

  /**
   * Two controllers with leader election; the leader's network (API server and cloud) is cut while
   * its launches are in flight. It must stop acting the instant its Lease is lost: {@code karpenter
   * controller} halts its process then ({@code Operator.onLeadershipLost}), which here is {@link
   * ControllerProcess#kill}. Before that, reconciles the partition held resumed once it healed and
   * launched every NodeClaim a second time beside the new leader (RELIABILITY.md).
   */
  @Test
  void aPartitionedLeaderStopsActingAndTheOtherTakesOver(KubernetesClient client, ControlPlane controlPlane) throws Exception {
    begin(client, controlPlane);
    scenario.pool("{consolidateAfter: Never}");
    ControllerProcess first = controller(client, 1);
    first.operator.onLeadershipLost(first::kill);
    until(first.operator::isLeader);
    ControllerProcess second = controller(client, Integer.MAX_VALUE);
    scenario.deployment("burst", 4, "1", true);

    assertThat(first.gate.awaitHeld(TIMEOUT)).isTrue();
    until(() -> scenario.nodeClaims().size() == 4);
    first.partition(true);
    // the held launches go on into the partition, and their reconciles retry behind it
    first.gate.release();
    until(second.operator::isLeader);
    assertThat(first.operator.leadershipWasLost()).isTrue();
    first.partition(false);

    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(invariants.nodeClaimsSeen()).as("the new leader launched the deposed one's NodeClaims and made none of its own").isEqualTo(4);
    assertThat(first.gate.launched()).as("launches of the deposed leader that reached the cloud").isZero();
    assertThat(scenario.cloud.list()).as("one instance per NodeClaim").hasSize(4);
    assertThat(scenario.emptyNodes()).isEmpty();
  }

  @Test
  void killedInTheMiddleOfADrain(KubernetesClient client, ControlPlane controlPlane) {
    begin(client, controlPlane);
    scenario.pool("{consolidateAfter: Never}");
    controller(client, Integer.MAX_VALUE);
    scenario.deployment("web", 3, "200m", false);
    scenario.pdb("web", 1);
    scenario.awaitRunning("web", 3);
    Pod guarded = TestObjects.awayFrom("web", TestObjects.pausePod("guarded", "guarded", "200m", "256Mi"));
    guarded.getMetadata().setAnnotations(Map.of(Annotations.DO_NOT_DISRUPT, "true"));
    client.pods().resource(guarded).create();
    scenario.awaitRunning("guarded", 1);
    String drained = scenario.pods("web").get(0).getSpec().getNodeName();
    assertThat(scenario.pods("web")).allMatch(p -> drained.equals(p.getSpec().getNodeName()));
    ControllerProcess first = running.stream().filter(ControllerProcess.class::isInstance).map(ControllerProcess.class::cast).findFirst().orElseThrow();

    // Deleting the NodeClaim drains its node; the controller dies once the first pod is evicted.
    String claim = scenario.nodeClaims().stream().filter(c -> drained.equals(c.getStatus().getNodeName())).findFirst().orElseThrow()
        .getMetadata().getName();
    client.resources(NodeClaim.class).withName(claim).delete();
    until(() -> client.pods().withLabel("app", "web").list().getItems().stream()
        .filter(p -> drained.equals(p.getSpec().getNodeName()) && p.getMetadata().getDeletionTimestamp() == null).count() < 3);
    first.kill();
    assertThat(client.nodes().withName(drained).get()).as("the drain was cut short").isNotNull();

    controller(client, Integer.MAX_VALUE);
    invariants.awaitSettled(TIMEOUT, List.of(client.getNamespace()));
    assertThat(client.nodes().withName(drained).get()).isNull();
    assertThat(scenario.pods("web")).hasSize(3).noneMatch(p -> drained.equals(p.getSpec().getNodeName()));
    assertThat(scenario.pods("guarded")).as("the do-not-disrupt pod on another node stayed").hasSize(1);
  }
}
