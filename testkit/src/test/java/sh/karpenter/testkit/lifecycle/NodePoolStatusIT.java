package sh.karpenter.testkit.lifecycle;

import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.prometheus.client.CollectorRegistry;
import java.time.Instant;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.ConditionTypes;
import sh.karpenter.api.v1.Conditions;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.nodepool.NodePoolCounter;
import sh.karpenter.controller.nodepool.NodePoolReadiness;
import sh.karpenter.controller.nodepool.NodePoolValidation;
import sh.karpenter.controller.runtime.EventRecorder;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.controlplane.KwokNodes;
import sh.karpenter.testkit.fixtures.NodePoolYaml;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/** The NodePool status controllers against a real API server. */
@ControlPlaneTest
class NodePoolStatusIT {

  private KubernetesClient client;
  private Informers informers;
  private TestingEventRecorder events;
  private NodePoolValidation validation;
  private NodePoolReadiness readiness;
  private NodePoolCounter counter;

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    informers = SyncedInformers.start(new Informers(client));
    TestingClock clock = new TestingClock(Instant.now());
    Metrics metrics = new Metrics(new CollectorRegistry());
    events = new TestingEventRecorder(clock);
    validation = new NodePoolValidation(client, informers, clock, events, metrics);
    readiness = new NodePoolReadiness(client, informers, clock, metrics);
    counter = new NodePoolCounter(client, informers, clock, metrics);
  }

  @AfterEach
  void stop() {
    informers.close();
  }

  @Test
  void aValidNodePoolWithAnExistingNodeClassIsReady() {
    TestObjects.createNodeClass(client);
    nodePool("valid", "default").create(client);

    validation.reconcile("valid");
    readiness.reconcile("valid");

    NodePool pool = get("valid");
    assertThat(condition(pool, ConditionTypes.VALIDATION_SUCCEEDED).getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(condition(pool, ConditionTypes.NODE_CLASS_READY).getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(condition(pool, ConditionTypes.READY).getStatus()).isEqualTo(Conditions.TRUE);
    assertThat(events.events()).isEmpty();

    // Nothing changed: no write.
    String resourceVersion = pool.getMetadata().getResourceVersion();
    validation.reconcile("valid");
    readiness.reconcile("valid");
    assertThat(get("valid").getMetadata().getResourceVersion()).isEqualTo(resourceVersion);
  }

  @Test
  void anInvalidNodePoolIsNotValidatedAndGetsAWarning() {
    TestObjects.createNodeClass(client);
    nodePool("invalid", "default")
        .taint("example.com/a", null, "NoSchedule")
        .startupTaint("example.com/a", null, "NoSchedule")
        .create(client);

    validation.reconcile("invalid");
    readiness.reconcile("invalid");

    NodePool pool = get("invalid");
    Condition validated = condition(pool, ConditionTypes.VALIDATION_SUCCEEDED);
    assertThat(validated.getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(validated.getReason()).isEqualTo(NodePoolValidation.VALIDATION_FAILED);
    assertThat(validated.getMessage()).contains("spec.template.spec.startupTaints[0]");
    assertThat(condition(pool, ConditionTypes.READY).getStatus()).isEqualTo(Conditions.FALSE);
    assertThat(events.events()).singleElement().satisfies(e -> {
      assertThat(e.kind()).isEqualTo("NodePool");
      assertThat(e.name()).isEqualTo("invalid");
      assertThat(e.type()).isEqualTo(EventRecorder.WARNING);
      assertThat(e.message()).contains("startupTaints[0]");
    });
  }

  @Test
  void aMissingNodeClassIsNotReady() {
    nodePool("orphan", "missing").create(client);

    validation.reconcile("orphan");
    readiness.reconcile("orphan");

    NodePool pool = get("orphan");
    assertThat(condition(pool, ConditionTypes.NODE_CLASS_READY).getReason()).isEqualTo("NodeClassNotFound");
    assertThat(condition(pool, ConditionTypes.READY).getStatus()).isEqualTo(Conditions.FALSE);
  }

  @Test
  void theCounterSumsThePoolsNodes() {
    nodePool("counted", "default").create(client);
    client.nodes().resource(new NodeBuilder(KwokNodes.node("counted-1", "4", "8Gi"))
        .editMetadata().addToLabels("karpenter.sh/nodepool", "counted").endMetadata().build()).create();
    client.nodes().resource(KwokNodes.node("unrelated", "16", "64Gi")).create();
    await().atMost(30, SECONDS).until(() -> informers.nodes().getStore().list().size() >= 2);

    counter.reconcile("counted");

    NodePool pool = get("counted");
    assertThat(pool.getStatus().getNodes()).isEqualTo(1L);
    assertThat(pool.getStatus().getResources())
        .containsEntry("cpu", new Quantity("4"))
        .containsEntry("memory", new Quantity("8Gi"))
        .containsEntry("nodes", new Quantity("1"));
  }

  /** A NodePool on the KWOKNodeClass {@code nodeClass} for amd64 nodes. */
  private static NodePoolYaml nodePool(String name, String nodeClass) {
    return NodePoolYaml.named(name).nodeClass(nodeClass).requirementIn("kubernetes.io/arch", "amd64");
  }

  private NodePool get(String name) {
    return client.resources(NodePool.class).withName(name).get();
  }

  private static Condition condition(NodePool pool, String type) {
    return Conditions.get(pool.getStatus() == null ? null : pool.getStatus().getConditions(), type).orElseThrow();
  }
}
