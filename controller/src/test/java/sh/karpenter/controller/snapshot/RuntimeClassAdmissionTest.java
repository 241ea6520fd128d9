package sh.karpenter.controller.snapshot;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** What kube-apiserver's RuntimeClass admission plugin does to a pod that names a class. */
class RuntimeClassAdmissionTest {
  private static final RuntimeClass KATA = TestManifests.yaml(RuntimeClass.class, """
      apiVersion: node.k8s.io/v1
      kind: RuntimeClass
      metadata: {name: kata}
      handler: kata
      overhead: {podFixed: {cpu: 250m, memory: 160Mi}}
      scheduling:
        nodeSelector: {sandbox: kata}
        tolerations: [{key: sandbox, operator: Exists, effect: NoSchedule}]
      """);
  private static final RuntimeClass RUNC = TestManifests.yaml(RuntimeClass.class, "apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: runc}\nhandler: runc\n");

  private final RuntimeClassAdmission plan = new RuntimeClassAdmission(Map.of("kata", KATA, "runc", RUNC), false);
  private final RuntimeClassAdmission cluster = new RuntimeClassAdmission(Map.of("kata", KATA, "runc", RUNC), true);

  private static PodSpec spec(String yaml) {
    return TestManifests.yaml(PodSpec.class, yaml);
  }

  @Test
  void aPodWithoutOverheadGetsTheClassesOverheadNodeSelectorAndTolerations() {
    PodSpec given = spec("""
        runtimeClassName: kata
        nodeSelector: {disk: ssd}
        tolerations: [{key: dedicated, operator: Equal, value: db, effect: NoSchedule}]
        containers: [{name: c}]
        """);

    RuntimeClassAdmission.Admitted admitted = plan.admit(given);

    assertThat(admitted.rejection()).isNull();
    assertThat(admitted.warning()).isNull();
    assertThat(admitted.spec().getOverhead()).isEqualTo(Map.of("cpu", new Quantity("250m"), "memory", new Quantity("160Mi")));
    assertThat(admitted.spec().getNodeSelector()).isEqualTo(Map.of("disk", "ssd", "sandbox", "kata"));
    assertThat(admitted.spec().getTolerations()).extracting(Toleration::getKey).containsExactly("dedicated", "sandbox");
    assertThat(given.getOverhead()).as("the given spec is left alone").isNullOrEmpty();
  }

  @Test
  void anAdmittedPodIsTakenAsItIs() {
    PodSpec admittedOnce = plan.admit(spec("runtimeClassName: kata\ncontainers: [{name: c}]\n")).spec();

    PodSpec again = plan.admit(admittedOnce).spec();

    assertThat(again.getOverhead()).isEqualTo(admittedOnce.getOverhead());
    assertThat(again.getNodeSelector()).isEqualTo(admittedOnce.getNodeSelector());
    assertThat(again.getTolerations()).isEqualTo(admittedOnce.getTolerations());
  }

  @Test
  void aPodsOwnOverheadIsKept() {
    PodSpec admitted = plan.admit(spec("runtimeClassName: kata\noverhead: {cpu: \"1\"}\ncontainers: [{name: c}]\n")).spec();

    assertThat(admitted.getOverhead()).isEqualTo(Map.of("cpu", new Quantity("1")));
  }

  @Test
  void aClassWithoutOverheadOrSchedulingChangesNothing() {
    PodSpec given = spec("runtimeClassName: runc\ncontainers: [{name: c}]\n");

    assertThat(plan.admit(given).spec()).isSameAs(given);
    assertThat(plan.admit(spec("containers: [{name: c}]\n")).rejection()).isNull();
  }

  @Test
  void aNodeSelectorConflictingWithTheClassIsRefusedAsTheAdmissionPluginDoes() {
    PodSpec given = spec("runtimeClassName: kata\nnodeSelector: {sandbox: gvisor}\ncontainers: [{name: c}]\n");

    for (RuntimeClassAdmission admission : List.of(plan, cluster)) {
      RuntimeClassAdmission.Admitted admitted = admission.admit(given);
      assertThat(admitted.rejection())
          .isEqualTo("RuntimeClass \"kata\" conflicts with the pod: runtimeClass.scheduling.nodeSelector[sandbox] = kata; "
              + "pod.spec.nodeSelector[sandbox] = gvisor");
      assertThat(admitted.spec()).isSameAs(given);
    }
  }

  @Test
  void aMissingClassIsAWarningInAPlanAndARejectionInTheCluster() {
    PodSpec given = spec("runtimeClassName: gvisor\ncontainers: [{name: c}]\n");

    RuntimeClassAdmission.Admitted planned = plan.admit(given);
    assertThat(planned.rejection()).isNull();
    assertThat(planned.warning())
        .isEqualTo("RuntimeClass \"gvisor\" is not among the manifests; its overhead, nodeSelector and tolerations are not applied");
    assertThat(planned.spec()).isSameAs(given);

    RuntimeClassAdmission.Admitted live = cluster.admit(given);
    assertThat(live.warning()).isNull();
    assertThat(live.rejection())
        .isEqualTo("RuntimeClass \"gvisor\" not found: kube-apiserver refuses to create a pod naming it and no node can run it");
  }
}
