package sh.karpenter.controller.nodepool;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodePool;

class NodePoolValidationTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** A NodePool as the API server returns it: defaulted, with server metadata and status. */
  private static NodePool stored(String templateSpecExtra) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodePool
        metadata:
          name: default
          uid: 0a0b
          resourceVersion: '12'
          generation: 3
          creationTimestamp: '2026-01-01T00:00:00Z'
          managedFields: [{manager: kubectl, operation: Update}]
        spec:
          disruption: {consolidateAfter: 0s, consolidationPolicy: WhenEmptyOrUnderutilized, budgets: [{nodes: 10%%}]}
          template:
            spec:
              expireAfter: 720h
              nodeClassRef: {group: karpenter.kwok.sh, kind: KWOKNodeClass, name: default}
              requirements: [{key: kubernetes.io/arch, operator: In, values: [amd64]}]
              %s
        status:
          conditions: [{type: Ready, status: 'True', reason: Ready, lastTransitionTime: '2026-01-01T00:00:00Z'}]
        """.formatted(templateSpecExtra), NodePool.class);
  }

  @Test
  void aValidStoredNodePoolHasNoProblems() {
    assertThat(NodePoolValidation.problems(stored(""))).isEmpty();
  }

  @Test
  void aTaintRepeatedAcrossTaintsAndStartupTaintsIsNamedByField() {
    String problems = NodePoolValidation.problems(stored(
        "taints: [{key: example.com/a, effect: NoSchedule}]\n      startupTaints: [{key: example.com/a, effect: NoSchedule}]"));

    assertThat(problems).contains("spec.template.spec.startupTaints[0]").contains("duplicate taint");
  }
}
