package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.api.model.storage.CSINode;
import io.fabric8.kubernetes.api.model.storage.StorageClass;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import sh.karpenter.api.v1.NodePool;
import sh.karpenter.core.scheduling.ExistingNode;
import sh.karpenter.core.scheduling.NodeClaimTemplate;
import sh.karpenter.core.scheduling.PodError;

class SnapshotBuilderTest {
  private final SnapshotBuilder builder = new SnapshotBuilder(pool -> List.of());
  private int documents;

  /** Adds a manifest as the next document of {@code snapshot.yaml}. */
  private <T extends HasMetadata> void add(Class<T> type, String yaml) {
    assertThat(builder.add(TestManifests.yaml(type, yaml), "snapshot.yaml, document " + ++documents)).isTrue();
  }

  private static String pod(String name, String spec) {
    return "apiVersion: v1\nkind: Pod\nmetadata: {name: " + name + ", namespace: team}\nspec:\n" + spec.indent(2);
  }

  /** Pending pods Karpenter refuses to provision for, and the reason it gives. */
  static Stream<Arguments> rejectedPods() {
    return Stream.of(
        Arguments.of("restricted nodeSelector", """
            nodeSelector: {karpenter.sh/custom: x}
            containers: [{name: c}]
            """, "nodeSelector uses the restricted label karpenter.sh/custom"),
        Arguments.of("hostname nodeSelector", """
            nodeSelector: {kubernetes.io/hostname: node-1}
            containers: [{name: c}]
            """, "nodeSelector uses the restricted label kubernetes.io/hostname"),
        Arguments.of("restricted required affinity", """
            affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
              {matchExpressions: [{key: karpenter.sh/custom, operator: Exists}]}]}}}
            containers: [{name: c}]
            """, "required node affinity uses the restricted label karpenter.sh/custom"),
        Arguments.of("required matchFields", """
            affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
              {matchFields: [{key: metadata.name, operator: In, values: [node-1]}]}]}}}
            containers: [{name: c}]
            """, "node affinity uses matchFields"),
        Arguments.of("preferred matchFields", """
            affinity: {nodeAffinity: {preferredDuringSchedulingIgnoredDuringExecution: [
              {weight: 1, preference: {matchFields: [{key: metadata.name, operator: In, values: [node-1]}]}}]}}
            containers: [{name: c}]
            """, "node affinity uses matchFields"),
        Arguments.of("nodepool DoesNotExist", """
            affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
              {matchExpressions: [{key: karpenter.sh/nodepool, operator: DoesNotExist}]}]}}}
            containers: [{name: c}]
            """, "requires karpenter.sh/nodepool DoesNotExist"),
        Arguments.of("missing claim", """
            volumes: [{name: data, persistentVolumeClaim: {claimName: absent}}]
            containers: [{name: c}]
            """, "persistentvolumeclaim \"absent\" not found in namespace team"),
        Arguments.of("claim of a missing class", """
            volumes: [{name: data, persistentVolumeClaim: {claimName: classless}}]
            containers: [{name: c}]
            """, "storageclass \"gone\" of claim \"classless\" not found"));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("rejectedPods")
  void rejectedPodsAreSetAsideWithAReason(String description, String spec, String reason) {
    add(PersistentVolumeClaim.class, "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: classless, namespace: team}\nspec: {storageClassName: gone}\n");
    add(Pod.class, pod("rejected", spec));

    ClusterSnapshot snapshot = builder.build();

    assertThat(snapshot.pendingPods()).isEmpty();
    assertThat(snapshot.rejectedPods()).singleElement().satisfies(error -> {
      assertThat(error.pod().name()).isEqualTo("rejected");
      assertThat(error.reason()).startsWith(reason);
    });
  }

  @Test
  void onlyProvisionablePodsArePendingAndBoundPodsGoToTheirNode() {
    add(Node.class, "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus: {allocatable: {cpu: \"4\"}}\n");
    add(Pod.class, pod("pending", "containers: [{name: c}]"));
    add(Pod.class, "apiVersion: v1\nkind: Pod\nmetadata: {name: specless, namespace: team}\n");
    add(Pod.class, pod("bound", "nodeName: node-1\ncontainers: [{name: c}]"));
    add(Pod.class, pod("finished", "containers: [{name: c}]") + "status: {phase: Succeeded}\n");
    add(Pod.class, pod("preempting", "containers: [{name: c}]") + "status: {nominatedNodeName: node-1}\n");
    add(Pod.class, pod("daemon", "containers: [{name: c}]").replace("namespace: team}", "namespace: team, ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: u}]}"));
    add(Pod.class, pod("mirror", "containers: [{name: c}]").replace("namespace: team}", "namespace: team, annotations: {kubernetes.io/config.mirror: x}}"));

    ClusterSnapshot snapshot = builder.build();

    assertThat(snapshot.pendingPods()).extracting(sh.karpenter.core.pod.Pod::name).containsExactly("pending", "specless");
    assertThat(snapshot.rejectedPods()).isEmpty();
    assertThat(snapshot.nodes()).singleElement().satisfies(node -> assertThat(node.pods()).extracting(sh.karpenter.core.pod.Pod::name).containsExactly("bound"));
  }

  @Test
  void aCsiNodeGivesItsNodeThePerDriverVolumeLimits() {
    add(Node.class, "apiVersion: v1\nkind: Node\nmetadata: {name: a}\nstatus: {allocatable: {cpu: \"4\"}}\n");
    add(Node.class, "apiVersion: v1\nkind: Node\nmetadata: {name: b}\nstatus: {allocatable: {cpu: \"4\"}}\n");
    add(CSINode.class, """
        apiVersion: storage.k8s.io/v1
        kind: CSINode
        metadata: {name: a}
        spec:
          drivers:
            - {name: ebs.csi.aws.com, nodeID: i-1, allocatable: {count: 25}}
            - {name: efs.csi.aws.com, nodeID: i-1}
        """);

    assertThat(builder.build().nodes())
        .extracting(ExistingNode::name, ExistingNode::volumeLimits)
        .containsExactlyInAnyOrder(tuple("a", Map.of("ebs.csi.aws.com", 25)), tuple("b", Map.of()));
  }

  @Test
  void aNodePoolsUsageIsTheCapacityAndCountOfItsNodes() {
    add(NodePool.class, """
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata: {name: general}
        spec:
          limits: {cpu: "16"}
          template: {spec: {nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}, requirements: []}}
        """);
    for (String name : List.of("a", "b")) {
      add(Node.class, """
          apiVersion: v1
          kind: Node
          metadata: {name: %s, labels: {karpenter.sh/nodepool: general}}
          status: {capacity: {cpu: "4", memory: 8Gi}, allocatable: {cpu: 3900m, memory: 7Gi}}
          """.formatted(name));
    }
    add(Node.class, "apiVersion: v1\nkind: Node\nmetadata: {name: unmanaged}\nstatus: {capacity: {cpu: \"64\"}}\n");

    NodeClaimTemplate template = builder.build().templates().getFirst();

    assertThat(template.usage().toQuantities()).isEqualTo(Map.of("cpu", "8", "memory", "16Gi", "nodes", "2"));
  }

  @Test
  void workloadsBecomePendingPodsAndTheirErrorsPointIntoTheTemplate() {
    String deployment = """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: web, namespace: team}
        spec:
          replicas: 2
          template:
            metadata: {labels: {app: web}}
            spec: {containers: [{name: c, resources: {requests: {cpu: 250m}}}]}
        """;
    add(Deployment.class, deployment);

    assertThat(builder.build().pendingPods()).extracting(sh.karpenter.core.pod.Pod::name, p -> p.requests().toQuantities().get("cpu"))
        .containsExactly(tuple("web-0", "250m"), tuple("web-1", "250m"));

    add(Deployment.class, deployment.replace("250m", "lots").replace("name: web", "name: api"));
    assertThatThrownBy(builder::build)
        .isInstanceOf(SnapshotInputException.class)
        .hasMessageStartingWith("snapshot.yaml, document 2: spec.template.spec.containers[0].resources.requests.cpu: invalid quantity");
  }

  @Test
  void daemonSetsContributeOnePodFromTheirTemplate() {
    add(DaemonSet.class, """
        apiVersion: apps/v1
        kind: DaemonSet
        metadata: {name: agent, namespace: kube-system}
        spec:
          selector: {matchLabels: {app: agent}}
          template:
            metadata: {labels: {app: agent}}
            spec: {containers: [{name: c, resources: {requests: {memory: 128Mi}}}]}
        """);

    assertThat(builder.build().daemonSetPods()).singleElement().satisfies(pod -> {
      assertThat(pod.isOwnedByDaemonSet()).isTrue();
      assertThat(pod.requests().toQuantities()).containsEntry("memory", "128Mi");
    });
  }

  @Test
  void namespacesHaveTheirNameLabelAndDeclaredLabels() {
    add(Namespace.class, "apiVersion: v1\nkind: Namespace\nmetadata: {name: shop, labels: {tier: frontend}}\n");
    add(Pod.class, pod("p", "containers: [{name: c}]"));

    assertThat(builder.build().namespaceLabels()).isEqualTo(Map.of(
        "shop", Map.of("kubernetes.io/metadata.name", "shop", "tier", "frontend"),
        "team", Map.of("kubernetes.io/metadata.name", "team")));
  }

  @Test
  void kindsOutsideASnapshotAreRefusedAndNamelessObjectsAreErrors() {
    var configMap = new io.fabric8.kubernetes.api.model.ConfigMapBuilder().withNewMetadata().withName("cm").endMetadata().build();
    var nameless = new io.fabric8.kubernetes.api.model.PodBuilder().withNewMetadata().endMetadata().build();

    assertThat(builder.add(configMap, "cm.yaml, document 1")).isFalse();
    assertThatThrownBy(() -> builder.add(nameless, "pod.yaml, document 3"))
        .hasMessage("pod.yaml, document 3: metadata.name: required");
  }

  @Test
  void aDefaultStorageClassLetsAClasslessClaimThrough() {
    add(StorageClass.class, """
        apiVersion: storage.k8s.io/v1
        kind: StorageClass
        metadata: {name: standard, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
        provisioner: ebs.csi.aws.com
        volumeBindingMode: WaitForFirstConsumer
        """);
    add(PersistentVolumeClaim.class, "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data, namespace: team}\nspec: {}\n");
    add(Pod.class, pod("db", "volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]\ncontainers: [{name: c}]"));

    ClusterSnapshot snapshot = builder.build();

    assertThat(snapshot.rejectedPods()).extracting(PodError::reason).isEmpty();
    assertThat(snapshot.pendingPods()).extracting(sh.karpenter.core.pod.Pod::persistentVolumeClaims).containsExactly(List.of("data"));
  }

  private static final String AGENT = """
      apiVersion: apps/v1
      kind: DaemonSet
      metadata: {name: agent, namespace: kube-system, uid: ds-uid}
      spec:
        selector: {matchLabels: {app: agent}}
        template:
          metadata: {labels: {app: agent}}
          spec:
            affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
              {matchExpressions: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]}]}}}
            containers: [{name: c, resources: {requests: {cpu: "4"}}}]
      """;

  /** A pod of DaemonSet {@code agent} as its controller creates it: pinned to its node with matchFields. */
  private static String agentPod(String name, String ownerUid, String created, String cpu, String nodeName) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: kube-system
          creationTimestamp: "%s"
          ownerReferences: [{apiVersion: apps/v1, kind: DaemonSet, name: agent, uid: %s, controller: true}]
        spec:
          %s
          affinity: {nodeAffinity: {requiredDuringSchedulingIgnoredDuringExecution: {nodeSelectorTerms: [
            {matchFields: [{key: metadata.name, operator: In, values: [node-1]}]}]}}}
          containers: [{name: c, resources: {requests: {cpu: "%s"}}}]
        """.formatted(name, created, ownerUid, nodeName == null ? "" : "nodeName: " + nodeName, cpu);
  }

  @Test
  void aDaemonSetContributesItsNewestPodWhoseRequestsAdmissionMayHaveChanged() {
    add(DaemonSet.class, AGENT);
    add(Pod.class, agentPod("agent-old", "ds-uid", "2026-01-01T00:00:00Z", "1", "node-1"));
    add(Pod.class, agentPod("agent-new", "ds-uid", "2026-01-02T00:00:00Z", "2", null));
    add(Pod.class, agentPod("agent-same-time", "ds-uid", "2026-01-02T00:00:00Z", "3", "node-2"));
    add(Pod.class, agentPod("other-agent", "other-uid", "2026-02-01T00:00:00Z", "5", "node-1"));

    assertThat(builder.build().daemonSetPods()).singleElement().satisfies(pod -> {
      assertThat(pod.name()).isEqualTo("agent-new");
      assertThat(pod.requests().toQuantities()).containsEntry("cpu", "2");
      assertThat(pod.requiredNodeAffinityTerms()).as("the template's required node affinity, not the controller's matchFields")
          .singleElement().satisfies(term -> assertThat(term.get("kubernetes.io/arch").values()).containsExactly("amd64"));
    });
  }

  @Test
  void aDaemonSetWithoutPodsFallsBackToItsTemplate() {
    add(DaemonSet.class, AGENT);
    add(Pod.class, agentPod("not-its-pod", "other-uid", "2026-01-01T00:00:00Z", "1", "node-1"));

    assertThat(builder.build().daemonSetPods()).singleElement().satisfies(pod -> {
      assertThat(pod.name()).isEqualTo("agent");
      assertThat(pod.requests().toQuantities()).containsEntry("cpu", "4");
    });
  }

  @Test
  void aDaemonSetWithoutUidIsMatchedByName() {
    add(DaemonSet.class, AGENT.replace(", uid: ds-uid", ""));
    add(Pod.class, agentPod("agent-x", "ds-uid", "2026-01-01T00:00:00Z", "2", "node-1"));
    add(Pod.class, agentPod("agent-y", "null", "2026-01-02T00:00:00Z", "2", "node-2"));

    assertThat(builder.build().daemonSetPods()).extracting(sh.karpenter.core.pod.Pod::name).containsExactly("agent-y");
  }

  private static final String KATA = """
      apiVersion: node.k8s.io/v1
      kind: RuntimeClass
      metadata: {name: kata}
      handler: kata
      overhead: {podFixed: {cpu: 250m}}
      scheduling: {nodeSelector: {sandbox: kata}, tolerations: [{key: sandbox, operator: Exists}]}
      """;

  @Test
  void podsAndTemplatesNamingARuntimeClassGetItsOverheadAndScheduling() {
    add(RuntimeClass.class, KATA);
    add(Deployment.class, """
        apiVersion: apps/v1
        kind: Deployment
        metadata: {name: sandboxed, namespace: team}
        spec:
          replicas: 1
          template:
            metadata: {labels: {app: s}}
            spec: {runtimeClassName: kata, containers: [{name: c, resources: {requests: {cpu: "1"}}}]}
        """);
    add(DaemonSet.class, AGENT.replace("containers:", "runtimeClassName: kata\n      containers:"));

    ClusterSnapshot snapshot = builder.build();

    assertThat(snapshot.pendingPods()).singleElement().satisfies(pod -> {
      assertThat(pod.requests().toQuantities()).containsEntry("cpu", "1250m");
      assertThat(pod.nodeSelector()).containsEntry("sandbox", "kata");
      assertThat(pod.tolerations()).extracting(t -> t.key()).containsExactly("sandbox");
    });
    assertThat(snapshot.daemonSetPods()).singleElement().satisfies(pod -> assertThat(pod.requests().toQuantities()).containsEntry("cpu", "4250m"));
    assertThat(snapshot.warnings()).isEmpty();
  }

  @Test
  void aMissingRuntimeClassIsAWarningInAPlan() {
    add(Pod.class, pod("sandboxed", "runtimeClassName: gvisor\ncontainers: [{name: c}]"));
    add(DaemonSet.class, AGENT.replace("containers:", "runtimeClassName: gvisor\n      containers:"));

    ClusterSnapshot snapshot = builder.build();

    assertThat(snapshot.pendingPods()).extracting(sh.karpenter.core.pod.Pod::name).containsExactly("sandboxed");
    assertThat(snapshot.daemonSetPods()).hasSize(1);
    assertThat(snapshot.warnings()).containsExactly(
        "snapshot.yaml, document 1: spec.runtimeClassName: RuntimeClass \"gvisor\" is not among the manifests; its overhead, nodeSelector and tolerations are not applied",
        "snapshot.yaml, document 2: spec.template.spec.runtimeClassName: RuntimeClass \"gvisor\" is not among the manifests; its overhead, nodeSelector and tolerations are not applied");
  }

  @Test
  void withAllRuntimeClassesKnownAPodNamingAMissingOneIsRejectedAndADaemonSetAddsNothing() {
    builder.allRuntimeClassesKnown();
    add(Node.class, "apiVersion: v1\nkind: Node\nmetadata: {name: node-1}\nstatus: {allocatable: {cpu: \"4\"}}\n");
    add(Pod.class, pod("sandboxed", "runtimeClassName: gvisor\ncontainers: [{name: c}]"));
    add(Pod.class, pod("running", "runtimeClassName: gvisor\nnodeName: node-1\ncontainers: [{name: c}]"));
    add(DaemonSet.class, AGENT.replace("containers:", "runtimeClassName: gvisor\n      containers:"));

    ClusterSnapshot snapshot = builder.build();

    assertThat(snapshot.pendingPods()).isEmpty();
    assertThat(snapshot.rejectedPods()).singleElement().satisfies(error -> {
      assertThat(error.pod().name()).isEqualTo("sandboxed");
      assertThat(error.reason()).startsWith("RuntimeClass \"gvisor\" not found");
    });
    assertThat(snapshot.nodes().getFirst().pods()).as("a running pod is taken as it is").extracting(sh.karpenter.core.pod.Pod::name).containsExactly("running");
    assertThat(snapshot.daemonSetPods()).isEmpty();
  }
}
