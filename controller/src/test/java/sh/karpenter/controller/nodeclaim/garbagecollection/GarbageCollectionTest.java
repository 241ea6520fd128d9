package sh.karpenter.controller.nodeclaim.garbagecollection;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import sh.karpenter.api.v1.NodeClaim;

/** Which NodeClaims lost their instance; deleting them is covered by NodeClaimGarbageCollectionIT. */
class GarbageCollectionTest {
  private static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

  private static NodeClaim nodeClaim(String registered, String deletionTimestamp) {
    return SERIALIZATION.unmarshal("""
        apiVersion: karpenter.sh/v1
        kind: NodeClaim
        metadata: {name: default-abc%s}
        status:
          providerID: fake://1
          conditions: [{type: Registered, status: '%s', reason: Registered, lastTransitionTime: '2026-01-01T00:00:00Z'}]
        """.formatted(deletionTimestamp == null ? "" : ", deletionTimestamp: '" + deletionTimestamp + "'", registered), NodeClaim.class);
  }

  private static Node node(String ready) {
    return SERIALIZATION.unmarshal("""
        apiVersion: v1
        kind: Node
        metadata: {name: node-a}
        status: {conditions: [{type: Ready, status: '%s'}]}
        """.formatted(ready), Node.class);
  }

  @Test
  void aRegisteredNodeClaimWhoseInstanceIsNotListedAndWhoseNodeIsGoneOrNotReadyVanished() {
    assertThat(GarbageCollection.instanceVanished(nodeClaim("True", null), Set.of(), List.of())).isTrue();
    assertThat(GarbageCollection.instanceVanished(nodeClaim("True", null), Set.of(), List.of(node("False")))).isTrue();
    assertThat(GarbageCollection.instanceVanished(nodeClaim("True", null), Set.of(), List.of(node("Unknown")))).isTrue();
  }

  @Test
  void aListedInstanceAReadyNodeAnUnregisteredOrDeletingNodeClaimIsLeftAlone() {
    assertThat(GarbageCollection.instanceVanished(nodeClaim("True", null), Set.of("fake://1"), List.of())).isFalse();
    assertThat(GarbageCollection.instanceVanished(nodeClaim("True", null), Set.of(), List.of(node("True")))).isFalse();
    assertThat(GarbageCollection.instanceVanished(nodeClaim("Unknown", null), Set.of(), List.of())).isFalse();
    assertThat(GarbageCollection.instanceVanished(nodeClaim("True", "2026-01-01T00:00:00Z"), Set.of(), List.of())).isFalse();
  }
}
