package sh.karpenter.controller.disruption;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.controller.snapshot.ClusterSnapshot;
import sh.karpenter.controller.snapshot.SnapshotBuilder;
import sh.karpenter.controller.state.DisruptionView;
import sh.karpenter.controller.state.StateSnapshot;
import sh.karpenter.core.catalog.FakeInstanceTypes;
import sh.karpenter.core.instancetype.InstanceType;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.PlannedNodeClaim;
import sh.karpenter.core.scheduling.Scheduler;
import sh.karpenter.core.scheduling.SchedulerOptions;

/**
 * Builds {@link DisruptionView}s for unit tests the way cluster state does: the objects, written as
 * YAML, go through the same {@link SnapshotBuilder}, and each Node's view carries the converted node.
 */
final class TestViews {
  static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();
  /** fake-it-0 .. fake-it-7: i+1 CPUs, 2(i+1)Gi. */
  static final List<InstanceType> TYPES = FakeInstanceTypes.instanceTypes(8);

  static final String POOL = """
      apiVersion: karpenter.sh/v1
      kind: NodePool
      metadata: {name: general, uid: pool-uid}
      spec:
        template:
          spec:
            nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
      """;

  private final List<NodePool> pools = new ArrayList<>();
  private final List<Node> nodes = new ArrayList<>();
  private final Map<String, NodeClaim> claims = new LinkedHashMap<>();
  private final List<Pod> pods = new ArrayList<>();
  private final List<PodDisruptionBudget> budgets = new ArrayList<>();
  private final Set<String> marked = new java.util.HashSet<>();
  private final Set<String> nominated = new java.util.HashSet<>();

  static <T> T yaml(Class<T> type, String yaml) {
    return SERIALIZATION.unmarshal(yaml, type);
  }

  /** An initialized, Ready Karpenter node of pool {@code general} with 4 CPUs, provider ID {@code fake://<name>}. */
  static Node node(String name, String extraMetadata) {
    return yaml(Node.class, """
        apiVersion: v1
        kind: Node
        metadata:
          name: %s
          labels: {karpenter.sh/nodepool: general, karpenter.sh/initialized: "true", kubernetes.io/hostname: %s,
                   node.kubernetes.io/instance-type: fake-it-3, karpenter.sh/capacity-type: on-demand, topology.kubernetes.io/zone: test-zone-1}
        %s
        spec: {providerID: "fake://%s"}
        status:
          allocatable: {cpu: "4", memory: 8Gi, pods: "40"}
          conditions: [{type: Ready, status: "True", reason: KubeletReady}]
        """.formatted(name, name, indent(extraMetadata), name));
  }

  /** A launched, initialized NodeClaim of pool {@code general} for the node {@code nodeName}. */
  static NodeClaim claim(String name, String nodeName, String extraSpec, String extraStatus) {
    return yaml(NodeClaim.class, """
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata:
          name: %s
          creationTimestamp: "2030-01-01T00:00:00Z"
          labels: {karpenter.sh/nodepool: general, karpenter.sh/capacity-type: on-demand}
        spec:
          nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
          requirements:
            - {key: karpenter.sh/nodepool, operator: In, values: [general]}
        %s
        status:
          providerID: "fake://%s"
          nodeName: %s
        %s
        """.formatted(name, indent(extraSpec), nodeName, nodeName, indent(extraStatus)));
  }

  /** A running pod bound to {@code nodeName}, requesting one CPU. */
  static Pod pod(String name, String nodeName, String extraMetadata) {
    return yaml(Pod.class, """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: default
        %s
        spec:
          nodeName: %s
          containers: [{name: main, image: pause, resources: {requests: {cpu: "1"}}}]
        status: {phase: Running}
        """.formatted(name, indent(extraMetadata), nodeName));
  }

  private static String indent(String text) {
    return text.isEmpty() ? "" : text.lines().map(l -> "  " + l).reduce((a, b) -> a + "\n" + b).orElse("");
  }

  TestViews pool(NodePool pool) {
    pools.add(pool);
    return this;
  }

  TestViews add(HasMetadata object) {
    switch (object) {
      case Node node -> nodes.add(node);
      case NodeClaim claim -> claims.put(claim.getMetadata().getName(), claim);
      case Pod pod -> pods.add(pod);
      case PodDisruptionBudget pdb -> budgets.add(pdb);
      case NodePool pool -> pools.add(pool);
      default -> throw new IllegalArgumentException("unexpected " + object.getKind());
    }
    return this;
  }

  TestViews markedForDeletion(String nodeName) {
    marked.add(nodeName);
    return this;
  }

  TestViews nominated(String nodeName) {
    nominated.add(nodeName);
    return this;
  }

  DisruptionView build() {
    SnapshotBuilder builder = new SnapshotBuilder(pool -> TYPES);
    pools.forEach(p -> builder.add(p, "NodePool " + p.getMetadata().getName()));
    nodes.forEach(n -> builder.add(n, "Node " + n.getMetadata().getName()));
    claims.values().forEach(c -> builder.addNodeClaim(c, "NodeClaim " + c.getMetadata().getName()));
    pods.forEach(p -> builder.add(p, "Pod " + p.getMetadata().getName()));
    ClusterSnapshot cluster = builder.build();
    Map<String, NodePool> poolsByName = new LinkedHashMap<>();
    pools.forEach(p -> poolsByName.put(p.getMetadata().getName(), p));
    List<DisruptionView.NodeView> views = new ArrayList<>();
    for (Node node : nodes) {
      String name = node.getMetadata().getName();
      // A deleting Node is left out of the snapshot; cluster state converts it as if it were live.
      ClusterSnapshot source = node.getMetadata().getDeletionTimestamp() == null ? cluster : liveCopy(node);
      ExistingNode existing = source.nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
      NodeClaim claim = claims.values().stream()
          .filter(c -> node.getSpec().getProviderID().equals(c.getStatus() == null ? null : c.getStatus().getProviderID()))
          .findFirst().orElse(null);
      views.add(new DisruptionView.NodeView(existing, node, claim, source.boundPods(name), marked.contains(name), nominated.contains(name)));
    }
    StateSnapshot snapshot = new StateSnapshot(cluster, Map.of(), poolsByName, Map.of(), Map.of(), Set.of(), List.of());
    return new DisruptionView(snapshot, views, budgets);
  }

  private ClusterSnapshot liveCopy(Node node) {
    SnapshotBuilder builder = new SnapshotBuilder(pool -> TYPES);
    builder.add(new NodeBuilder(node).editMetadata().withDeletionTimestamp(null).endMetadata().build(), "Node " + node.getMetadata().getName());
    pods.stream().filter(p -> node.getMetadata().getName().equals(p.getSpec().getNodeName())).forEach(p -> builder.add(p, "Pod " + p.getMetadata().getName()));
    return builder.build();
  }

  /** A replacement planned by the scheduler: one NodeClaim of pool {@code general} for one 1-CPU pod. */
  static PlannedNodeClaim plannedReplacement() {
    SnapshotBuilder builder = new SnapshotBuilder(pool -> TYPES);
    builder.add(yaml(NodePool.class, POOL), "pool");
    builder.add(yaml(Pod.class, """
        apiVersion: v1
        kind: Pod
        metadata: {name: moved, namespace: default}
        spec:
          containers: [{name: main, image: pause, resources: {requests: {cpu: "1"}}}]
        """), "pod");
    var result = new Scheduler(builder.build().schedulingInput(SchedulerOptions.DEFAULT)).solve();
    return result.newNodeClaims().getFirst();
  }
}
