package sh.karpenter.controller.provisioning;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimSpec;
import sh.karpenter.api.v1.NodeSelectorRequirementWithMinValues;

/** The pure parts of {@link NodeClaimCreate}; the create itself is exercised on the real control plane (ApiServerFaultsIT). */
class NodeClaimCreateTest {
  @Test
  void suffixesHaveGenerateNamesForm() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < 1000; i++) {
      assertThat(NodeClaimCreate.suffix(random)).hasSize(5).matches("[bcdfghjklmnpqrstvwxz2456789]{5}");
    }
  }

  @Test
  void theSameRequestIsRecognisedAndADifferentOneIsNot() {
    NodeClaim wanted = claim("default", List.of("c5.large", "m5.large"));
    assertThat(NodeClaimCreate.sameRequest(claim("default", List.of("c5.large", "m5.large")), wanted)).isTrue();
    assertThat(NodeClaimCreate.sameRequest(claim("default", List.of("c5.large")), wanted)).isFalse();
    assertThat(NodeClaimCreate.sameRequest(claim("other", List.of("c5.large", "m5.large")), wanted)).isFalse();
    NodeClaim deleting = claim("default", List.of("c5.large", "m5.large"));
    deleting.getMetadata().setDeletionTimestamp("2026-11-26T00:00:00Z");
    assertThat(NodeClaimCreate.sameRequest(deleting, wanted)).isFalse();
  }

  @Test
  void aNodeClaimThatWasLaunchedMeanwhileIsStillTheSameRequest() {
    NodeClaim wanted = claim("default", List.of("c5.large", "m5.large"));
    NodeClaim launched = claim("default", List.of("c5.large", "m5.large"));
    launched.getMetadata().setLabels(Map.of("karpenter.sh/nodepool", "default", "node.kubernetes.io/instance-type", "c5.large",
        "topology.kubernetes.io/zone", "us-west-2a", "karpenter.sh/capacity-type", "on-demand"));
    assertThat(NodeClaimCreate.sameRequest(launched, wanted)).isTrue();
    NodeClaim relabelled = claim("default", List.of("c5.large", "m5.large"));
    relabelled.getMetadata().setLabels(Map.of("karpenter.sh/nodepool", "other", "node.kubernetes.io/instance-type", "c5.large"));
    assertThat(NodeClaimCreate.sameRequest(relabelled, wanted)).isFalse();
  }

  private static NodeClaim claim(String pool, List<String> types) {
    NodeClaim claim = new NodeClaim();
    claim.setMetadata(new ObjectMetaBuilder().withGenerateName(pool + "-").withLabels(Map.of("karpenter.sh/nodepool", pool))
        .withOwnerReferences(new OwnerReferenceBuilder().withKind("NodePool").withName(pool).withUid("u-" + pool).build()).build());
    NodeClaimSpec spec = new NodeClaimSpec();
    NodeSelectorRequirementWithMinValues requirement = new NodeSelectorRequirementWithMinValues();
    requirement.setKey("node.kubernetes.io/instance-type");
    requirement.setOperator("In");
    requirement.setValues(types);
    spec.setRequirements(List.of(requirement));
    claim.setSpec(spec);
    return claim;
  }
}
