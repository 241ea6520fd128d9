package sh.karpenter.controller.nodepool;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.api.v1.ConditionTypes.NODE_REGISTRATION_HEALTHY;
import static sh.karpenter.api.v1.ConditionTypes.READY;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.state.nodepoolhealth.NodePoolHealth;
import sh.karpenter.controller.state.nodepoolhealth.Status;

/**
 * Upstream's registrationhealth suite on the controller's change to a NodePool, and the lifecycle's
 * outcomes (upstream lifecycle's updateNodePoolRegistrationHealth). Unmanaged NodePools and missing
 * NodeClasses, which need the API server, are in NodePoolRegistrationHealthIT.
 */
class NodePoolRegistrationHealthTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  private static final String UID = "0a0b";
  private static final Instant NOW = Instant.parse("2026-01-01T01:00:00Z");
  private static final String EARLIER = "2026-01-01T00:00:00Z";

  private final NodePoolHealth health = new NodePoolHealth();

  /** A stored NodePool at {@code generation} with {@code status} (YAML flow mapping entries). */
  private static NodePool pool(long generation, String status) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: default, uid: %s, generation: %d}
        spec:
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              requirements: []
        status: {%s}
        """.formatted(UID, generation, status), NodePool.class);
  }

  /**
   * The pool's conditions: Ready and its dependents True, NodeRegistrationHealthy {@code healthy}, all
   * observed at {@code observed}.
   */
  private static String conditions(String healthy, long observed) {
    return """
        conditions: [
          {type: Ready, status: 'True', reason: Ready, lastTransitionTime: '%1$s', observedGeneration: %3$d},
          {type: ValidationSucceeded, status: 'True', reason: ValidationSucceeded, lastTransitionTime: '%1$s', observedGeneration: %3$d},
          {type: NodeClassReady, status: 'True', reason: NodeClassReady, lastTransitionTime: '%1$s', observedGeneration: %3$d},
          {type: NodeRegistrationHealthy, status: '%2$s', reason: unhealthy, message: unhealthy, lastTransitionTime: '%1$s', observedGeneration: %3$d}]
        """.formatted(EARLIER, healthy, observed);
  }

  private static NodeClaim nodeClaim(String ownerUid, String launched) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata:
          name: default-x
          labels: {karpenter.sh/nodepool: default}
          ownerReferences: [{apiVersion: karpenter.sh/v1, kind: NodePool, name: default, uid: %s}]
        spec: {}
        status:
          conditions: [%s]
        """.formatted(ownerUid, launched), NodeClaim.class);
  }

  private static final String LAUNCHED =
      "{type: Launched, status: 'True', reason: Launched, lastTransitionTime: '" + EARLIER + "'}";
  private static final String LAUNCH_FAILED =
      "{type: Launched, status: 'False', reason: LaunchFailed, message: 'no subnets', lastTransitionTime: '" + EARLIER + "'}";

  private static Condition condition(NodePool pool, String type) {
    return Conditions.get(pool.getStatus().getConditions(), type).orElse(null);
  }

  /** What the lifecycle does for one outcome, without the API server. */
  private void record(NodePool pool, NodeClaim nodeClaim, boolean registered) {
    NodePoolRegistrationHealth.outcome(pool, nodeClaim, registered, health.dryRun(UID, registered), NOW);
    health.update(UID, registered);
  }

  @Test
  void aNodePoolWithoutTheConditionGetsItUnknown() {
    NodePool pool = pool(1, "");

    NodePoolRegistrationHealth.observe(pool, 1, health, NOW);

    Condition healthy = condition(pool, NODE_REGISTRATION_HEALTHY);
    assertThat(healthy.getStatus()).isEqualTo(Conditions.UNKNOWN);
    assertThat(healthy.getReason()).isEqualTo("AwaitingReconciliation");
    assertThat(healthy.getObservedGeneration()).isEqualTo(1L);
    assertThat(pool.getStatus().getNodeClassObservedGeneration()).isEqualTo(1L);
    assertThat(health.status(UID)).isEqualTo(Status.UNKNOWN);
  }

  @Test
  void aChangedNodeClassResetsTheConditionAndTheOutcomes() {
    NodePool pool = pool(1, "nodeClassObservedGeneration: 1, " + conditions("False", 1));

    NodePoolRegistrationHealth.observe(pool, 2, health, NOW);

    assertThat(condition(pool, NODE_REGISTRATION_HEALTHY).getStatus()).isEqualTo(Conditions.UNKNOWN);
    assertThat(pool.getStatus().getNodeClassObservedGeneration()).isEqualTo(2L);
    assertThat(health.status(UID)).isEqualTo(Status.UNKNOWN);
  }

  @Test
  void aChangedNodePoolResetsTheConditionAndTheOutcomes() {
    NodePool pool = pool(2, "nodeClassObservedGeneration: 1, " + conditions("False", 1));

    NodePoolRegistrationHealth.observe(pool, 1, health, NOW);

    assertThat(condition(pool, NODE_REGISTRATION_HEALTHY).getStatus()).isEqualTo(Conditions.UNKNOWN);
    assertThat(condition(pool, NODE_REGISTRATION_HEALTHY).getObservedGeneration()).isEqualTo(2L);
    assertThat(health.status(UID)).isEqualTo(Status.UNKNOWN);
  }

  @Test
  void aTrueConditionStaysAndRecreatesHealthyOutcomes() {
    NodePool pool = pool(1, "nodeClassObservedGeneration: 1, " + conditions("True", 1));
    String before = SERIALIZATION.asJson(pool.getStatus());

    NodePoolRegistrationHealth.observe(pool, 1, health, NOW);

    assertThat(SERIALIZATION.asJson(pool.getStatus())).isEqualTo(before);
    assertThat(health.status(UID)).isEqualTo(Status.HEALTHY);
  }

  @Test
  void aFalseConditionStaysAndRecreatesUnhealthyOutcomes() {
    NodePool pool = pool(1, "nodeClassObservedGeneration: 1, " + conditions("False", 1));

    NodePoolRegistrationHealth.observe(pool, 1, health, NOW);

    assertThat(condition(pool, NODE_REGISTRATION_HEALTHY).getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(health.status(UID)).isEqualTo(Status.UNHEALTHY);
  }

  @Test
  void recordedOutcomesAreNotOverwrittenByTheCondition() {
    health.update(UID, true);
    NodePool pool = pool(1, "nodeClassObservedGeneration: 1, " + conditions("False", 1));

    NodePoolRegistrationHealth.observe(pool, 1, health, NOW);

    assertThat(health.status(UID)).isEqualTo(Status.HEALTHY);
  }

  @Test
  void aRegistrationMakesAnUnknownPoolHealthy() {
    NodePool pool = pool(1, conditions("Unknown", 1));

    record(pool, nodeClaim(UID, LAUNCHED), true);

    Condition healthy = condition(pool, NODE_REGISTRATION_HEALTHY);
    assertThat(healthy.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(healthy.getReason()).isEqualTo(NODE_REGISTRATION_HEALTHY);
    assertThat(healthy.getLastTransitionTime()).isEqualTo(NOW.toString());
    assertThat(health.status(UID)).isEqualTo(Status.HEALTHY);
  }

  @Test
  void oneFailureLeavesAnUnknownPoolUnknown() {
    NodePool pool = pool(1, conditions("Unknown", 1));

    record(pool, nodeClaim(UID, LAUNCHED), false);

    assertThat(condition(pool, NODE_REGISTRATION_HEALTHY).getStatus()).isEqualTo(Conditions.UNKNOWN);
    assertThat(health.status(UID)).isEqualTo(Status.HEALTHY);
  }

  @Test
  void twoRegistrationFailuresMakeThePoolUnhealthy() {
    NodePool pool = pool(1, conditions("True", 1));
    health.setStatus(UID, Status.HEALTHY);

    record(pool, nodeClaim(UID, LAUNCHED), false);
    assertThat(condition(pool, NODE_REGISTRATION_HEALTHY).getStatus()).isEqualTo(Conditions.TRUE);

    record(pool, nodeClaim(UID, LAUNCHED), false);
    Condition healthy = condition(pool, NODE_REGISTRATION_HEALTHY);
    assertThat(healthy.getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(healthy.getReason()).isEqualTo("RegistrationFailed");
    assertThat(healthy.getMessage()).isEqualTo("Failed to register node");
  }

  @Test
  void launchFailuresCarryTheLaunchReason() {
    NodePool pool = pool(1, conditions("Unknown", 1));

    record(pool, nodeClaim(UID, LAUNCH_FAILED), false);
    record(pool, nodeClaim(UID, LAUNCH_FAILED), false);

    Condition healthy = condition(pool, NODE_REGISTRATION_HEALTHY);
    assertThat(healthy.getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(healthy.getReason()).isEqualTo("LaunchFailed");
    assertThat(healthy.getMessage()).isEqualTo("no subnets");
  }

  @Test
  void aFalseConditionIsNotRewrittenByFurtherFailures() {
    NodePool pool = pool(1, conditions("False", 1));
    health.setStatus(UID, Status.UNHEALTHY);

    record(pool, nodeClaim(UID, LAUNCH_FAILED), false);

    Condition healthy = condition(pool, NODE_REGISTRATION_HEALTHY);
    assertThat(healthy.getReason()).isEqualTo("unhealthy");
    assertThat(healthy.getLastTransitionTime()).isEqualTo(EARLIER);
  }

  @Test
  void anUnhealthyPoolNeedsThreeRegistrationsToRecover() {
    NodePool pool = pool(1, conditions("False", 1));
    health.setStatus(UID, Status.UNHEALTHY);

    record(pool, nodeClaim(UID, LAUNCHED), true);
    record(pool, nodeClaim(UID, LAUNCHED), true);
    assertThat(condition(pool, NODE_REGISTRATION_HEALTHY).getStatus()).isEqualTo(Conditions.FALSE);

    record(pool, nodeClaim(UID, LAUNCHED), true);
    assertThat(condition(pool, NODE_REGISTRATION_HEALTHY).getStatus()).isEqualTo(Conditions.TRUE);
  }

  @Test
  void theConditionDoesNotChangeReady() {
    NodePool pool = pool(1, conditions("True", 1));
    health.setStatus(UID, Status.UNHEALTHY);

    record(pool, nodeClaim(UID, LAUNCHED), false);

    assertThat(condition(pool, NODE_REGISTRATION_HEALTHY).getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(condition(pool, READY).getStatus()).isEqualTo(Conditions.TRUE);
  }

  @Test
  void onlyNodeClaimsThePoolOwnsCount() {
    NodePool pool = pool(1, "");
    assertThat(NodePoolRegistrationHealth.ownedBy(nodeClaim(UID, LAUNCHED), pool)).isTrue();
    assertThat(NodePoolRegistrationHealth.ownedBy(nodeClaim("an-older-pool-of-the-same-name", LAUNCHED), pool)).isFalse();
    NodeClaim orphan = nodeClaim(UID, LAUNCHED);
    orphan.getMetadata().setOwnerReferences(null);
    assertThat(NodePoolRegistrationHealth.ownedBy(orphan, pool)).isFalse();
  }
}
