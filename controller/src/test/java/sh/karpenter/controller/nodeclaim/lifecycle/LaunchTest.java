package sh.karpenter.controller.nodeclaim.lifecycle;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;
import sh.karpenter.api.v1.NodeClaimStatus;
import sh.karpenter.core.cloudprovider.Instance;
import sh.karpenter.core.resources.Resources;

class LaunchTest {

  private static final Instance INSTANCE = new Instance(
      "kwok://default-abc12",
      "c-4x-amd64-linux",
      "test-zone-a",
      "spot",
      Map.of("kubernetes.io/arch", "amd64", "team", "provider", "example.com/tier", "provider"),
      Map.of("example.com/launched-by", "kwok"),
      Resources.of(Map.of("cpu", "4", "memory", "16Gi", "pods", "110")),
      Resources.of(Map.of("cpu", "3900m", "memory", "15Gi", "pods", "110")),
      "ami-123");

  private static NodeClaim nodeClaim() {
    NodeClaim nodeClaim = Manifests.nodeClaim("""
        metadata:
          name: default-abc12
          labels: {karpenter.sh/nodepool: default, team: user}
          annotations: {karpenter.sh/nodepool-hash: '123'}
        spec:
          requirements:
          - {key: example.com/tier, operator: In, values: [gold]}
          - {key: example.com/many, operator: In, values: [a, b]}
          - {key: topology.kubernetes.io/zone, operator: In, values: [test-zone-b]}
        """);
    nodeClaim.setStatus(new NodeClaimStatus());
    return nodeClaim;
  }

  @Test
  void userLabelsWinOverRequirementLabelsWhichWinOverTheProvider() {
    NodeClaim nodeClaim = nodeClaim();

    Launch.populate(nodeClaim, INSTANCE);

    assertThat(nodeClaim.getMetadata().getLabels())
        .containsEntry("team", "user")
        .containsEntry("example.com/tier", "gold")
        .containsEntry("kubernetes.io/arch", "amd64")
        .containsEntry("karpenter.sh/nodepool", "default")
        .containsEntry("node.kubernetes.io/instance-type", "c-4x-amd64-linux")
        .containsEntry("karpenter.sh/capacity-type", "spot")
        // Well-known keys come from the provider, which resolved them; multi-valued requirements give no label.
        .containsEntry("topology.kubernetes.io/zone", "test-zone-a")
        .doesNotContainKey("example.com/many");
  }

  @Test
  void copiesAnnotationsProviderIdImageAndResources() {
    NodeClaim nodeClaim = nodeClaim();

    Launch.populate(nodeClaim, INSTANCE);

    assertThat(nodeClaim.getMetadata().getAnnotations())
        .containsEntry("karpenter.sh/nodepool-hash", "123")
        .containsEntry("example.com/launched-by", "kwok");
    assertThat(nodeClaim.getStatus().getProviderID()).isEqualTo("kwok://default-abc12");
    assertThat(nodeClaim.getStatus().getImageID()).isEqualTo("ami-123");
    assertThat(nodeClaim.getStatus().getCapacity())
        .containsEntry("cpu", new Quantity("4"))
        .containsEntry("memory", new Quantity("16Gi"))
        .containsEntry("pods", new Quantity("110"));
    assertThat(nodeClaim.getStatus().getAllocatable()).containsEntry("cpu", new Quantity("3900m"));
  }

  @Test
  void anInstanceWithoutImageLeavesImageIdUnset() {
    NodeClaim nodeClaim = nodeClaim();
    Instance noImage = new Instance("kwok://x", "", "", "", Map.of(), Map.of(), Resources.EMPTY, Resources.EMPTY, "");

    Launch.populate(nodeClaim, noImage);

    assertThat(nodeClaim.getStatus().getImageID()).isNull();
    assertThat(nodeClaim.getMetadata().getLabels()).doesNotContainKey("node.kubernetes.io/instance-type");
  }
}
