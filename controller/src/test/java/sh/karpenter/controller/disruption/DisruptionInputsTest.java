package sh.karpenter.controller.disruption;

import static org.assertj.core.api.Assertions.assertThat;
import static sh.karpenter.controller.disruption.TestViews.claim;
import static sh.karpenter.controller.disruption.TestViews.node;
import static sh.karpenter.controller.disruption.TestViews.pod;
import static sh.karpenter.controller.disruption.TestViews.yaml;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeConditionBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.state.DisruptionView;
import sh.karpenter.core.disruption.Budget;
import sh.karpenter.core.disruption.Budgets;
import sh.karpenter.core.disruption.ConsolidationPolicy;
import sh.karpenter.core.disruption.DisruptionInput;
import sh.karpenter.core.disruption.DisruptionOptions;
import sh.karpenter.core.disruption.PodBlocker;
import sh.karpenter.core.disruption.PoolPolicy;
import sh.karpenter.core.disruption.Reason;
import sh.karpenter.core.disruption.StateNode;
import sh.karpenter.core.pod.Pod;
import sh.karpenter.core.scheduling.SchedulerOptions;

/** Cluster state becomes core's disruption input: nodes, NodePool policies and the scheduler's input. */
class DisruptionInputsTest {
  private static final Instant NOW = Instant.parse("2030-01-02T00:00:00Z");

  private static DisruptionInput input(DisruptionView view) {
    return DisruptionInputs.of(view, name -> false, SchedulerOptions.DEFAULT, NOW, DisruptionOptions.defaults(Clock.systemUTC()));
  }

  private static StateNode only(DisruptionInput input) {
    assertThat(input.nodes()).hasSize(1);
    return input.nodes().getFirst();
  }

  private static PodDisruptionBudget pdb(String name, String app, int allowed) {
    return yaml(PodDisruptionBudget.class, """
        apiVersion: policy/v1
        kind: PodDisruptionBudget
        metadata: {name: %s, namespace: default}
        spec: {selector: {matchLabels: {app: %s}}, maxUnavailable: 1}
        status: {disruptionsAllowed: %d, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1}
        """.formatted(name, app, allowed));
  }

  @Test
  void aManagedNodeCarriesItsNodeClaimsDisruptionFacts() {
    DisruptionView view = new TestViews().pool(yaml(NodePool.class, TestViews.POOL))
        .add(node("node-a", "annotations: {karpenter.sh/do-not-disrupt: \"true\"}"))
        .add(claim("claim-a", "node-a", """
            expireAfter: 24h
            terminationGracePeriod: 1h""", """
            lastPodEventTime: "2030-01-01T12:00:00Z"
            conditions:
              - {type: Consolidatable, status: "True", reason: Consolidatable, message: "", lastTransitionTime: "2030-01-01T13:00:00Z"}
              - {type: Drifted, status: "True", reason: NodePoolDrifted, message: "", lastTransitionTime: "2030-01-01T14:00:00Z"}"""))
        .nominated("node-a")
        .build();

    StateNode node = only(input(view));

    assertThat(node.name()).isEqualTo("node-a");
    assertThat(node.node()).isSameAs(view.nodes().getFirst().node());
    assertThat(node.nodeClaimName()).isEqualTo("claim-a");
    assertThat(node.nodePoolName()).isEqualTo("general");
    assertThat(node.createdAt()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
    assertThat(node.lastPodEventAt()).isEqualTo(Instant.parse("2030-01-01T12:00:00Z"));
    assertThat(node.expireAfter()).isEqualTo(Duration.ofHours(24));
    assertThat(node.consolidatable()).isTrue();
    assertThat(node.drift()).isNotNull();
    assertThat(node.drift().reason()).isEqualTo("NodePoolDrifted");
    assertThat(node.drift().since()).isEqualTo(Instant.parse("2030-01-01T14:00:00Z"));
    assertThat(node.drift().isStatic()).isTrue();
    assertThat(node.hasTerminationGracePeriod()).isTrue();
    assertThat(node.doNotDisrupt()).isTrue();
    assertThat(node.nominated()).isTrue();
    assertThat(node.deleting()).isFalse();
    assertThat(node.markedForDeletion()).isFalse();
  }

  @Test
  void aNodeClaimWithoutFactsGetsUpstreamsDefaults() {
    StateNode node = only(input(new TestViews()
        .add(node("node-a", ""))
        .add(claim("claim-a", "node-a", "", ""))
        .build()));

    assertThat(node.expireAfter()).isEqualTo(Duration.ofHours(720));
    assertThat(node.consolidatable()).isFalse();
    assertThat(node.drift()).isNull();
    assertThat(node.lastPodEventAt()).isNull();
    assertThat(node.hasTerminationGracePeriod()).isFalse();
    assertThat(node.doNotDisrupt()).isFalse();
    assertThat(node.nominated()).isFalse();
  }

  @Test
  void expireAfterNeverIsNoExpiry() {
    assertThat(only(input(new TestViews().add(node("node-a", "")).add(claim("claim-a", "node-a", "expireAfter: Never", "")).build()))
        .expireAfter()).isNull();
  }

  @Test
  void aNodeWithoutNodeClaimIsUnmanaged() {
    StateNode node = only(input(new TestViews().add(node("plain", "")).build()));

    assertThat(node.managed()).isFalse();
    assertThat(node.nodeClaimName()).isNull();
    assertThat(node.expireAfter()).isNull();
  }

  @Test
  void deletingMarkedAndQueuedNodesSaySo() {
    NodeClaim deletingClaim = claim("claim-deleting", "deleting", "", "");
    deletingClaim.getMetadata().setDeletionTimestamp("2030-01-01T00:00:00Z");
    DisruptionView view = new TestViews()
        .add(node("deleting", "deletionTimestamp: \"2030-01-01T00:00:00Z\"\nfinalizers: [karpenter.sh/termination]"))
        .add(deletingClaim)
        .add(node("terminating", "")).add(claim("claim-terminating", "terminating", "", """
            conditions:
              - {type: InstanceTerminating, status: "True", reason: InstanceTerminating, message: "", lastTransitionTime: "2030-01-01T13:00:00Z"}"""))
        // Node termination deletes the NodeClaim at once; until then the Node's deletion already counts.
        .add(node("node-only", "deletionTimestamp: \"2030-01-01T00:00:00Z\"\nfinalizers: [karpenter.sh/termination]"))
        .add(claim("claim-node-only", "node-only", "", ""))
        .add(node("unmanaged", "deletionTimestamp: \"2030-01-01T00:00:00Z\"\nfinalizers: [example.com/hold]"))
        .add(node("marked", "")).add(claim("claim-marked", "marked", "", ""))
        .add(node("queued", "")).add(claim("claim-queued", "queued", "", ""))
        .add(node("free", "")).add(claim("claim-free", "free", "", ""))
        .markedForDeletion("marked")
        .build();

    List<StateNode> nodes =
        DisruptionInputs.of(view, "claim-queued"::equals, SchedulerOptions.DEFAULT, NOW, DisruptionOptions.defaults(Clock.systemUTC())).nodes();

    assertThat(nodes)
        .extracting(StateNode::name, StateNode::deleting, StateNode::instanceTerminating, StateNode::markedForDeletion)
        .containsExactly(
            org.assertj.core.groups.Tuple.tuple("deleting", true, false, false),
            org.assertj.core.groups.Tuple.tuple("terminating", true, true, false),
            org.assertj.core.groups.Tuple.tuple("node-only", true, false, false),
            org.assertj.core.groups.Tuple.tuple("unmanaged", true, false, false),
            org.assertj.core.groups.Tuple.tuple("marked", false, false, true),
            org.assertj.core.groups.Tuple.tuple("queued", false, false, true),
            org.assertj.core.groups.Tuple.tuple("free", false, false, false));
  }

  @Test
  void aNodeIsReadyOnlyWhileItsReadyConditionIsTrue() {
    Node notReady = node("not-ready", "");
    notReady.getStatus().setConditions(List.of(new NodeConditionBuilder().withType("Ready").withStatus("False").withReason("KubeletNotReady").build()));
    Node unknown = node("unknown", "");
    unknown.getStatus().setConditions(List.of(new NodeConditionBuilder().withType("Ready").withStatus("Unknown").build()));
    Node silent = node("silent", "");
    silent.getStatus().setConditions(List.of());
    DisruptionView view = new TestViews().pool(yaml(NodePool.class, TestViews.POOL))
        .add(node("ready", "")).add(claim("claim-ready", "ready", "", ""))
        .add(notReady).add(claim("claim-not-ready", "not-ready", "", ""))
        .add(unknown).add(claim("claim-unknown", "unknown", "", ""))
        .add(silent).add(claim("claim-silent", "silent", "", ""))
        .build();

    DisruptionInput input = input(view);

    assertThat(input.nodes()).extracting(StateNode::name, StateNode::ready).containsExactly(
        org.assertj.core.groups.Tuple.tuple("ready", true),
        org.assertj.core.groups.Tuple.tuple("not-ready", false),
        org.assertj.core.groups.Tuple.tuple("unknown", false),
        org.assertj.core.groups.Tuple.tuple("silent", false));
    // The default 10% of 4 nodes allows 1; the nodes that are not Ready use it up, except for repair.
    assertThat(Budgets.remaining(input, Reason.DRIFTED)).containsEntry("general", 0);
    assertThat(Budgets.remaining(input, Reason.UNHEALTHY)).containsEntry("general", 1);
  }

  @Test
  void reschedulablePodsLeaveOutDaemonSetMirrorAndFinishedPods() {
    DisruptionView view = new TestViews()
        .add(node("node-a", "")).add(claim("claim-a", "node-a", "", ""))
        .add(pod("web", "node-a", "ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web, uid: rs}]"))
        .add(pod("agent", "node-a", "ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: ds}]"))
        .add(pod("static", "node-a", "annotations: {kubernetes.io/config.mirror: abc}"))
        .add(yaml(io.fabric8.kubernetes.api.model.Pod.class, """
            apiVersion: v1
            kind: Pod
            metadata: {name: done, namespace: default}
            spec: {nodeName: node-a, containers: [{name: main, image: pause}]}
            status: {phase: Succeeded}
            """))
        .build();

    StateNode node = only(input(view));

    assertThat(node.reschedulablePods()).extracting(Pod::key).containsExactly("default/web");
    // The very objects the scheduler sees bound to the node.
    assertThat(node.reschedulablePods().getFirst()).isSameAs(
        view.nodes().getFirst().node().pods().stream().filter(p -> p.key().equals("default/web")).findFirst().orElseThrow());
    assertThat(node.blockers()).isEmpty();
  }

  @Test
  void doNotDisruptPodsAndRestrictivePdbsBlockTheirNode() {
    DisruptionView view = new TestViews()
        .add(node("node-a", "")).add(claim("claim-a", "node-a", "", ""))
        .add(pod("pinned", "node-a", "annotations: {karpenter.sh/do-not-disrupt: \"true\"}"))
        .add(pod("guarded", "node-a", "labels: {app: guarded}"))
        .add(pod("doubly", "node-a", "labels: {app: doubly, tier: x}"))
        .add(pod("free", "node-a", "labels: {app: free}"))
        .add(pdb("guarded", "guarded", 0))
        .add(pdb("free", "free", 1))
        .add(pdb("doubly-a", "doubly", 1))
        .add(yaml(PodDisruptionBudget.class, """
            apiVersion: policy/v1
            kind: PodDisruptionBudget
            metadata: {name: doubly-b, namespace: default}
            spec: {selector: {matchLabels: {tier: x}}, maxUnavailable: 1}
            status: {disruptionsAllowed: 1, currentHealthy: 1, desiredHealthy: 1, expectedPods: 1}
            """))
        .build();

    StateNode node = only(input(view));

    assertThat(node.blockers()).extracting(PodBlocker::podKey).containsExactlyInAnyOrder("default/pinned", "default/guarded", "default/doubly");
    assertThat(node.blockers()).extracting(PodBlocker::reason).anySatisfy(r -> assertThat(r).contains("karpenter.sh/do-not-disrupt"))
        .anySatisfy(r -> assertThat(r).contains("pdb default/guarded"))
        .anySatisfy(r -> assertThat(r).contains("multiple PDBs").contains("default/doubly-a").contains("default/doubly-b"));
  }

  @Test
  void podsThatWillNotBeEvictedIgnorePdbs() {
    DisruptionView view = new TestViews()
        .add(node("node-a", "")).add(claim("claim-a", "node-a", "", ""))
        .add(yaml(io.fabric8.kubernetes.api.model.Pod.class, """
            apiVersion: v1
            kind: Pod
            metadata: {name: tolerant, namespace: default, labels: {app: guarded}}
            spec:
              nodeName: node-a
              tolerations: [{key: karpenter.sh/disrupted, operator: Exists, effect: NoSchedule}]
              containers: [{name: main, image: pause}]
            status: {phase: Running}
            """))
        .add(pod("terminating", "node-a", "labels: {app: guarded}\ndeletionTimestamp: \"2030-01-01T00:00:00Z\"\nfinalizers: [x]"))
        .add(pdb("guarded", "guarded", 0))
        .build();

    assertThat(only(input(view)).blockers()).isEmpty();
  }

  @Test
  void poolPoliciesFollowSpecDisruptionWithUpstreamsDefaults() {
    NodePool defaulted = yaml(NodePool.class, TestViews.POOL);
    NodePool custom = yaml(NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: custom}
        spec:
          disruption:
            consolidationPolicy: WhenEmpty
            consolidateAfter: 30s
            budgets:
              - {nodes: "1"}
              - {nodes: "0", schedule: "0 9 * * mon-fri", duration: 8h, reasons: [Drifted, Underutilized]}
              - {nodes: "2", reasons: [Unhealthy]}
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
        """);
    NodePool never = yaml(NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: never}
        spec:
          disruption: {consolidationPolicy: Balanced, consolidateAfter: Never}
          template:
            spec:
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
        """);

    DisruptionInput input = input(new TestViews().pool(defaulted).pool(custom).pool(never).build());

    assertThat(input.pools().get("general"))
        .isEqualTo(new PoolPolicy("general", ConsolidationPolicy.WHEN_EMPTY_OR_UNDERUTILIZED, Duration.ZERO, List.of(Budget.DEFAULT)));
    assertThat(input.pools().get("custom")).isEqualTo(new PoolPolicy("custom", ConsolidationPolicy.WHEN_EMPTY, Duration.ofSeconds(30), List.of(
        new Budget("1", null, null, null),
        new Budget("0", "0 9 * * mon-fri", Duration.ofHours(8), Set.of(Reason.DRIFTED, Reason.UNDERUTILIZED)),
        new Budget("2", null, null, Set.of(Reason.UNHEALTHY)))));
    assertThat(input.pools().get("never").policy()).isEqualTo(ConsolidationPolicy.BALANCED);
    assertThat(input.pools().get("never").consolidationEnabled()).isFalse();
  }

  @Test
  void simulationsSeeTheProvisioningSnapshotsSchedulerInput() {
    DisruptionView view = new TestViews().pool(yaml(NodePool.class, TestViews.POOL))
        .add(node("node-a", "")).add(claim("claim-a", "node-a", "", ""))
        .add(yaml(io.fabric8.kubernetes.api.model.Pod.class, """
            apiVersion: v1
            kind: Pod
            metadata: {name: pending, namespace: default}
            spec: {containers: [{name: main, image: pause}]}
            """))
        .build();

    DisruptionInput input = input(view);

    assertThat(input.scheduling().templates()).isEqualTo(view.scheduling().cluster().templates());
    assertThat(input.scheduling().pendingPods()).extracting(Pod::key).containsExactly("default/pending");
    assertThat(input.scheduling().options()).isEqualTo(SchedulerOptions.DEFAULT);
    assertThat(input.now()).isEqualTo(NOW);
  }

  @Test
  void nodeRepairReadsTheNodesConditionsAndTheDoNotRepairAnnotation() {
    DisruptionView view = new TestViews().pool(yaml(NodePool.class, TestViews.POOL))
        .add(yaml(Node.class, """
            apiVersion: v1
            kind: Node
            metadata:
              name: node-a
              creationTimestamp: "2030-01-01T00:00:00Z"
              labels: {karpenter.sh/nodepool: general, kubernetes.io/hostname: node-a}
              annotations: {karpenter.sh/do-not-repair: "true"}
            spec: {providerID: "fake://node-a"}
            status:
              allocatable: {cpu: "4", memory: 8Gi, pods: "40"}
              conditions: [{type: Ready, status: Unknown, reason: NodeStatusUnknown, lastTransitionTime: "2030-01-01T23:00:00Z"}]
            """))
        .add(claim("claim-a", "node-a", "", ""))
        .build();

    var health = only(input(view)).health();

    assertThat(health.createdAt()).isEqualTo(Instant.parse("2030-01-01T00:00:00Z"));
    assertThat(health.conditions()).containsExactly(
        new sh.karpenter.core.disruption.NodeHealth.Condition("Ready", "Unknown", Instant.parse("2030-01-01T23:00:00Z")));
    assertThat(health.doNotRepair()).isTrue();
  }

  @Test
  void doNotRepairOnTheNodeClaimCountsToo() {
    NodeClaim claim = claim("claim-a", "node-a", "", "");
    claim.getMetadata().setAnnotations(java.util.Map.of("karpenter.sh/do-not-repair", "true"));
    DisruptionView view = new TestViews().pool(yaml(NodePool.class, TestViews.POOL)).add(node("node-a", "")).add(claim).build();

    assertThat(only(input(view)).health().doNotRepair()).isTrue();
  }
}
