package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Input a cluster would not hold, and exports that hold the same pods twice over: duplicate names,
 * workloads next to the ReplicaSets and pods they own, negative or huge counts and quantities, pods
 * bound to nodes that are not there.
 */
class SnapshotBuilderInputTest {
  private final SnapshotBuilder builder = new SnapshotBuilder(pool -> List.of());
  private int documents;

  /** Adds a manifest as the next document of {@code snapshot.yaml}. */
  private <T extends HasMetadata> void add(Class<T> type, String yaml) {
    builder.add(TestManifests.yaml(type, yaml), "snapshot.yaml, document " + ++documents);
  }

  private static final String DEPLOYMENT = """
      apiVersion: apps/v1
      kind: Deployment
      metadata: {name: web, namespace: shop, uid: 11111111-0000-0000-0000-000000000001}
      spec:
        replicas: 3
        selector: {matchLabels: {app: web}}
        template:
          metadata: {labels: {app: web}}
          spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
      """;

  /** A ReplicaSet of {@link #DEPLOYMENT}, as {@code kubectl get deploy,rs -o yaml} exports it. */
  private static String replicaSet(String hash, int replicas) {
    return """
        apiVersion: apps/v1
        kind: ReplicaSet
        metadata:
          name: web-%s
          namespace: shop
          uid: 22222222-0000-0000-0000-00000000000%d
          labels: {app: web, pod-template-hash: %s}
          ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: web, uid: 11111111-0000-0000-0000-000000000001, controller: true}]
        spec:
          replicas: %d
          selector: {matchLabels: {app: web, pod-template-hash: %s}}
          template:
            metadata: {labels: {app: web, pod-template-hash: %s}}
            spec: {containers: [{name: c, resources: {requests: {cpu: 100m}}}]}
        """.formatted(hash, replicas, hash, replicas, hash, hash);
  }

  /** A pod of ReplicaSet {@code web-<hash>}. */
  private static String replicaSetPod(String name, String hash, String nodeName) {
    return """
        apiVersion: v1
        kind: Pod
        metadata:
          name: %s
          namespace: shop
          labels: {app: web, pod-template-hash: %s}
          ownerReferences: [{apiVersion: apps/v1, kind: ReplicaSet, name: web-%s, controller: true}]
        spec: {%scontainers: [{name: c, resources: {requests: {cpu: 100m}}}]}
        """.formatted(name, hash, hash, nodeName == null ? "" : "nodeName: " + nodeName + ", ");
  }

  private List<String> pendingNames() {
    return builder.build().pendingPods().stream().map(sh.karpenter.core.pod.Pod::name).toList();
  }

  @Test
  void aDeploymentExportedWithItsReplicaSetsIsCountedOnce() {
    add(Deployment.class, DEPLOYMENT);
    add(ReplicaSet.class, replicaSet("5d8f7c9b4", 3));
    add(ReplicaSet.class, replicaSet("6c4b8d2f1", 0)); // the previous revision, scaled down

    assertThat(pendingNames()).containsExactly("web-0", "web-1", "web-2");
  }

  @Test
  void podsAReplicaSetOfTheDeploymentRunsCountForTheDeployment() {
    add(Deployment.class, DEPLOYMENT);
    add(ReplicaSet.class, replicaSet("5d8f7c9b4", 3));
    add(Pod.class, replicaSetPod("web-5d8f7c9b4-abcde", "5d8f7c9b4", "node-a"));
    add(Pod.class, replicaSetPod("web-5d8f7c9b4-fghij", "5d8f7c9b4", null));

    // Three replicas, two pods: the Deployment's controller creates one more.
    assertThat(pendingNames()).containsExactlyInAnyOrder("web-5d8f7c9b4-fghij", "web-0");
  }

  @Test
  void podsOfAReplicaSetLeftOutCountForTheDeploymentByTheirTemplateHash() {
    add(Deployment.class, DEPLOYMENT);
    add(Pod.class, replicaSetPod("web-5d8f7c9b4-abcde", "5d8f7c9b4", null));
    add(Pod.class, replicaSetPod("web-5d8f7c9b4-fghij", "5d8f7c9b4", null));
    add(Pod.class, """
        apiVersion: v1
        kind: Pod
        metadata: {name: done, namespace: shop, labels: {pod-template-hash: 5d8f7c9b4}, ownerReferences: [{kind: ReplicaSet, name: web-5d8f7c9b4, controller: true}]}
        spec: {containers: [{name: c}]}
        status: {phase: Failed}
        """);

    assertThat(pendingNames()).containsExactlyInAnyOrder("web-5d8f7c9b4-abcde", "web-5d8f7c9b4-fghij", "web-0");
  }

  @Test
  void aStatefulSetCreatesOnlyTheOrdinalsNoPodHas() {
    add(StatefulSet.class, """
        apiVersion: apps/v1
        kind: StatefulSet
        metadata: {name: db, namespace: shop}
        spec:
          replicas: 3
          selector: {matchLabels: {app: db}}
          template: {metadata: {labels: {app: db}}, spec: {containers: [{name: c}]}}
        """);
    add(Pod.class, """
        apiVersion: v1
        kind: Pod
        metadata: {name: db-1, namespace: shop, ownerReferences: [{kind: StatefulSet, name: db, controller: true}]}
        spec: {nodeName: node-a, containers: [{name: c}]}
        """);
    add(Node.class, "apiVersion: v1\nkind: Node\nmetadata: {name: node-a}\nstatus: {allocatable: {cpu: \"4\", pods: \"10\"}}\n");

    assertThat(pendingNames()).containsExactly("db-0", "db-2");
  }

  @Test
  void aJobCreatesWhatItsCompletionsStillNeedBeyondItsActivePods() {
    add(Job.class, """
        apiVersion: batch/v1
        kind: Job
        metadata: {name: batch, namespace: shop}
        spec: {parallelism: 3, completions: 5, template: {spec: {restartPolicy: Never, containers: [{name: c}]}}}
        """);
    for (String phase : List.of("Succeeded", "Succeeded", "Running")) {
      add(Pod.class, """
          apiVersion: v1
          kind: Pod
          metadata: {name: batch-%d, namespace: shop, ownerReferences: [{kind: Job, name: batch, controller: true}]}
          spec: {containers: [{name: c}]}
          status: {phase: %s}
          """.formatted(documents, phase));
    }

    // min(parallelism 3, completions 5 - 2 succeeded) = 3 wanted active, 1 running: 2 more, named
    // by the lowest indices its pods (batch-1 to batch-3) leave free.
    assertThat(pendingNames()).containsExactlyInAnyOrder("batch-3", "batch-0", "batch-4");
  }

  @Test
  void duplicateNamesNameBothDocuments() {
    String pod = "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n";
    add(Pod.class, pod);
    assertThatThrownBy(() -> add(Pod.class, pod.replace("{name: p}", "{name: p, namespace: default}")))
        .isInstanceOf(SnapshotInputException.class)
        .hasMessage("snapshot.yaml, document 2: metadata.name: Duplicate value: Pod \"default/p\" is also in snapshot.yaml, document 1");

    add(Deployment.class, DEPLOYMENT.replace("namespace: shop", "namespace: default").replace("name: web", "name: p"));
    add(Pod.class, pod.replace("{name: p}", "{name: p-0}"));
    assertThatThrownBy(builder::build)
        .hasMessage("snapshot.yaml, document 3: metadata.name: Duplicate value: Pod \"default/p-0\", one of its pods, is also in snapshot.yaml, document 4");
  }

  @Test
  void duplicateNodePoolsAreAnError() {
    var pool = new sh.karpenter.api.v1.NodePool();
    pool.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("default").build());
    builder.add(pool, "pools.yaml, document 1");

    assertThatThrownBy(() -> builder.add(pool, "more-pools.yaml, document 3"))
        .hasMessage("more-pools.yaml, document 3: metadata.name: Duplicate value: NodePool \"default\" is also in pools.yaml, document 1");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      Deployment | replicas: -3                   | spec.replicas: Invalid value: -3: must be greater than or equal to 0
      Job        | parallelism: -1                | spec.parallelism: Invalid value: -1: must be greater than or equal to 0
      Job        | parallelism: 2, completions: -1 | spec.completions: Invalid value: -1: must be greater than or equal to 0
      """)
  void negativeCountsAreRefusedAsKubeApiserverRefusesThem(String kind, String counts, String message) {
    String yaml = "apiVersion: %s\nkind: %s\nmetadata: {name: w}\nspec: {%s, template: {spec: {containers: [{name: c}]}}}\n"
        .formatted(kind.equals("Job") ? "batch/v1" : "apps/v1", kind, counts);
    Class<? extends HasMetadata> type = kind.equals("Job") ? Job.class : Deployment.class;

    assertThatThrownBy(() -> add(type, yaml)).hasMessage("snapshot.yaml, document 1: " + message);
  }

  @Test
  void thePodsExpandedFromWorkloadsAreCapped() {
    builder.maxExpandedPods(5, "--max-expanded-pods");
    assertThatThrownBy(() -> add(Deployment.class, DEPLOYMENT.replace("replicas: 3", "replicas: 1000000000").replace("name: web", "name: big")))
        .hasMessage("snapshot.yaml, document 1: spec.replicas: Deployment big would take the pods expanded from workloads to 1,000,000,000,"
            + " more than the limit of 5 (--max-expanded-pods)");

    add(Deployment.class, DEPLOYMENT);
    add(Deployment.class, DEPLOYMENT.replace("name: web", "name: api"));
    assertThatThrownBy(builder::build)
        .hasMessage("snapshot.yaml, document 3: spec.replicas: Deployment api would take the pods expanded from workloads to 6,"
            + " more than the limit of 5 (--max-expanded-pods)");
  }

  @Test
  void aPodBoundToANodeOutsideTheSnapshotIsAWarning() {
    add(Pod.class, "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: shop}\nspec: {nodeName: ghost, containers: [{name: c}]}\n");

    ClusterSnapshot snapshot = builder.build();
    assertThat(snapshot.nodes()).isEmpty();
    assertThat(snapshot.warnings()).containsExactly(
        "snapshot.yaml, document 1: spec.nodeName: pod shop/p is bound to node \"ghost\", which is not in the snapshot; its requests count on no node");
  }

  @ParameterizedTest
  @CsvSource(delimiter = '|', textBlock = """
      requests: {cpu: "-1"}                 | spec.containers[0].resources.requests.cpu: Invalid value: "-1": must be greater than or equal to 0
      limits: {cpu: "-10"}                  | spec.containers[0].resources.limits.cpu: Invalid value: "-10": must be greater than or equal to 0
      requests: {cpu: "2"}, limits: {cpu: "1"} | spec.containers[0].resources.requests.cpu: Invalid value: "2": must be less than or equal to cpu limit of 1
      """)
  void quantitiesKubeApiserverRefusesAreErrors(String resources, String message) {
    add(Pod.class, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {%s}}]}\n".formatted(resources));

    assertThatThrownBy(builder::build).hasMessage("snapshot.yaml, document 1: " + message);
  }

  @Test
  void aQuantityBeyondWhatAPlanCountsIsAWarning() {
    add(Pod.class, "apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c, resources: {requests: {cpu: \"1e30\"}}}]}\n");

    ClusterSnapshot snapshot = builder.build();
    assertThat(snapshot.pendingPods()).singleElement().satisfies(p -> assertThat(p.requests().cpuMilli()).isEqualTo(Long.MAX_VALUE));
    assertThat(snapshot.warnings()).containsExactly("snapshot.yaml, document 1: spec.containers[0].resources.requests.cpu: \"1e30\" is more than "
        + "9223372036854775807m, the most a plan (and kube-scheduler) can count; taken as that, which no node holds");
  }
}
