package sh.karpenter.controller.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClassReference;
import sh.karpenter.controller.metrics.DisruptionLabels;
import sh.karpenter.core.cloudprovider.TestingCloudProvider;

class NodeClaimsTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static NodeClaim nodeClaim(String group, String kind) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata: {name: c}
        spec: {nodeClassRef: {group: %s, kind: %s, name: default}}
        """.formatted(group, kind), NodeClaim.class);
  }

  @Test
  void aNodeClaimIsManagedWhenTheProviderSupportsItsNodeClassKind() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of());

    assertThat(NodeClaims.isManaged(nodeClaim("karpenter.test.sh", "TestNodeClass"), provider)).isTrue();
    assertThat(NodeClaims.isManaged(nodeClaim("karpenter.k8s.aws", "EC2NodeClass"), provider)).isFalse();
  }

  @Test
  void aNodePoolsNodeClassRefIsSupportedByKind() {
    TestingCloudProvider provider = new TestingCloudProvider(List.of());

    assertThat(NodeClaims.supports(provider, reference("karpenter.test.sh", "TestNodeClass"))).isTrue();
    assertThat(NodeClaims.supports(provider, reference("karpenter.test.sh", "UnmanagedNodeClass"))).isFalse();
    assertThat(NodeClaims.supports(provider, null)).isFalse();
  }

  private static NodeClassReference reference(String group, String kind) {
    return new NodeClassReference(group, kind, "default");
  }

  private static NodeClaim withGracePeriod(String gracePeriod) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata: {name: c, labels: {karpenter.sh/nodepool: general, karpenter.sh/capacity-type: spot}}
        spec: {nodeClassRef: {group: karpenter.test.sh, kind: TestNodeClass, name: default}%s}
        """.formatted(gracePeriod == null ? "" : ", terminationGracePeriod: " + gracePeriod), NodeClaim.class);
  }

  @Test
  void theTerminationModeFollowsTheTerminationGracePeriodAsUpstreams() {
    assertThat(DisruptionLabels.terminationMode(withGracePeriod(null))).isEqualTo("graceful");
    assertThat(DisruptionLabels.terminationMode(withGracePeriod("1h30m"))).isEqualTo("eventual");
    assertThat(DisruptionLabels.terminationMode(withGracePeriod("0s"))).isEqualTo("forceful");
    assertThat(DisruptionLabels.terminationMode(null)).isEqualTo("graceful");
  }

  @Test
  void disruptionLabelsOutsideConsolidationNameNoPolicy() {
    assertThat(DisruptionLabels.of(withGracePeriod("10m"), "expired"))
        .isEqualTo(new DisruptionLabels("expired", "general", "spot", "", "eventual"));
  }
}
