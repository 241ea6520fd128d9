package sh.karpenter.testkit.reliability;

import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.List;
import java.util.function.BooleanSupplier;
import sh.karpenter.api.kwok.v1alpha1.KWOKNodeClass;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.runtime.writes.OptimisticWrites;
import sh.karpenter.core.catalog.InstanceTypeCatalog;
import sh.karpenter.core.wellknown.Labels;
import sh.karpenter.core.wellknown.TaintKeys;
import sh.karpenter.providers.kwok.KwokCloudProvider;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * The cluster a fault test works on: a KWOKNodeClass, one on-demand amd64 NodePool, Deployments of
 * pause pods, PodDisruptionBudgets, and a KWOK cloud shared by every controller the test starts (the
 * cloud outlives the controllers it kills).
 */
final class FaultScenario implements AutoCloseable {
  static final Duration TIMEOUT = Duration.ofMinutes(3);
  static final Duration POLL = Duration.ofMillis(250);

  final KubernetesClient client;
  final KwokCloudProvider cloud;

  FaultScenario(KubernetesClient client, KubernetesClient cloudClient) {
    this.client = client;
    this.cloud = new KwokCloudProvider(cloudClient, InstanceTypeCatalog.aws(), java.time.Clock.systemUTC());
  }

  /** The default KWOKNodeClass and a NodePool {@code default} with this {@code spec.disruption} (flow style). */
  FaultScenario pool(String disruption) {
    return pool(disruption, "0s");
  }

  /** As {@link #pool(String)}, with the KWOKNodeClass's {@code nodeRegistrationDelay} (a Go duration). */
  FaultScenario pool(String disruption, String registrationDelay) {
    return pool(disruption, registrationDelay, "");
  }

  /** As {@link #pool(String, String)}, with extra requirement lines (flow-style mappings, each starting "- "). */
  FaultScenario pool(String disruption, String registrationDelay, String extraRequirement) {
    client.resources(KWOKNodeClass.class).resource(TestObjects.yaml(client, KWOKNodeClass.class, """
        apiVersion: karpenter.kwok.sh/v1alpha1
        kind: KWOKNodeClass
        metadata: {name: %s}
        spec: {nodeRegistrationDelay: %s}
        """.formatted(TestObjects.DEFAULT_NODE_CLASS, registrationDelay))).create();
    client.resources(NodePool.class).resource(TestObjects.yaml(client, NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: default}
        spec:
          disruption: %s
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              expireAfter: Never
              requirements:
                - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
                - {key: kubernetes.io/os, operator: In, values: [linux]}
                - {key: kubernetes.io/arch, operator: In, values: [amd64]}
                %s
        """.formatted(disruption, extraRequirement))).create();
    return this;
  }

  /**
   * A NodePool that consolidates underused nodes at once, one node at a time, and for now allows only
   * c5.2xlarge, so that {@link #oneLargeNode} puts three pods on one large node.
   */
  FaultScenario consolidationPool() {
    return pool("{consolidationPolicy: WhenEmptyOrUnderutilized, consolidateAfter: 0s, budgets: [{nodes: \"1\"}]}", "0s",
        "- {key: node.kubernetes.io/instance-type, operator: In, values: [c5.2xlarge]}");
  }

  /** Three pods of Deployment {@code web} (PDB: one may be down) running on one node; returns its name. */
  String oneLargeNode() {
    deployment("web", 3, "1", false);
    pdb("web", 1);
    awaitRunning("web", 3);
    List<NodeClaim> claims = nodeClaims();
    if (claims.size() != 1) {
      throw new AssertionError("expected one NodeClaim for the three pods, got " + claims.size());
    }
    // The pods' node, not the NodeClaim's status.nodeName: under load the pods can run before
    // registration writes it (a run saw null here).
    return pods("web").get(0).getSpec().getNodeName();
  }

  /**
   * Allows every instance type and scales {@code web} to one pod: the survivor fits a cheaper node, so
   * consolidation replaces the large node (replacement first, then the candidate's drain).
   */
  void shrink() {
    // The edit writes at the version it read; the controller's status writes in between are a 409: read again.
    OptimisticWrites.retryOnConflict(() -> client.resources(NodePool.class).withName("default").edit(pool -> {
      pool.getSpec().getTemplate().getSpec().getRequirements().removeIf(r -> r.getKey().equals(Labels.INSTANCE_TYPE));
      return pool;
    }));
    client.apps().deployments().withName("web").scale(1);
  }

  /** Whether the node carries {@code karpenter.sh/disrupted}. */
  static boolean tainted(Node node) {
    return node != null && node.getSpec().getTaints() != null
        && node.getSpec().getTaints().stream().anyMatch(t -> TaintKeys.DISRUPTED.equals(t.getKey()));
  }

  /** A Deployment of pause pods labelled {@code app=<name>}; {@code apart} puts each on a node of its own. */
  void deployment(String name, int replicas, String cpu, boolean apart) {
    Pod pod = TestObjects.pausePod("template", name, cpu, "256Mi");
    PodSpec spec = apart ? TestObjects.awayFrom(name, pod).getSpec() : pod.getSpec();
    Deployment deployment = new DeploymentBuilder()
        .withNewMetadata().withName(name).endMetadata()
        .withNewSpec()
          .withReplicas(replicas)
          .withNewSelector().addToMatchLabels("app", name).endSelector()
          .withNewTemplate().withNewMetadata().addToLabels("app", name).endMetadata().withSpec(spec).endTemplate()
        .endSpec()
        .build();
    client.apps().deployments().resource(deployment).create();
    // Its pods come from kube-controller-manager a moment later; until they exist, a cluster with no
    // pod pending and no NodeClaim looks settled to Invariants.awaitSettled (a CI run saw it pass that
    // way and count no NodeClaim).
    until(() -> pods(name).size() == replicas);
  }

  /** A PodDisruptionBudget allowing at most {@code maxUnavailable} pods of {@code app} down. */
  void pdb(String app, int maxUnavailable) {
    client.policy().v1().podDisruptionBudget().resource(new PodDisruptionBudgetBuilder()
        .withNewMetadata().withName(app).endMetadata()
        .withNewSpec().withMaxUnavailable(new IntOrString(maxUnavailable)).withNewSelector().addToMatchLabels("app", app).endSelector().endSpec()
        .build()).create();
  }

  List<Pod> pods(String app) {
    return client.pods().withLabel("app", app).list().getItems().stream().filter(p -> p.getMetadata().getDeletionTimestamp() == null).toList();
  }

  void awaitRunning(String app, int count) {
    until(() -> {
      List<Pod> pods = pods(app);
      return pods.size() == count && pods.stream().allMatch(TestObjects::running);
    });
  }

  List<NodeClaim> nodeClaims() {
    return client.resources(NodeClaim.class).list().getItems();
  }

  /** Karpenter's Nodes that run no pod: what a second launch for the same pods leaves behind. */
  List<String> emptyNodes() {
    List<Pod> all = client.pods().inAnyNamespace().list().getItems();
    return client.nodes().list().getItems().stream()
        .filter(n -> n.getMetadata().getLabels() != null && n.getMetadata().getLabels().containsKey(Labels.NODE_POOL))
        .map(Node::getMetadata).map(m -> m.getName())
        .filter(name -> all.stream().noneMatch(p -> name.equals(p.getSpec().getNodeName())))
        .toList();
  }

  static void until(BooleanSupplier condition) {
    await().atMost(TIMEOUT).pollInterval(POLL).until(condition::getAsBoolean);
  }

  @Override
  public void close() {
    cloud.close();
  }
}
