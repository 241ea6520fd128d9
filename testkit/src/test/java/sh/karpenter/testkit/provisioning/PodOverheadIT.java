package sh.karpenter.testkit.provisioning;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.LimitRange;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.metrics.Metrics;
import sh.karpenter.controller.operator.options.Options;
import sh.karpenter.controller.provisioning.Batcher;
import sh.karpenter.controller.provisioning.PodTrigger;
import sh.karpenter.controller.provisioning.Provisioner;
import sh.karpenter.controller.runtime.Informers;
import sh.karpenter.controller.runtime.TestingEventRecorder;
import sh.karpenter.controller.runtime.TestingEventRecorder.RecordedEvent;
import sh.karpenter.controller.state.ClusterState;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.clock.TestingClock;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;
import sh.karpenter.testkit.controlplane.ControlPlaneTest;
import sh.karpenter.testkit.controlplane.KwokNodes;
import sh.karpenter.testkit.fixtures.SyncedInformers;
import sh.karpenter.testkit.fixtures.TestObjects;

/**
 * What a new node must hold besides its pods, read from the cluster as upstream reads it: a
 * DaemonSet's overhead is its live pod's requests (kube-controller-manager's DaemonSet controller
 * creates the pod, the LimitRanger admission plugin gives it requests its template lacks, KWOK runs
 * it), and a RuntimeClass's overhead counts for a DaemonSet template that names it. The NodeClaim's
 * {@code spec.resources.requests} (pods plus DaemonSet overhead) shows which was used.
 */
@ControlPlaneTest
class PodOverheadIT {
  private static final Duration WAIT = Duration.ofMinutes(2);
  private static final String POOL = """
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: general}
      spec:
        template:
          spec:
            nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
            requirements:
              - {key: kubernetes.io/arch, operator: In, values: [amd64]}
              - {key: karpenter.sh/capacity-type, operator: In, values: [on-demand]}
      """;

  private final TestingClock clock = new TestingClock();
  private final TestingEventRecorder recorder = new TestingEventRecorder(clock);
  private final Options options = Options.defaults();
  private final List<String> runtimeClasses = new ArrayList<>();
  private Informers informers;
  private PodTrigger podTrigger;
  private Provisioner provisioner;
  private KubernetesClient client;

  @BeforeEach
  void start(KubernetesClient client) {
    this.client = client;
    informers = new Informers(client);
    var cloudProvider = new TestingCloudProvider(FakeInstanceTypes.instanceTypes(10));
    ClusterState state = new ClusterState(informers, clock, ClusterState.instanceTypesOf(cloudProvider), options);
    Batcher batcher = new Batcher(clock, options);
    podTrigger = new PodTrigger(batcher, state);
    podTrigger.register(informers);
    provisioner = new Provisioner(client, state, batcher, recorder, Metrics.noop(), clock, options);
    SyncedInformers.start(informers);
    TestObjects.markReady(client, client.resources(NodePool.class).resource(TestObjects.yaml(client, NodePool.class, POOL)).create());
    SyncedInformers.awaitReadyNodePools(informers, 1);
  }

  @AfterEach
  void stop() {
    if (informers != null) {
      informers.close();
    }
    runtimeClasses.forEach(name -> client.resources(RuntimeClass.class).withName(name).delete());
  }

  private RuntimeClass createRuntimeClass(String prefix, String overheadCpu) {
    String name = prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    runtimeClasses.add(name);
    return client.resources(RuntimeClass.class).resource(TestObjects.yaml(client, RuntimeClass.class, """
        apiVersion: node.k8s.io/v1
        kind: RuntimeClass
        metadata: {name: %s}
        handler: %s
        overhead: {podFixed: {cpu: "%s"}}
        """.formatted(name, prefix, overheadCpu))).create();
  }

  /** A DaemonSet of pause pods tolerating every taint, asking for 64Mi and no CPU, shaped by {@code spec}. */
  private DaemonSet createDaemonSet(String name, String extraSpec) {
    return client.apps().daemonSets().resource(TestObjects.yaml(client, DaemonSet.class, """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: %1$s}
        spec:
          selector: {matchLabels: {app: %1$s}}
          template:
            metadata: {labels: {app: %1$s}}
            spec:
              %2$s
              terminationGracePeriodSeconds: 0
              tolerations: [{operator: Exists}]
              containers: [{name: main, image: %3$s, resources: {requests: {memory: 64Mi}}}]
        """.formatted(name, extraSpec, TestObjects.PAUSE_IMAGE))).create();
  }

  private Pod createPod(String name, String cpu) {
    return client.pods().resource(new PodBuilder(TestObjects.pausePod(name, "report", cpu, "256Mi")).build()).create();
  }

  /** Closes the batch window and runs one provisioning pass once kube-scheduler gave up on {@code pods} pods. */
  private void provision(int pods) throws InterruptedException {
    await().atMost(WAIT).until(() -> podTrigger.provisionablePods() == pods);
    clock.step(options.batchMaxDuration());
    provisioner.reconcile();
  }

  private NodeClaim onlyNodeClaim() {
    List<NodeClaim> claims = client.resources(NodeClaim.class).list().getItems();
    assertThat(claims).hasSize(1);
    return claims.getFirst();
  }

  @Test
  void aDaemonSetsOverheadIsItsLivePodsRequestsNotItsTemplates() throws Exception {
    // Containers without a CPU request get 2 CPUs at admission: the DaemonSet's template asks for none.
    client.resources(LimitRange.class).resource(TestObjects.yaml(client, LimitRange.class, """
        apiVersion: v1
        kind: LimitRange
        metadata: {name: cpu-defaults}
        spec:
          limits: [{type: Container, defaultRequest: {cpu: "2"}}]
        """)).create();
    Node infra = new NodeBuilder(KwokNodes.node("infra-1", "16", "64Gi"))
        .editOrNewSpec().addNewTaint().withKey("dedicated").withValue("infra").withEffect("NoSchedule").endTaint().endSpec()
        .build();
    client.nodes().resource(infra).create();
    createDaemonSet("node-agent", "");
    await().atMost(WAIT).until(() -> informers.pods().getStore().list().stream()
        .anyMatch(p -> p.getMetadata().getName().startsWith("node-agent-") && "infra-1".equals(p.getSpec().getNodeName())));
    Pod agent = informers.pods().getStore().list().stream().filter(p -> p.getMetadata().getName().startsWith("node-agent-")).findFirst().orElseThrow();
    assertThat(agent.getSpec().getContainers().getFirst().getResources().getRequests()).containsEntry("cpu", new Quantity("2"));

    createPod("report", "1"); // does not tolerate infra-1's taint
    provision(1);

    NodeClaim claim = onlyNodeClaim();
    // 1 CPU of the pod and 2 of the agent's live pod; the template alone would add none.
    assertThat(claim.getSpec().getResources().getRequests()).containsEntry("cpu", new Quantity("3"));
    assertThat(claim.getSpec().getRequirements().stream().filter(r -> r.getKey().equals("node.kubernetes.io/instance-type")).findFirst().orElseThrow().getValues())
        .as("types with at least 3 CPUs allocatable").doesNotContain("fake-it-0", "fake-it-1", "fake-it-2").isNotEmpty();
  }

  @Test
  void aRuntimeClassAddsItsOverheadToATemplateAndAPodNamingAMissingOneIsRejected() throws Exception {
    RuntimeClass kata = createRuntimeClass("kata", "1");
    // Runs only on nodes of the NodePool, none of which exist yet: its template is all there is.
    createDaemonSet("sandboxed-agent", "runtimeClassName: " + kata.getMetadata().getName() + "\n      nodeSelector: {karpenter.sh/nodepool: general}");
    RuntimeClass doomed = createRuntimeClass("doomed", "1");
    client.pods().resource(new PodBuilder(TestObjects.pausePod("orphan", "orphan", "1", "256Mi"))
        .editSpec().withRuntimeClassName(doomed.getMetadata().getName()).endSpec().build()).create();
    client.resources(RuntimeClass.class).withName(doomed.getMetadata().getName()).delete();
    await().atMost(WAIT).until(() -> informers.runtimeClasses().getStore().list().stream()
        .noneMatch(r -> r.getMetadata().getName().equals(doomed.getMetadata().getName())));
    createPod("report", "1");

    provision(2);

    NodeClaim claim = onlyNodeClaim();
    // 1 CPU of the pod and the sandboxed agent's 1 CPU of Kata overhead (its template requests no CPU).
    assertThat(claim.getSpec().getResources().getRequests()).containsEntry("cpu", new Quantity("2"));
    assertThat(recorder.events().stream().filter(e -> e.reason().equals(Provisioner.FAILED_SCHEDULING)).toList())
        .singleElement()
        .satisfies(event -> {
          assertThat(event.name()).isEqualTo("orphan");
          assertThat(event.message()).isEqualTo("Failed to schedule pod, RuntimeClass \"" + doomed.getMetadata().getName()
              + "\" not found: kube-apiserver refuses to create a pod naming it and no node can run it");
        });
    assertThat(recorder.forObject("report")).extracting(RecordedEvent::reason).containsExactly(Provisioner.NOMINATED);
  }
}
