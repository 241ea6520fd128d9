package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.tuple;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import org.junit.jupiter.api.Test;

class WorkloadPodsTest {

  private static PodTemplateSpec template() {
    return new PodTemplateSpecBuilder()
        .withNewMetadata()
        .addToLabels("app", "web")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .endContainer()
        .endSpec()
        .build();
  }

  @Test
  void deploymentBecomesReplicasPodsNamedByIndexWithOwnerAndStableUids() {
    var deployment =
        new DeploymentBuilder()
            .withNewMetadata()
            .withName("web")
            .withNamespace("shop")
            .endMetadata()
            .withNewSpec()
            .withReplicas(3)
            .withTemplate(template())
            .endSpec()
            .build();

    var pods = WorkloadPods.expand(deployment).pods();

    assertThat(pods).extracting(p -> p.getMetadata().getName()).containsExactly("web-0", "web-1", "web-2");
    Pod first = pods.getFirst();
    assertThat(first.getMetadata().getNamespace()).isEqualTo("shop");
    assertThat(first.getMetadata().getLabels()).containsEntry("app", "web");
    assertThat(first.getSpec().getNodeName()).isNull();
    assertThat(first.getMetadata().getOwnerReferences().getFirst().getKind()).isEqualTo("Deployment");
    assertThat(first.getMetadata().getOwnerReferences().getFirst().getName()).isEqualTo("web");
    assertThat(first.getMetadata().getUid())
        .isEqualTo(WorkloadPods.expand(deployment).pods().getFirst().getMetadata().getUid())
        .isNotEqualTo(pods.get(1).getMetadata().getUid());
  }

  @Test
  void replicasDefaultToOneAndNamespaceToDefault() {
    var deployment =
        new DeploymentBuilder().withNewMetadata().withName("one").endMetadata().withNewSpec().withTemplate(template()).endSpec().build();

    var pods = WorkloadPods.expand(deployment).pods();

    assertThat(pods).singleElement().satisfies(p -> {
      assertThat(p.getMetadata().getName()).isEqualTo("one-0");
      assertThat(p.getMetadata().getNamespace()).isEqualTo("default");
    });
  }

  @Test
  void jobRunsParallelismPodsCappedByCompletions() {
    var job =
        new JobBuilder()
            .withNewMetadata().withName("batch").withNamespace("b").endMetadata()
            .withNewSpec().withParallelism(8).withCompletions(3).withTemplate(template()).endSpec()
            .build();
    var unbounded =
        new JobBuilder(job).editSpec().withCompletions(null).withParallelism(null).endSpec().build();

    assertThat(WorkloadPods.expand(job).pods()).hasSize(3);
    assertThat(WorkloadPods.expand(unbounded).pods()).hasSize(1);
  }

  @Test
  void statefulSetClaimsArePerPodAndMountedByThem() {
    var set =
        new StatefulSetBuilder()
            .withNewMetadata().withName("db").withNamespace("shop").endMetadata()
            .withNewSpec()
            .withReplicas(2)
            .withTemplate(template())
            .addToVolumeClaimTemplates(
                new PersistentVolumeClaimBuilder()
                    .withNewMetadata().withName("data").endMetadata()
                    .withNewSpec().withStorageClassName("gp3").endSpec()
                    .build())
            .endSpec()
            .build();

    var expansion = WorkloadPods.expand(set);

    assertThat(expansion.claims())
        .extracting(c -> c.getMetadata().getNamespace() + "/" + c.getMetadata().getName())
        .containsExactly("shop/data-db-0", "shop/data-db-1");
    assertThat(expansion.claims().getFirst().getSpec().getStorageClassName()).isEqualTo("gp3");
    assertThat(expansion.pods().get(1).getSpec().getVolumes())
        .singleElement()
        .satisfies(v -> assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("data-db-1"));
  }

  @Test
  void replicaSetsAndScaledDownOrSpeclessWorkloads() {
    var replicaSet =
        new ReplicaSetBuilder()
            .withNewMetadata().withName("web-5d8").withNamespace("shop").endMetadata()
            .withNewSpec().withReplicas(2).withTemplate(template()).endSpec()
            .build();
    var scaledDown = new DeploymentBuilder().withNewMetadata().withName("off").endMetadata().withNewSpec().withReplicas(0).withTemplate(template()).endSpec().build();
    var specless = new DeploymentBuilder().withNewMetadata().withName("empty").endMetadata().build();

    assertThat(WorkloadPods.expand(replicaSet).pods())
        .extracting(p -> p.getMetadata().getName(), p -> p.getMetadata().getOwnerReferences().getFirst().getKind())
        .containsExactly(tuple("web-5d8-0", "ReplicaSet"), tuple("web-5d8-1", "ReplicaSet"));
    assertThat(WorkloadPods.expand(scaledDown).pods()).isEmpty();
    assertThat(WorkloadPods.expand(specless).pods()).isEmpty();
  }

  @Test
  void aStatefulSetClaimReplacesATemplateVolumeOfTheSameName() {
    var template = new PodTemplateSpecBuilder(template()).editSpec().addNewVolume().withName("data").withNewEmptyDir().endEmptyDir().endVolume().endSpec().build();
    var set =
        new StatefulSetBuilder()
            .withNewMetadata().withName("db").endMetadata()
            .withNewSpec()
            .withTemplate(template)
            .addToVolumeClaimTemplates(new PersistentVolumeClaimBuilder().withNewMetadata().withName("data").endMetadata().build())
            .endSpec()
            .build();

    assertThat(WorkloadPods.expand(set).pods().getFirst().getSpec().getVolumes())
        .singleElement()
        .satisfies(v -> {
          assertThat(v.getEmptyDir()).isNull();
          assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("data-db-0");
        });
  }

  @Test
  void rejectsKindsThatAreNotWorkloads() {
    var node = new NodeBuilder().withNewMetadata().withName("n").endMetadata().build();

    assertThat(WorkloadPods.isWorkload(node)).isFalse();
    assertThatThrownBy(() -> WorkloadPods.expand(node)).isInstanceOf(IllegalArgumentException.class);
  }
}
