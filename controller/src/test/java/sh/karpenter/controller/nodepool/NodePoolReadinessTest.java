package sh.karpenter.controller.nodepool;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import org.junit.jupiter.api.Test;

class NodePoolReadinessTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  /** A KWOKNodeClass; {@code rest} holds further YAML lines (status) or metadata fields after a comma. */
  private static GenericKubernetesResource nodeClass(String rest) {
    String metadataExtra = rest.startsWith(",") ? rest : "";
    String lines = rest.startsWith(",") ? "" : rest;
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.kwok.sh/v1alpha1
        kind: KWOKNodeClass
        metadata: {name: default%s}
        %s
        """.formatted(metadataExtra, lines), GenericKubernetesResource.class);
  }

  @Test
  void aMissingNodeClassIsNotReady() {
    assertThat(NodePoolReadiness.verdict(null))
        .isEqualTo(new NodePoolReadiness.Verdict("False", "NodeClassNotFound", "NodeClass not found on cluster"));
  }

  @Test
  void aNodeClassWithoutAFalseReadyConditionIsReady() {
    assertThat(NodePoolReadiness.verdict(nodeClass("")).status()).isEqualTo("True");
    assertThat(NodePoolReadiness.verdict(nodeClass("status: {conditions: [{type: Ready, status: 'True'}]}")).status())
        .isEqualTo("True");
    assertThat(NodePoolReadiness.verdict(nodeClass("status: {conditions: [{type: Ready, status: Unknown}]}")).status())
        .isEqualTo("True");
  }

  @Test
  void aFalseReadyConditionIsPassedOn() {
    assertThat(NodePoolReadiness.verdict(nodeClass("status: {conditions: [{type: Ready, status: 'False', reason: SubnetsNotFound, message: no subnets}]}")))
        .isEqualTo(new NodePoolReadiness.Verdict("False", "SubnetsNotFound", "no subnets"));
  }

  @Test
  void aTerminatingNodeClassIsNotReady() {
    assertThat(NodePoolReadiness.verdict(nodeClass(", deletionTimestamp: '2026-01-01T00:00:00Z'")).reason())
        .isEqualTo("NodeClassTerminating");
  }
}
