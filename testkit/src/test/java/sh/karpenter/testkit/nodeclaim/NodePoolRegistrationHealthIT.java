package sh.karpenter.testkit.nodeclaim;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.MINUTES;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClassSpec;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.GoDuration;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.nodepool.NodePoolReadiness;
import sh.karpenter.controller.nodepool.NodePoolValidation;
import sh.karpenter.controller.runtime.Result;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * {@code NodeRegistrationHealthy} against the real control plane: the KWOK provider launches, a
 * KWOKNodeClass's {@code nodeRegistrationDelay} of a day keeps its Nodes from registering, the
 * lifecycle's liveness deletes the NodeClaims at the 15-minute registration timeout (on a testing
 * clock), and the {@code nodepool.registrationhealth} controller resets the condition when the
 * NodeClass is fixed.
 */
@ControlPlaneTest
class NodePoolRegistrationHealthIT {
  private static final String SLOW = "slow";

  private KubernetesClient client;
  private KwokNodeClaims kwok;

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    kwok = new KwokNodeClaims(client).start();
  }

  @AfterEach
  void stop() {
    kwok.close();
  }

  @Test
  void nodesThatNeverRegisterMakeThePoolUnhealthyUntilARegistrationAfterTheFix() {
    TestObjects.createNodeClass(client, SLOW);
    setRegistrationDelay(SLOW, "24h");
    NodePool pool = kwok.createPool(NodePoolYaml.named("unhealthy").nodeClass(SLOW)
        .requirementIn(Labels.CAPACITY_TYPE, Labels.CAPACITY_TYPE_ON_DEMAND).yaml());

    new NodePoolValidation(client, kwok.informers, kwok.clock, kwok.events, kwok.metrics).reconcile("unhealthy");
    new NodePoolReadiness(client, kwok.informers, kwok.clock, kwok.metrics).reconcile("unhealthy");
    assertThat(condition("unhealthy", ConditionTypes.READY)).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo(Conditions.TRUE));

    assertThat(kwok.registrationHealth.reconcile("unhealthy")).isEqualTo(Result.requeueAfter(Duration.ofSeconds(30)));
    assertThat(healthy("unhealthy")).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo(Conditions.UNKNOWN));
    long slowGeneration = nodeClassGeneration(SLOW);
    assertThat(get("unhealthy").getStatus().getNodeClassObservedGeneration()).isEqualTo(slowGeneration);

    // One registration timeout of the four outcomes kept is not enough.
    timeOut(pool, "unhealthy-1");
    assertThat(healthy("unhealthy")).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo(Conditions.UNKNOWN));

    // A second one is: half the outcomes are failures.
    timeOut(pool, "unhealthy-2");
    Condition unhealthy = healthy("unhealthy").orElseThrow();
    assertThat(unhealthy.getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(unhealthy.getReason()).isEqualTo("RegistrationFailed");
    assertThat(unhealthy.getMessage()).isEqualTo("Failed to register node");
    // The condition is not one of Ready's dependents.
    assertThat(condition("unhealthy", ConditionTypes.READY)).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo(Conditions.TRUE));

    // Fixing the NodeClass (a new generation) resets the condition and the outcomes ...
    setRegistrationDelay(SLOW, "0s");
    kwok.registrationHealth.reconcile("unhealthy");
    assertThat(healthy("unhealthy")).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo(Conditions.UNKNOWN));
    assertThat(nodeClassGeneration(SLOW)).isGreaterThan(slowGeneration);
    assertThat(get("unhealthy").getStatus().getNodeClassObservedGeneration()).isEqualTo(nodeClassGeneration(SLOW));

    // ... and the next NodeClaim that registers makes the pool healthy.
    kwok.createNodeClaim(pool, "unhealthy-3");
    kwok.initialize("unhealthy-3");
    Condition healthy = healthy("unhealthy").orElseThrow();
    assertThat(healthy.getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(healthy.getReason()).isEqualTo(ConditionTypes.NODE_REGISTRATION_HEALTHY);
  }

  @Test
  void onlyNodeClaimsThePoolOwnsCount() {
    NodePool pool = kwok.createPool(NodePoolYaml.named("steady").yaml());
    kwok.registrationHealth.reconcile("steady");
    kwok.createNodeClaim(pool, "steady-1");
    kwok.initialize("steady-1");
    assertThat(healthy("steady")).hasValueSatisfying(c -> assertThat(c.getStatus()).isEqualTo(Conditions.TRUE));

    // A NodeClaim labelled with the pool but not owned by it (left from an older pool of the same name) does not count.
    kwok.createNodeClaim(pool, "steady-foreign");
    client.resources(NodeClaim.class).withName("steady-foreign").edit(c -> {
      c.getMetadata().setOwnerReferences(null);
      return c;
    });
    kwok.awaitCached("steady-foreign", c -> c.getMetadata().getOwnerReferences() == null || c.getMetadata().getOwnerReferences().isEmpty());
    String resourceVersion = get("steady").getMetadata().getResourceVersion();
    kwok.initialize("steady-foreign");
    assertThat(get("steady").getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
  }

  @Test
  void unmanagedNodePoolsAndMissingNodeClassesAreLeftAlone() {
    kwok.createPool(NodePoolYaml.named("unmanaged").nodeClassRef("karpenter.test.sh", "UnmanagedNodeClass", "default").yaml());
    kwok.createPool(NodePoolYaml.named("orphan").nodeClass("missing").yaml());

    assertThat(kwok.registrationHealth.reconcile("unmanaged")).isEqualTo(Result.done());
    kwok.registrationHealth.reconcile("orphan");

    assertThat(healthy("unmanaged")).isEmpty();
    assertThat(healthy("orphan")).isEmpty();
  }

  /** Launches a NodeClaim of {@code pool} whose Node never registers, and runs liveness past the registration timeout. */
  private void timeOut(NodePool pool, String name) {
    kwok.createNodeClaim(pool, name);
    kwok.launch(name);
    kwok.clock.step(Duration.ofMinutes(15));
    lifecycleUntil(name, claim -> claim == null || claim.getMetadata().getDeletionTimestamp() != null);
    // Finalization terminates the instance and drops the finalizer.
    lifecycleUntil(name, Objects::isNull);
  }

  private void lifecycleUntil(String name, Predicate<NodeClaim> done) {
    await().atMost(1, MINUTES).pollInterval(200, MILLISECONDS).until(() -> {
      kwok.lifecycle.reconcile(name);
      return done.test(kwok.get(name));
    });
  }

  private void setRegistrationDelay(String nodeClass, String delay) {
    client.resources(KWOKNodeClass.class).withName(nodeClass).edit(c -> {
      if (c.getSpec() == null) {
        c.setSpec(new KWOKNodeClassSpec());
      }
      c.getSpec().setNodeRegistrationDelay(GoDuration.parse(delay));
      return c;
    });
  }

  private long nodeClassGeneration(String name) {
    return client.resources(KWOKNodeClass.class).withName(name).get().getMetadata().getGeneration();
  }

  private NodePool get(String name) {
    return client.resources(NodePool.class).withName(name).get();
  }

  private Optional<Condition> healthy(String pool) {
    return condition(pool, ConditionTypes.NODE_REGISTRATION_HEALTHY);
  }

  private Optional<Condition> condition(String pool, String type) {
    NodePool stored = get(pool);
    return Conditions.get(stored.getStatus() == null ? null : stored.getStatus().getConditions(), type);
  }
}
