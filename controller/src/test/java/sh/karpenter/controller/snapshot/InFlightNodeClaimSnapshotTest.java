package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.resources.Resources;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.SchedulerOptions;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulingResult;
import sh.karpenter.core.taints.Taint;

/** In-flight NodeClaims (created, no Node yet) take part in a snapshot as uninitialized nodes. */
class InFlightNodeClaimSnapshotTest {
  /** fake-it-0 .. fake-it-7: i+1 CPUs, 2(i+1)Gi, 10(i+1) pods. */
  private static final List<InstanceType> TYPES = FakeInstanceTypes.instanceTypes(8);

  private final SnapshotBuilder builder = new SnapshotBuilder(pool -> TYPES);

  private static final String POOL = """
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: general, uid: pool-uid}
      spec:
        limits: {cpu: "100"}
        template:
          spec:
            nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
      """;

  private static NodeClaim claim(String name, String extra) {
    return TestManifests.yaml(NodeClaim.class, """
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata:
          name: %s
          labels: {karpenter.sh/nodepool: general, team: a}
        spec:
          nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
          taints: [{key: dedicated, value: a, effect: NoSchedule}]
          startupTaints: [{key: agent-not-ready, effect: NoSchedule}]
          requirements:
            - {key: karpenter.sh/nodepool, operator: In, values: [general]}
            - {key: node.kubernetes.io/instance-type, operator: In, values: [fake-it-1, fake-it-3, fake-it-5]}
            - {key: topology.kubernetes.io/zone, operator: In, values: [test-zone-1]}
            - {key: karpenter.sh/capacity-type, operator: In, values: [spot, on-demand]}
          resources: {requests: {cpu: 1500m, pods: "2"}}
        %s
        """.formatted(name, extra));
  }

  private static Node node(String name, String providerId) {
    return TestManifests.yaml(Node.class, """
        apiVersion: v1
        kind: Node
        metadata:
          name: %s
          labels: {karpenter.sh/nodepool: general, karpenter.sh/initialized: "true"}
        spec: {providerID: "%s"}
        status:
          capacity: {cpu: "4", memory: 8Gi, pods: "40"}
          allocatable: {cpu: 3900m, memory: 8Gi, pods: "40"}
        """.formatted(name, providerId));
  }

  private ExistingNode only(ClusterSnapshot snapshot) {
    assertThat(snapshot.nodes()).hasSize(1);
    return snapshot.nodes().get(0);
  }

  @Test
  void anUnlaunchedNodeClaimIsAnUninitializedNodeWithTheSmallestAllocatableOfItsOptions() {
    builder.add(TestManifests.yaml(NodePool.class, POOL), "pool");
    builder.addNodeClaim(claim("general-abc", ""), "NodeClaim general-abc");

    ExistingNode node = only(builder.build());

    assertThat(node.name()).isEqualTo("general-abc");
    assertThat(node.initialized()).isFalse();
    assertThat(node.nodePoolName()).isEqualTo("general");
    assertThat(node.labels()).containsAllEntriesOf(Map.of(
        "karpenter.sh/nodepool", "general",
        "team", "a",
        "topology.kubernetes.io/zone", "test-zone-1",
        "kubernetes.io/hostname", "general-abc"));
    assertThat(node.labels()).doesNotContainKeys("node.kubernetes.io/instance-type", "karpenter.sh/capacity-type");
    assertThat(node.taints()).containsExactly(new Taint("dedicated", "a", Taint.Effect.NoSchedule));
    // fake-it-1 is the smallest option: 2 CPUs, 4Gi and 20 pods less the fake overhead (100m, 10Mi)
    assertThat(node.allocatable()).isEqualTo(TYPES.get(1).allocatable());
    assertThat(node.pods()).isEmpty();
  }

  @Test
  void aLaunchedNodeClaimUsesItsReportedAllocatable() {
    builder.add(TestManifests.yaml(NodePool.class, POOL), "pool");
    builder.addNodeClaim(claim("general-abc", """
        status:
          providerID: fake://abc
          capacity: {cpu: "4", memory: 8Gi, pods: "40"}
          allocatable: {cpu: 3900m, memory: 7Gi, pods: "40"}
        """), "NodeClaim general-abc");

    ExistingNode node = only(builder.build());

    assertThat(node.allocatable()).isEqualTo(Resources.builder().cpu("3900m").memory("7Gi").pods(40).build());
  }

  @Test
  void withoutItsNodePoolANodeClaimOffersWhatItWasSizedFor() {
    builder.addNodeClaim(claim("general-abc", ""), "NodeClaim general-abc");

    assertThat(only(builder.build()).allocatable()).isEqualTo(Resources.builder().cpu("1500m").pods(2).build());
  }

  @Test
  void aNodeClaimWithItsNodeIsRepresentedByTheNode() {
    builder.add(node("node-1", "fake://abc"), "Node node-1");
    builder.addNodeClaim(claim("general-abc", "status: {providerID: fake://abc}"), "NodeClaim general-abc");

    ExistingNode node = only(builder.build());

    assertThat(node.name()).isEqualTo("node-1");
    assertThat(node.initialized()).isTrue();
  }

  @Test
  void deletingNodeClaimsAreLeftOut() {
    NodeClaim deleting = claim("general-abc", "");
    deleting.getMetadata().setDeletionTimestamp("2026-01-01T00:00:00Z");
    builder.addNodeClaim(deleting, "NodeClaim general-abc");

    assertThat(builder.build().nodes()).isEmpty();
  }

  @Test
  void inFlightNodeClaimsCountTowardsTheirNodePoolsUsage() {
    builder.add(TestManifests.yaml(NodePool.class, POOL), "pool");
    builder.add(node("node-1", "fake://node-1"), "Node node-1");
    builder.addNodeClaim(claim("general-abc", ""), "NodeClaim general-abc");

    Resources usage = builder.build().templates().get(0).usage();

    // the node's 4 CPUs plus the largest option of the NodeClaim (fake-it-5: 6 CPUs), and two nodes
    assertThat(usage.milli("cpu")).isEqualTo(10_000);
    assertThat(usage.milli("nodes")).isEqualTo(2_000);
  }

  @Test
  void podsFitOnAnInFlightNodeClaimInsteadOfANewOne() {
    builder.add(TestManifests.yaml(NodePool.class, POOL), "pool");
    builder.addNodeClaim(claim("general-abc", ""), "NodeClaim general-abc");
    builder.add(TestManifests.yaml(Pod.class, """
        apiVersion: v1
        kind: Pod
        metadata: {name: web, namespace: team, uid: web-uid}
        spec:
          tolerations: [{key: dedicated, operator: Exists}]
          containers: [{name: c, resources: {requests: {cpu: "1"}}}]
        """), "Pod team/web");

    SchedulingResult result = new Scheduler(builder.build().schedulingInput(SchedulerOptions.DEFAULT)).solve();

    assertThat(result.newNodeClaims()).isEmpty();
    assertThat(result.existingNodePlacements()).containsOnlyKeys("general-abc");
  }

  @Test
  void addIgnoresNodeClaimsSoManifestPlansAreUnchanged() {
    assertThat(builder.add(claim("general-abc", ""), "plan.yaml, document 1")).isFalse();
    assertThat(builder.build().nodes()).isEmpty();
  }

  @Test
  void aRegisteringNodeIsSeenWithItsNodeClaimsTaintsNotTheEphemeralOnes() {
    Node registering = TestManifests.yaml(Node.class, """
        apiVersion: v1
        kind: Node
        metadata:
          name: registering
          labels: {karpenter.sh/nodepool: general}
        spec:
          providerID: "fake://9"
          taints:
            - {key: karpenter.sh/unregistered, effect: NoExecute}
            - {key: node.kubernetes.io/not-ready, effect: NoSchedule}
            - {key: agent-not-ready, effect: NoSchedule}
        status:
          allocatable: {cpu: "4", memory: 8Gi, pods: "40"}
        """);
    builder.add(TestManifests.yaml(NodePool.class, POOL), "pool");
    builder.add(registering, "node");
    builder.addNodeClaim(claim("registering-claim", "status: {providerID: \"fake://9\"}"), "claim");

    ExistingNode node = only(builder.build());

    assertThat(node.initialized()).isFalse();
    assertThat(node.taints()).containsExactly(new Taint("dedicated", "a", Taint.Effect.NoSchedule));
  }

  @Test
  void aRegisteringNodeWithoutItsNodeClaimDropsOnlyTheEphemeralTaints() {
    Node registering = TestManifests.yaml(Node.class, """
        apiVersion: v1
        kind: Node
        metadata:
          name: registering
          labels: {karpenter.sh/nodepool: general}
        spec:
          taints:
            - {key: karpenter.sh/unregistered, effect: NoExecute}
            - {key: readiness.k8s.io/network, effect: NoSchedule}
            - {key: dedicated, value: a, effect: NoSchedule}
        status:
          allocatable: {cpu: "4", memory: 8Gi, pods: "40"}
        """);
    builder.add(registering, "node");

    assertThat(only(builder.build()).taints()).containsExactly(new Taint("dedicated", "a", Taint.Effect.NoSchedule));
  }
}
